/**
 * Which vector backend answers semantic search, and how the store reaches
 * Qdrant when that is the one. Documented in docs/vector-backends.md.
 */
import { type z } from "zod";
import { envEnum, envInteger, envString } from "@context-hub/common";

export type VectorBackendKind = "pgvector" | "qdrant" | "graph";

/** How the store talks to Qdrant and feeds it from the outbox. */
export interface QdrantSettings {
  /** Base URL of Qdrant's REST API, e.g. http://qdrant:6333. */
  url: string;
  /** Sent as the `api-key` header; empty for none. */
  apiKey: string;
  /** Collection name prefix: one collection per embedding space, `<prefix>_<dimension>d_<hash>`. */
  collection: string;
  /** Deadline of one Qdrant request, in milliseconds. */
  timeoutMs: number;
  /** Outbox rows the relay delivers per round. */
  relayBatch: number;
  /** How long the relay waits before looking again when the outbox is empty, in milliseconds. */
  relayIdleMs: number;
  /** Longest wait between retries while Qdrant fails, in milliseconds (the wait doubles from 250 ms up to this). */
  relayMaxBackoffMs: number;
  /** Points fetched per Qdrant page of a search, at least; pages grow while hits fail the PostgreSQL re-check. */
  searchPage: number;
  /** Most points one search examines before it hands the query to PostgreSQL's exact scan instead. */
  searchMaxPoints: number;
}

export interface VectorBackendConfig {
  /** `pgvector`: PostgreSQL's own HNSW indexes; `graph`: a native HNSW graph in the store process (PGlite only); `qdrant`: Qdrant fed from the outbox. */
  kind: VectorBackendKind;
  /** Set when `kind` is `qdrant`. */
  qdrant: QdrantSettings | undefined;
}

export const defaultQdrantCollection = "context_hub_chunks";

/** Qdrant accepts more, but a prefix this plain is safe in a URL path and in every shell. */
const collectionPattern = /^[A-Za-z0-9_-]{1,100}$/;

/** The vector-backend variables of the store's environment, merged into its config schema. */
export const vectorBackendEnvSchema = {
  STORE_VECTOR_BACKEND: envEnum(["pgvector", "qdrant", "graph"] as const, "pgvector").describe(
    "`pgvector`, `graph` or `qdrant`. Anything else stops the store at start-up naming the variable, and so does `graph` with a `DATABASE_URL`.",
  ),
  STORE_QDRANT_URL: envString("")
    .refine((url) => url === "" || isHttpUrl(url), {
      message: "expected an http:// or https:// URL, e.g. http://qdrant:6333",
    })
    .describe("Qdrant's REST URL, e.g. `http://qdrant:6333`. Required with `qdrant`; must be `http://` or `https://`."),
  STORE_QDRANT_API_KEY: envString("").describe("Sent as the `api-key` header when set."),
  STORE_QDRANT_COLLECTION: envString(defaultQdrantCollection)
    .refine((name) => collectionPattern.test(name), {
      message: "expected 1 to 100 letters, digits, '_' or '-'",
    })
    .describe(
      "Collection name prefix (letters, digits, `_`, `-`; at most 100): one collection per embedding space, `<prefix>_<dimension>d_<hash>`.",
    ),
  STORE_QDRANT_TIMEOUT_MS: envInteger(5_000, 100, 600_000).describe("Deadline of one Qdrant request."),
  STORE_QDRANT_RELAY_BATCH: envInteger(256, 1, 10_000).describe("Outbox rows delivered per round."),
  STORE_QDRANT_RELAY_IDLE_MS: envInteger(200, 10, 60_000).describe("Wait between looks at an empty outbox."),
  STORE_QDRANT_RELAY_MAX_BACKOFF_MS: envInteger(30_000, 250, 3_600_000).describe(
    "Longest wait between retries while Qdrant fails (from 250 ms, doubling, ±25 % jitter).",
  ),
  STORE_QDRANT_SEARCH_PAGE: envInteger(64, 1, 1_000).describe(
    "Smallest page of points one search asks Qdrant for (at least 3 × the limit; pages double up to 1,000).",
  ),
  STORE_QDRANT_SEARCH_MAX_POINTS: envInteger(10_000, 10, 1_000_000).describe(
    "Points one search examines before handing the query to PostgreSQL's own index instead.",
  ),
};

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

type VectorBackendEnv = { [K in keyof typeof vectorBackendEnvSchema]: z.infer<(typeof vectorBackendEnvSchema)[K]> };

/**
 * The check that needs two variables at once (Qdrant needs its URL), as a
 * refinement of the whole environment. It runs even when other variables are
 * bad, so every problem is reported together.
 */
export function qdrantUrlRequired<S extends z.ZodType<Partial<VectorBackendEnv>>>(schema: S): S {
  return schema.refine((env) => !(env.STORE_VECTOR_BACKEND === "qdrant" && env.STORE_QDRANT_URL === ""), {
    path: ["STORE_QDRANT_URL"],
    message: "is required when STORE_VECTOR_BACKEND=qdrant (e.g. http://qdrant:6333)",
    when: () => true,
  });
}

/**
 * The graph backend keeps its HNSW graph in the store's own memory and learns
 * of writes from the commits it makes itself, so it needs a database no other
 * process writes to: PGlite, which serves one process per data directory.
 */
export function graphNeedsPglite<S extends z.ZodType<Partial<VectorBackendEnv> & { DATABASE_URL?: string }>>(
  schema: S,
): S {
  return schema.refine(
    (env) => !(env.STORE_VECTOR_BACKEND === "graph" && env.DATABASE_URL !== undefined && env.DATABASE_URL !== ""),
    {
      path: ["STORE_VECTOR_BACKEND"],
      message:
        "graph keeps the vector graph inside one store process and needs PGlite (an empty DATABASE_URL); with a PostgreSQL server use pgvector or qdrant",
      when: () => true,
    },
  );
}

/** The vector-backend settings from parsed environment variables. */
export function toVectorBackendConfig(env: VectorBackendEnv): VectorBackendConfig {
  if (env.STORE_VECTOR_BACKEND !== "qdrant") return { kind: env.STORE_VECTOR_BACKEND, qdrant: undefined };
  return {
    kind: "qdrant",
    qdrant: {
      url: env.STORE_QDRANT_URL,
      apiKey: env.STORE_QDRANT_API_KEY,
      collection: env.STORE_QDRANT_COLLECTION,
      timeoutMs: env.STORE_QDRANT_TIMEOUT_MS,
      relayBatch: env.STORE_QDRANT_RELAY_BATCH,
      relayIdleMs: env.STORE_QDRANT_RELAY_IDLE_MS,
      relayMaxBackoffMs: env.STORE_QDRANT_RELAY_MAX_BACKOFF_MS,
      searchPage: env.STORE_QDRANT_SEARCH_PAGE,
      searchMaxPoints: env.STORE_QDRANT_SEARCH_MAX_POINTS,
    },
  };
}
