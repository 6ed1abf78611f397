import { z } from "zod";
import type { Peers } from "../../clients/peers.js";
import { defineTool, readOnlyTool } from "../tool-definition.js";

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

const featureStatus = z.enum(["on", "off", "unavailable"]).describe("on: configured and answering; off: turned off in this deployment; unavailable: configured but not answering now.");

const whoamiOutput = z.object({
  tenant: z.string(),
  subject: z.string(),
  groups: z.array(z.string()),
  scopes: z.array(z.string()),
  features: z.object({
    summaries: z.object({ status: featureStatus, provider: z.string().nullable(), model: z.string().nullable() }),
    semantic_search: z.object({ status: featureStatus, provider: z.string().nullable(), model: z.string().nullable(), dimension: z.number().nullable() }),
    reranking: z.object({ status: featureStatus, provider: z.string().nullable(), model: z.string().nullable() }),
    vector_backend: z.string(),
  }),
});

type Described = { status: "on" | "off" | "unavailable"; provider: string | null; model: string | null };

/** Asks a worker to describe itself; a worker that does not answer in time is reported, not fatal. */
async function describe<R extends { provider: string; model: string }>(ask: (() => Promise<R>) | undefined): Promise<Described & { reply?: R }> {
  if (ask === undefined) return { status: "off", provider: null, model: null };
  try {
    const reply = await ask();
    return { status: "on", provider: reply.provider, model: reply.model, reply };
  } catch {
    return { status: "unavailable", provider: null, model: null };
  }
}

async function describeFeatures(peers: Peers) {
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

export const whoamiTool = defineTool({
  name: "whoami",
  title: "Who am I",
  description: [
    "Show who you are to Context Hub — your tenant (organisation), subject, groups and scopes — and what this deployment has on:",
    "summaries, semantic search (the embedding model), reranking and the vector backend.",
    "Use it to understand why an entry is or is not visible to you, or which tools your scopes allow.",
  ].join(" "),
  inputSchema: z.object({}).strict(),
  outputSchema: whoamiOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(_args, { principal, peers }) {
    return { tenant: principal.tenant, subject: principal.subject, groups: principal.groups, scopes: principal.scopes, features: await describeFeatures(peers) };
  },
});
