import { z } from "zod";
import { commonEnvSchema, envBoolean, envEnum, envInteger, envString, loadConfig } from "@context-hub/common";
import type { DatabaseOptions } from "./db/open-database.js";
import { largestAutomaticSharedBuffersMb, minimumSharedBuffersMb, pgliteMemoryMb } from "./db/pglite-buffers.js";
import {
  graphNeedsPglite,
  qdrantUrlRequired,
  toVectorBackendConfig,
  vectorBackendEnvSchema,
  type VectorBackendConfig,
} from "./vectors/qdrant-config.js";
import { searchEnvSchema, toSearchConfig, type SearchConfig } from "./search/search-config.js";
import { builtInEntryKinds, entryKindPattern, reservedEntryKinds } from "./model/entry-kinds.js";

/** STORE_ENTRY_KINDS as a list: comma-separated, blanks ignored. */
function toKindList(value: string): string[] {
  return value
    .split(",")
    .map((kind) => kind.trim())
    .filter((kind) => kind !== "");
}

/**
 * Descriptions of the search variables, which search-config.ts defines: the
 * configuration reference reads them from here.
 */
const searchVariableDescriptions: Record<keyof typeof searchEnvSchema, string> = {
  STORE_SEARCH_LANGUAGE:
    "Text-search configuration of the full-text index; changing it rebuilds the index (entries and kept versions) at start-up.",
  STORE_SEARCH_QUERY_LANGUAGES:
    "Comma-separated configurations a query may name in `language`; empty: every built-in configuration of the database.",
  STORE_VECTOR_EXACT_BELOW:
    "Compare exactly when the caller's candidates (chunks of the model in entries it may see that pass the filters) are fewer than this; also the store-wide chunk count from which HNSW indexes are built.",
  STORE_HNSW_EF_SEARCH: "`hnsw.ef_search` of approximate searches.",
  STORE_HNSW_M: "HNSW `m` of new indexes (what each insert into the graph costs grows with it).",
  STORE_HNSW_EF_CONSTRUCTION: "HNSW `ef_construction` of new indexes (recall grows with it; builds take longer).",
  STORE_HNSW_BUILD_MEMORY_MB: "`maintenance_work_mem` for an index build on PGlite.",
  STORE_HNSW_BUILD:
    "Build missing HNSW indexes at start-up and on first sight of a space, once the store holds `STORE_VECTOR_EXACT_BELOW` chunks (`false`: exact search until an operator builds them).",
  STORE_VECTOR_GRAPH_START_WAIT_MS:
    "`graph` backend: longest the store's start waits for its vector graphs to catch up with the stored chunks (a graph rebuilt from 100,000 chunks takes most of a minute); past it the store serves, and a space's semantic searches use the exact scan until its graph is done.",
  STORE_GREP_WORKERS: "Grep worker threads running at once.",
  STORE_BM25_K1: "BM25's term-frequency saturation `k1` of full-text ranking.",
  STORE_BM25_B: "BM25's length normalisation `b` (0: none, 1: full).",
  STORE_BM25_STATISTICS_SECONDS:
    "How long a caller view's entry count, average length and document frequencies are reused by full-text ranking (0 counts them for every query; as of an instant they are always counted). For up to six times as long they still answer while counted again in the background.",
  STORE_BM25_CANDIDATES:
    "Pruning of any-word full-text rankings: a query whose words' visible entries together number more than this first ranks the entries holding every word (their page sets a floor, and only entries that can pass it are ranked), then those holding its rarest words when they number at most this; every match is ranked only when neither settles the page (the same page either way; 0: always rank every match).",
  STORE_STATISTICS_SAMPLE_ENTRIES:
    "About how many entries of a caller's view full-text ranking reads to estimate its statistics once the view holds more than `STORE_STATISTICS_SAMPLE_ABOVE`: the view's entry count and average length for BM25, and pseudo-relevance feedback's candidate words' document frequencies (a word the sample holds fewer than four times is counted outright). The query's own words are always counted. 0 counts everything at any size.",
  STORE_STATISTICS_SAMPLE_ABOVE:
    "Searchable entries a caller's view holds before its full-text statistics are estimated from a sample instead of counted (see `STORE_STATISTICS_SAMPLE_ENTRIES`).",
  STORE_FULL_TEXT_INDEX:
    "Which index ranks a large tenant's whole-word full-text searches. `gin` (default): every search ranks in SQL, with statistics over what the caller may see. `bm25`: each tenant holding `STORE_BM25_INDEX_MIN_ENTRIES` searchable entries gets its own BM25 index (pg_textsearch; PGlite always has it), which ranks inside itself with statistics over the whole tenant, so an entry a caller may not see moves its scores (docs/security.md); start-up fails without pg_textsearch. `auto`: `bm25` when the database has pg_textsearch, else `gin`.",
  STORE_BM25_INDEX_MIN_ENTRIES:
    "Searchable entries a tenant holds before it gets its own BM25 index (smaller tenants rank in SQL, which is fast at their size).",
  STORE_BM25_INDEX_CHECK_SECONDS:
    "How often the store looks for tenants that reached `STORE_BM25_INDEX_MIN_ENTRIES` and builds their indexes (0: only at start-up). On PGlite a build holds the database while it runs (about 10 s per 100,000 entries).",
};

