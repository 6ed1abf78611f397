/**
 * What an agent reads before it begins work in a namespace, gathered in one
 * go: the open handoffs addressed to it, the namespace's pinned memories,
 * where the last session there left off, and the thread's newest (or most
 * relevant) entries. Every read is a store call made as the caller, so the
 * store's access predicates decide what appears; a namespace the caller
 * cannot see reads exactly as an empty one.
 */
import type { GatewayClients } from "../clients/gateway-clients.js";
import type { HandoffView } from "../clients/handoffs-client.js";
import type { MemoryView } from "../clients/memories-client.js";
import type { EntryListing } from "../clients/search-client.js";
import type { SessionEventView, SessionView } from "../clients/sessions-client.js";
import type { Principal } from "../principal.js";
import { defaultFtsFeedback } from "../search/hybrid-feedback.js";
import { defaultFusionMethod, defaultLegWeights } from "../search/hybrid-fusion.js";
import { runHybridSearch } from "../search/hybrid-search.js";
import { defaultRrfK } from "../search/rrf.js";

/**
 * The tag that pins a memory: a pinned memory is one its writer tagged
 * `pinned` (put_memory's tags), shown to every agent that starts in its
 * namespace. A convention on the existing tags, so pinning needs no new
 * field and unpinning is a put without the tag.
 */
export const pinnedTag = "pinned";

/** How much of each part is read at most, before any budget applies. */
export const startReadLimits = {
  handoffs: 20,
  pinnedMemories: 50,
  /** Sessions looked through for the newest one that logged anything. */
  sessions: 20,
  /** Entries the hybrid search ranks before the page is cut. */
  searchCandidates: 50,
  searchRerankDepth: 20,
  searchMaxDepth: 500,
} as const;

export interface StartRequest {
  /** Resolved: the caller's own namespace when none was asked for. */
  namespace: string;
  thread: string | undefined;
  query: string | undefined;
  lastEvents: number;
  entries: number;
}

export type StartEntry = EntryListing & { score: number | null };

/** Everything read, before the budget: each part in the order it is shown. */
export interface StartMaterial {
  /** `quarantined`: open handoffs to the caller left out because the screen quarantined them (or a reviewer rejected them). */
  handoffs: { items: HandoffView[]; hasMore: boolean; quarantined: number };
  pinnedMemories: { items: MemoryView[]; hasMore: boolean };
  lastSession: { session: SessionView | null; events: SessionEventView[] };
  entries: { mode: "newest" | "search"; threadId: string; items: StartEntry[]; hasMore: boolean; warnings: string[] };
}

/**
 * Reads every part concurrently, as `principal`. Fails only as its store
 * calls fail (a bad argument, a store that does not answer); a search whose
 * semantic leg or reranker is down answers from full text with a warning.
 */
export async function gatherStart(
  clients: GatewayClients,
  principal: Principal,
  request: StartRequest,
): Promise<StartMaterial> {
  const [handoffs, pinnedMemories, lastSession, entries] = await Promise.all([
    openHandoffs(clients, principal, request.namespace),
    pinned(clients, principal, request.namespace),
    lastSessionOf(clients, principal, request),
    threadEntries(clients, principal, request),
  ]);
  return { handoffs, pinnedMemories, lastSession, entries };
}

/**
 * Open handoffs addressed to the caller, oldest first: those to it or its
 * groups wherever it works, and those to "any agent in a namespace" only for
 * this namespace (one for another namespace waits for whoever starts there).
 * A quarantined handoff (instruction-shaped title, summary, next steps or
 * open questions) is left out and only counted until a reviewer approves it
 * (verified), so an agent starting work is never handed one to act on
 * unreviewed; a rejected one stays out; list_handoffs still shows both with
 * their trust state.
 */
async function openHandoffs(clients: GatewayClients, principal: Principal, namespace: string) {
  const page = await clients.handoffs.list(principal, {
    role: "to_me",
    status: "open",
    order: "oldest",
    limit: startReadLimits.handoffs,
    cursor: "",
  });
  const addressed = page.handoffs.filter(
    (handoff) => handoff.recipient.kind !== "namespace" || handoff.recipient.name === namespace,
  );
  const items = addressed.filter(
    (handoff) => handoff.trust_state !== "quarantined" && handoff.trust_state !== "rejected",
  );
  return { items, hasMore: page.nextCursor !== "", quarantined: addressed.length - items.length };
}

async function pinned(clients: GatewayClients, principal: Principal, namespace: string) {
  const page = await clients.memories.list(principal, {
    namespace,
    keyPrefix: "",
    kind: "",
    tag: pinnedTag,
    owner: "",
    limit: startReadLimits.pinnedMemories,
    cursor: "",
    includeQuarantined: false,
  });
  return { items: page.memories, hasMore: page.nextCursor !== "" };
}

/**
 * The newest session of the namespace (of the thread, when one is named) the
 * caller can see that logged an event or left a summary — an empty one, such
 * as the session the caller may just have started, tells it nothing — with
 * its final `lastEvents` events.
 */
async function lastSessionOf(clients: GatewayClients, principal: Principal, request: StartRequest) {
  const page = await clients.sessions.list(principal, {
    role: "",
    namespace: request.namespace,
    thread: request.thread ?? "",
    status: "",
    limit: startReadLimits.sessions,
    cursor: "",
  });
  const session = page.sessions.find((candidate) => candidate.last_seq > 0 || candidate.summary.trim() !== "");
  if (session === undefined) return { session: null, events: [] };
  if (request.lastEvents === 0 || session.last_seq === 0) return { session, events: [] };
  const events = await clients.sessions.read(principal, {
    sessionId: session.id,
    afterSeq: Math.max(0, session.last_seq - request.lastEvents),
    kinds: [],
    limit: request.lastEvents,
  });
  return { session: events.session, events: events.events };
}

/**
 * The thread's newest entries, or with a query its best hybrid-search hits
 * for it. The memories' mirror entries (kind `memory`, in their namespace's
 * thread) are left out by the store, before the page is cut: the answer
 * shows memories as memories, and a memory listed again as an entry would
 * be shown twice and crowd out the thread's own entries.
 */
async function threadEntries(
  clients: GatewayClients,
  principal: Principal,
  request: StartRequest,
): Promise<StartMaterial["entries"]> {
  const threadId = request.thread ?? request.namespace;
  const filter = { thread_id: threadId, exclude_memory_mirrors: true };
  const mode = request.query === undefined ? "newest" : "search";
  if (request.entries === 0) return { mode, threadId, items: [], hasMore: false, warnings: [] };
  if (request.query === undefined) {
    const page = await clients.entries.list(principal, filter, { limit: request.entries, offset: 0 });
    return {
      mode,
      threadId,
      items: page.results.map((entry) => ({ ...entry, score: null })),
      hasMore: page.hasMore,
      warnings: [],
    };
  }
  const result = await runHybridSearch(clients.search, principal, {
    query: request.query,
    filter,
    limit: request.entries,
    offset: 0,
    ftsMode: "any",
    ftsFeedback: defaultFtsFeedback,
    fusion: defaultFusionMethod,
    rrfK: defaultRrfK,
    weights: { ...defaultLegWeights },
    rerank: true,
    candidates: startReadLimits.searchCandidates,
    rerankDepth: startReadLimits.searchRerankDepth,
    maxDepth: startReadLimits.searchMaxDepth,
  });
  return {
    mode,
    threadId,
    items: result.hits.map((hit) => ({ ...hit.entry.listing(), score: hit.score })),
    hasMore: result.hasMore,
    warnings: result.warnings,
  };
}
