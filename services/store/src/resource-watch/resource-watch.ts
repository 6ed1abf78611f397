/**
 * The resource watch service: a principal's resource subscriptions (per MCP
 * session) and the watches that stream their changes.
 *
 * A watched URI names, for its watcher: an entry by its own URI
 * (`context-hub://entries/{id}`, and its `/versions/{n}`, `/images/{k}` and
 * `/artifacts/{sha256}` forms), or what the watcher's own publication
 * resolving it serves (exact URI, else best matching template, as a resolve
 * answers), or nothing. A change is reported only while the watcher may read
 * what the URI names (access predicate, default trust filter), plus exactly
 * once when it stops being readable or the URI stops resolving; never for
 * what it could not read before and cannot read now (invariant I-2: a hidden
 * entry is as silent as a missing one). A change of what a URI resolves to
 * (the watcher publishing or unpublishing) is a change of that URI.
 *
 * Each watcher handles the changes of its tenant one at a time, in commit
 * order, re-checking only what a change can affect: its URIs naming the
 * changed entry (one statement), and its published URIs when a publication
 * of its own names that entry or its publications changed (two more, to
 * resolve them); a URI is reported when what the watcher reads through it
 * moved (resource-watcher.ts), so a commit that both opens and edits an
 * entry is reported once. Subscriptions change no one else's data and are
 * not audited. No SQL or transport here.
 */
import { ContextHubError, gauge, invalidArgument, type Logger } from "@context-hub/common";
import { requirePrincipal, type Principal } from "../model/principal.js";
import type { PublicationRepository } from "../publications/publication-repository.js";
import type { ChangeFeed, FeedEvent } from "./change-feed.js";
import {
  resourceWatchLimits,
  validateSessionId,
  validateWatchedUri,
  validateWatchedUris,
} from "./resource-watch-model.js";
import type { ResourceWatchRepository } from "./resource-watch-repository.js";
import { createResourceWatcher, type ResourceWatcher } from "./resource-watcher.js";

const watchersGauge = gauge("contexthub_resource_watchers", "Resource watches open on this store process.", []);

/** What a watch streams: `ready` once, first, then each changed URI exactly as watched. */
export type WatchMessage = { ready: true } | { uri: string };

/** A fixed set of URIs, or a session's subscriptions as they change. */
export type WatchRequest = { uris: readonly string[] } | { sessionId: string };

export interface ResourceWatchService {
  subscribe(principal: Principal | undefined, sessionId: string, uri: string): Promise<{ added: boolean }>;
  unsubscribe(principal: Principal | undefined, sessionId: string, uri: string): Promise<{ removed: boolean }>;
  /** Streams a watch until `signal` aborts (then it throws the signal's reason); the watcher is gone once it ends. */
  watch(
    principal: Principal | undefined,
    request: WatchRequest | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<WatchMessage>;
  /** Watches open now. */
  watcherCount(): number;
  /** Ends every watch and stops listening for changes. */
  close(): Promise<void>;
}

/** Changes a watcher may hold unhandled; past them it drops them and re-checks everything once instead. */
const maxPendingChanges = 1_000;

/** The resource watch service over its repositories and the store's change feed. */
export function createResourceWatchService(
  repository: ResourceWatchRepository,
  publications: PublicationRepository,
  feed: ChangeFeed,
  logger: Logger,
): ResourceWatchService {
  const closing = new AbortController();
  let watchers = 0;

  return {
    async subscribe(principal, sessionId, uri) {
      const caller = requirePrincipal(principal, "context:read");
      validateSessionId(sessionId);
      validateWatchedUri(uri);
      const outcome = await repository.subscribe(
        caller,
        sessionId,
        uri,
        resourceWatchLimits.urisPerWatch,
        resourceWatchLimits.sessionsPerPrincipal,
      );
      if (outcome.kind === "session-full")
        throw invalidArgument(
          `the session subscribes to ${outcome.uris} URIs, the most one session may (${resourceWatchLimits.urisPerWatch})`,
          "unsubscribe from one it no longer needs first",
        );
      if (outcome.kind === "added" && outcome.droppedSessions > 0)
        logger.info(
          { sessions: outcome.droppedSessions },
          "dropped the subscriptions of a principal's longest idle session",
        );
      return { added: outcome.kind === "added" };
    },

    async unsubscribe(principal, sessionId, uri) {
      const caller = requirePrincipal(principal, "context:read");
      validateSessionId(sessionId);
      validateWatchedUri(uri);
      return { removed: await repository.unsubscribe(caller, sessionId, uri) };
    },

    watch(principal, request, signal) {
      const caller = requirePrincipal(principal, "context:read");
      if (request === undefined) throw invalidArgument("give uris or session_id: what to watch");
      const fixed = "uris" in request ? validateWatchedUris(request.uris) : undefined;
      const sessionId = "sessionId" in request ? validateSessionId(request.sessionId) : undefined;
      const watcher = createResourceWatcher(caller, sessionId, repository, publications);
      return streamWatch(caller.tenant, watcher, fixed, feed, AbortSignal.any([signal, closing.signal]), (delta) => {
        watchers += delta;
        watchersGauge.inc(delta);
      });
    },

    watcherCount: () => watchers,

    async close() {
      closing.abort(new ContextHubError("STORE_UNAVAILABLE", "the store is shutting down; watch again"));
      await feed.close();
    },
  };
}

/**
 * Follows the tenant's changes, reads the watcher's state, yields `ready`,
 * then the URIs each change reports, one change at a time in commit order,
 * until `stop` aborts. `count` hears +1 once the watch is in place and -1
 * when it ends.
 */
async function* streamWatch(
  tenant: string,
  watcher: ResourceWatcher,
  fixed: readonly string[] | undefined,
  feed: ChangeFeed,
  stop: AbortSignal,
  count: (delta: number) => void,
): AsyncGenerator<WatchMessage> {
  stop.throwIfAborted();
  const pending: FeedEvent[] = [];
  let wake: (() => void) | undefined;
  // Followed before the first state is read: a change committed from here on is handled after it.
  const unfollow = await feed.follow(tenant, (event) => {
    if (pending.length >= maxPendingChanges) pending.splice(0, pending.length, { kind: "reset" });
    else pending.push(event);
    wake?.();
  });
  count(1);
  try {
    await watcher.load(fixed);
    yield { ready: true };
    for (;;) {
      while (pending.length === 0) await waitFor(stop, (resolve) => (wake = resolve));
      wake = undefined;
      stop.throwIfAborted();
      const event = pending.shift() as FeedEvent;
      for (const uri of await watcher.apply(event)) yield { uri };
    }
  } finally {
    unfollow();
    count(-1);
  }
}

/** Resolves when `arm`'s callback is called; rejects with the signal's reason when it aborts first. */
function waitFor(signal: AbortSignal, arm: (resolve: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    arm(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}