const describedSearchEnvSchema = Object.fromEntries(
  Object.entries(searchEnvSchema).map(([name, schema]) => [
    name,
    schema.describe(searchVariableDescriptions[name as keyof typeof searchEnvSchema]),
  ]),
) as typeof searchEnvSchema;

/** Every variable the store reads: docs/configuration.md is generated from these. */
export const storeEnvVariables = z.object({
  STORE_HOST: envString("127.0.0.1").describe("Address to bind (the Helm chart sets `0.0.0.0`)."),
  STORE_PORT: envInteger(50051, 0, 65535).describe("gRPC port (`0` picks a free one)."),
  STORE_SOCKET: envString("")
    .refine((path) => path === "" || path.startsWith("/"), {
      message: "expected an absolute path, or empty to listen on STORE_HOST:STORE_PORT",
    })
    .describe(
      "An absolute path: serve gRPC on this Unix socket instead of `STORE_HOST`:`STORE_PORT` (clients dial `unix:<path>`). `context-hub start` runs its store this way, in a directory only its user may enter.",
    ),
  STORE_OPS_PORT: envInteger(9091, -1, 65535).describe(
    "Port of `/metrics`, `/healthz`, `/readyz` (`0` picks a free one, `-1` disables it).",
  ),
  DATABASE_URL: envString("")
    .refine((url) => url === "" || /^postgres(ql)?:\/\//.test(url), {
      message: "expected a postgres:// or postgresql:// connection string, or empty for PGlite",
    })
    .describe("`postgres://` connection string of a PostgreSQL server; empty selects PGlite in `STORE_DATA_DIR`."),
  STORE_DATA_DIR: envString(".context-hub/data").describe(
    "PGlite's data directory (created 0700 if missing; refused when other users can read or write it, see [store.md](store.md#operations)); `memory://` keeps everything in memory and loses it on exit.",
  ),
  STORE_PGLITE_SHARED_BUFFERS_MB: envInteger(0, 0, pgliteMemoryMb)
    .refine((mb) => mb === 0 || mb >= 16, { message: "expected 0 (sized from the data directory) or at least 16" })
    .describe(
      `PGlite's buffer cache (\`shared_buffers\`) in MB, held from start-up (the store's memory grows by it). \`0\` (default) sizes it at each start from the data directory: a quarter more than the database's relation files, rounded up to 64 MB, from ${minimumSharedBuffersMb} to ${largestAutomaticSharedBuffersMb}, and never more than \`STORE_HNSW_BUILD_MEMORY_MB\` leaves of ${pgliteMemoryMb} MB (PGlite's memory ends at 2 GB). A set value and \`STORE_HNSW_BUILD_MEMORY_MB\` together may not exceed ${pgliteMemoryMb}. See [performance.md](performance.md#pglites-buffer-cache). Not used with \`DATABASE_URL\`.`,
    ),
  DATABASE_POOL_MAX: envInteger(10, 1, 1000).describe("Most connections to a PostgreSQL server (1–1000)."),
  STORE_PREPARED_STATEMENTS: envBoolean(true).describe(
    "Prepare row statements once per connection on a PostgreSQL server; `false` behind a pooler that cannot keep them (PgBouncer older than 1.21, or without `max_prepared_statements`). PGlite always prepares.",
  ),
  STORE_MIGRATIONS: envEnum(["apply", "verify"] as const, "apply").describe(
    "`apply`: bring the schema up to date at start-up. `verify`: change nothing and refuse to start unless the schema is exactly the one this store knows (for replicas when a migrations Job, `node services/store/dist/main.js migrate`, runs first).",
  ),
  // A minute to a year; a day by default.
  STORE_IDEMPOTENCY_TTL_SECONDS: envInteger(86_400, 60, 31_536_000).describe(
    "How long an idempotency key replays its first response (60 to 31,536,000 s); after it the key is new again and its record is deleted (see [Idempotency keys](store.md#idempotency-keys)).",
  ),
  STORE_ARTIFACT_MAX_BYTES: envInteger(52_428_800, 1, 1_073_741_824).describe(
    "Largest artifact in bytes (1 to 1 GiB; 50 MiB by default). A larger `put_artifact` or declared upload is refused before anything is stored; artifacts already stored stay readable when it is lowered.",
  ),
  STORE_ARTIFACT_UPLOAD_TTL_SECONDS: envInteger(86_400, 60, 604_800).describe(
    "How long a chunked artifact upload may stay uncommitted (60 to 604,800 s); after it the upload id is unknown and its parts are deleted when the next upload begins.",
  ),
  STORE_TEXT_BUDGET_MS: envInteger(3000, 10, 600_000).describe(
    "Most time the store's work on one long text may take in a worker thread (10–600000): the write-time screen (stage `screen`), on PGlite the full-text vector of a text of 16384 characters or more (stage `full-text index`), both before the write's transaction opens, and at read time the outline of a stored text (`navigate_context`, stage `outline`; a node range, stage `range`). Past it the worker is terminated and the call fails with `TEXT_BUDGET_EXCEEDED` naming the stage; a write so stopped stores nothing. Texts of at most 4096 characters are worked on at once, without a worker. See [reliability.md](reliability.md#work-on-caller-text).",
  ),
  STORE_TEXT_WORKERS: envInteger(1, 1, 64).describe(
    "Worker threads of each of the store's text pools: the screen, outlines and (on PGlite) full-text vectors of long texts (1–64).",
  ),
  STORE_ENTRY_KINDS: envString("")
    .refine((value) => toKindList(value).every((kind) => entryKindPattern.test(kind)), {
      message:
        'expected comma-separated kind names, each a lowercase letter then up to 31 lowercase letters, digits, "_" or "-"',
    })
    .describe(
      `Comma-separated kinds an entry may have besides the built-in ${builtInEntryKinds.map((kind) => `\`${kind}\``).join(", ")} (\`${reservedEntryKinds.join(", ")}\` is reserved for the store's memories and refused on writes). A write naming any other kind is refused with \`INVALID_ARGUMENT\` listing the accepted ones; entries of a kind later removed stay readable and filterable.`,
    ),
  ...describedSearchEnvSchema,
  ...vectorBackendEnvSchema,
  ...commonEnvSchema,
});

