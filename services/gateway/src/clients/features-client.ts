/**
 * What this deployment has on, as whoami reports it: each worker's Describe
 * and the store's vector backend and full-text index, asked with a short deadline so a silent
 * worker is reported, not waited for.
 */
import type { Peers } from "./peers.js";

/** How long whoami waits for a worker to describe itself before reporting it unavailable. */
const describeDeadlineMs = 2_000;

/** How long a store's answer about its backends is reused: they change only when the store restarts with other settings. */
const storeBackendsTtlMs = 60_000;

/** What the store ranks with, as whoami shows it. */
interface StoreBackends {
  vector_backend: string;
  full_text_index: string;
}

const unavailable: StoreBackends = { vector_backend: "unavailable", full_text_index: "unavailable" };

/** The last answer per store client, and the request in flight, so concurrent whoami calls ask once. */
const storeBackends = new WeakMap<Peers["store"], { at: number; value: Promise<StoreBackends> }>();

/**
 * The vector backend (`pgvector`, `real[]`, `graph` or `qdrant`) and the
 * full-text index (`bm25` or `gin`) the store reports in Describe, cached
 * per store client for a minute; `unavailable` when the store does not
 * answer in time (not cached, so the next call asks again).
 */
function storeBackendsOf(peers: Peers, deadlineMs: number): Promise<StoreBackends> {
  const cached = storeBackends.get(peers.store);
  if (cached !== undefined && Date.now() - cached.at < storeBackendsTtlMs) return cached.value;
  const entry = { at: Date.now(), value: Promise.resolve(unavailable) };
  entry.value = peers.store.describe({}, { deadlineMs }).then(
    (reply) => ({
      vector_backend: reply.vectorBackend || "unavailable",
      full_text_index: reply.fullTextIndex || "unavailable",
    }),
    () => {
      if (storeBackends.get(peers.store) === entry) storeBackends.delete(peers.store);
      return unavailable;
    },
  );
  storeBackends.set(peers.store, entry);
  return entry.value;
}

type Described = { status: "on" | "off" | "unavailable"; provider: string | null; model: string | null };

/** Asks a worker to describe itself; a worker that does not answer in time is reported, not fatal. */
async function describe<R extends { provider: string; model: string }>(
  ask: (() => Promise<R>) | undefined,
): Promise<Described & { reply?: R }> {
  if (ask === undefined) return { status: "off", provider: null, model: null };
  try {
    const reply = await ask();
    return { status: "on", provider: reply.provider, model: reply.model, reply };
  } catch {
    return { status: "unavailable", provider: null, model: null };
  }
}

/** Each feature's status, provider and model, and the store's vector backend and full-text index. */
export async function describeFeatures(peers: Peers) {
  const options = { deadlineMs: describeDeadlineMs };
  const [summaries, embedder, reranker, backends] = await Promise.all([
    describe(peers.summarizer === undefined ? undefined : () => peers.summarizer!.describe({}, options)),
    describe(() => peers.embedder.describe({}, options)),
    describe(() => peers.reranker.describe({}, options)),
    storeBackendsOf(peers, describeDeadlineMs),
  ]);
  const strip = ({ status, provider, model }: Described) => ({ status, provider, model });
  return {
    summaries: strip(summaries),
    semantic_search: { ...strip(embedder), dimension: embedder.reply?.dimension ?? null },
    reranking: strip(reranker),
    ...backends,
  };
}
