import { z } from "zod";
import { commonEnvSchema, envBoolean, envEnum, envInteger, envString, loadConfig } from "@context-hub/common";
import type { DatabaseOptions } from "./db/open-database.js";
import { graphNeedsPglite, qdrantUrlRequired, toVectorBackendConfig, vectorBackendEnvSchema, type VectorBackendConfig } from "./qdrant-config.js";
import { searchEnvSchema, toSearchConfig, type SearchConfig } from "./search-config.js";

const schema = graphNeedsPglite(
  qdrantUrlRequired(
    z.object({
      STORE_HOST: envString("127.0.0.1"),
      STORE_PORT: envInteger(50051, 0, 65535),
      STORE_SOCKET: envString("").refine((path) => path === "" || path.startsWith("/"), { message: "expected an absolute path, or empty to listen on STORE_HOST:STORE_PORT" }),
      STORE_OPS_PORT: envInteger(9091, -1, 65535),
      DATABASE_URL: envString("").refine((url) => url === "" || /^postgres(ql)?:\/\//.test(url), {
        message: "expected a postgres:// or postgresql:// connection string, or empty for PGlite",
      }),
      STORE_DATA_DIR: envString(".context-hub/data"),
      DATABASE_POOL_MAX: envInteger(10, 1, 1000),
      STORE_PREPARED_STATEMENTS: envBoolean(true),
      STORE_MIGRATIONS: envEnum(["apply", "verify"] as const, "apply"),
      // A minute to a year; a day by default.
      STORE_IDEMPOTENCY_TTL_SECONDS: envInteger(86_400, 60, 31_536_000),
      STORE_TEXT_BUDGET_MS: envInteger(3000, 10, 600_000),
      STORE_TEXT_WORKERS: envInteger(1, 1, 64),
      ...searchEnvSchema,
      ...vectorBackendEnvSchema,
      ...commonEnvSchema,
    }),
  ),
);

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
  /** The write-time screen of long texts, in worker threads. */
  text: { budgetMs: number; workers: number };
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
    }),
    idempotency: Object.freeze({ ttlMs: raw.STORE_IDEMPOTENCY_TTL_SECONDS * 1000 }),
    search: toSearchConfig(raw),
    vectors: Object.freeze(toVectorBackendConfig(raw)),
    text: Object.freeze({ budgetMs: raw.STORE_TEXT_BUDGET_MS, workers: raw.STORE_TEXT_WORKERS }),
    logLevel: raw.LOG_LEVEL,
  });
}