/** A buffer cache set by hand must leave an index build its memory within PGlite's (a server sizes its own). */
function pgliteMemoryFits<
  S extends z.ZodType<{
    DATABASE_URL: string;
    STORE_PGLITE_SHARED_BUFFERS_MB: number;
    STORE_HNSW_BUILD_MEMORY_MB: number;
  }>,
>(schema: S): S {
  return schema.refine(
    (env) =>
      env.DATABASE_URL !== "" ||
      env.STORE_PGLITE_SHARED_BUFFERS_MB === 0 ||
      env.STORE_PGLITE_SHARED_BUFFERS_MB + env.STORE_HNSW_BUILD_MEMORY_MB <= pgliteMemoryMb,
    {
      path: ["STORE_PGLITE_SHARED_BUFFERS_MB"],
      message: `with STORE_HNSW_BUILD_MEMORY_MB it may take at most ${pgliteMemoryMb} MB of PGlite's 2 GB: lower one of them, or set 0 to size the cache from the data directory`,
      when: () => true,
    },
  );
}

const schema = pgliteMemoryFits(graphNeedsPglite(qdrantUrlRequired(storeEnvVariables)));

export interface StoreConfig {
  host: string;
  port: number;
  /** A Unix socket to serve gRPC on instead of `host`:`port`; undefined serves TCP. */
  socketPath: string | undefined;
  /** Port of /metrics, /healthz and /readyz; 0 picks a free one, -1 disables it. */
  opsPort: number;
  database: DatabaseOptions;
  /** How long an idempotency key replays its first response; after that the key is new again and its record is deleted. */
  idempotency: { ttlMs: number };
  search: SearchConfig;
  /** What answers semantic search: pgvector inside PostgreSQL, a graph in the store process, or Qdrant fed from the outbox. */
  vectors: VectorBackendConfig;
  /** Artifacts: the largest file, and how long a chunked upload may stay uncommitted. */
  artifacts: { maxBytes: number; uploadTtlMs: number };
  /** The write-time screen of long texts, in worker threads. */
  text: { budgetMs: number; workers: number };
  /** Kinds entries may have besides the built-in ones. */
  entryKinds: readonly string[];
  logLevel: string;
}

