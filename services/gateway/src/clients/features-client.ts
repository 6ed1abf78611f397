/**
 * What this deployment has on, as whoami reports it: each worker's Describe
 * and the store's vector backend, asked with a short deadline so a silent
 * worker is reported, not waited for.
 */
import type { Peers } from "./peers.js";

/** How long whoami waits for a worker to describe itself before reporting it unavailable. */
const describeDeadlineMs = 2_000;

/** How long a store's answer about its vector backend is reused: it changes only when the store restarts with another setting. */
const vectorBackendTtlMs = 60_000;

/** The last answer per store client, and the request in flight, so concurrent whoami calls ask once. */
const vectorBackends = new WeakMap<Peers["store"], { at: number; value: Promise<string> }>();

/**
 * The vector backend the store reports in Describe (`pgvector`, `real[]` or
 * `qdrant`), cached per store client for a minute; `unavailable` when the
 * store does not answer in time (not cached, so the next call asks again).
 */
function vectorBackendOf(peers: Peers, deadlineMs: number): Promise<string> {
  const cached = vectorBackends.get(peers.store);
  if (cached !== undefined && Date.now() - cached.at < vectorBackendTtlMs) return cached.value;
  const entry = { at: Date.now(), value: Promise.resolve("unavailable") };
  entry.value = peers.store.describe({}, { deadlineMs }).then(
    (reply) => reply.vectorBackend || "unavailable",
    () => {
      if (vectorBackends.get(peers.store) === entry) vectorBackends.delete(peers.store);
      return "unavailable";
    },
  );
  vectorBackends.set(peers.store, entry);
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

/** Each feature's status, provider and model, and the store's vector backend. */
export async function describeFeatures(peers: Peers) {
  const options = { deadlineMs: describeDeadlineMs };
  const [summaries, embedder, reranker, vectorBackend] = await Promise.all([
    describe(peers.summarizer === undefined ? undefined : () => peers.summarizer!.describe({}, options)),
    describe(() => peers.embedder.describe({}, options)),
    describe(() => peers.reranker.describe({}, options)),
    vectorBackendOf(peers, describeDeadlineMs),
  ]);
  const strip = ({ status, provider, model }: Described) => ({ status, provider, model });
  return {
    summaries: strip(summaries),
    semantic_search: { ...strip(embedder), dimension: embedder.reply?.dimension ?? null },
    reranking: strip(reranker),
    vector_backend: vectorBackend,
  };
}