/**
 * Reads the store's configuration from the environment (pure; throws listing
 * every bad variable). An empty DATABASE_URL selects PGlite in STORE_DATA_DIR.
 */
export function loadStoreConfig(env: NodeJS.ProcessEnv): StoreConfig {
  const raw = loadConfig(schema, env);
  return Object.freeze({
    host: raw.STORE_HOST,
    port: raw.STORE_PORT,
    socketPath: raw.STORE_SOCKET === "" ? undefined : raw.STORE_SOCKET,
    opsPort: raw.STORE_OPS_PORT,
    database: Object.freeze({
      url: raw.DATABASE_URL,
      dataDir: raw.STORE_DATA_DIR,
      poolMax: raw.DATABASE_POOL_MAX,
      preparedStatements: raw.STORE_PREPARED_STATEMENTS,
      migrations: raw.STORE_MIGRATIONS,
      pgliteSharedBuffers: Object.freeze({
        mb: raw.STORE_PGLITE_SHARED_BUFFERS_MB,
        ceilingMb: pgliteMemoryMb - raw.STORE_HNSW_BUILD_MEMORY_MB,
      }),
    }),
    idempotency: Object.freeze({ ttlMs: raw.STORE_IDEMPOTENCY_TTL_SECONDS * 1000 }),
    search: toSearchConfig(raw),
    vectors: Object.freeze(toVectorBackendConfig(raw)),
    artifacts: Object.freeze({
      maxBytes: raw.STORE_ARTIFACT_MAX_BYTES,
      uploadTtlMs: raw.STORE_ARTIFACT_UPLOAD_TTL_SECONDS * 1000,
    }),
    text: Object.freeze({ budgetMs: raw.STORE_TEXT_BUDGET_MS, workers: raw.STORE_TEXT_WORKERS }),
    entryKinds: Object.freeze(toKindList(raw.STORE_ENTRY_KINDS)),
    logLevel: raw.LOG_LEVEL,
  });
}
