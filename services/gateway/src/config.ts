import { z } from "zod";
import { envBoolean, envEnum, envInteger, envString, loadConfig } from "@context-hub/common";

const schema = z.object({
  GATEWAY_HOST: envString("127.0.0.1"),
  GATEWAY_PORT: envInteger(8080, 0, 65535),
  STORE_ADDRESS: envString("127.0.0.1:50051"),
  EMBEDDER_ADDRESS: envString("127.0.0.1:50052"),
  SUMMARIZER_ADDRESS: envString("127.0.0.1:50053"),
  RERANKER_ADDRESS: envString("127.0.0.1:50054"),
  CONTEXT_HUB_SUMMARIES: envBoolean(true),
  CONTEXT_HUB_AUTH: envEnum(["none", "api-key"] as const, "none"),
  CONTEXT_HUB_API_KEYS_FILE: envString(""),
  CONTEXT_HUB_KEY_CACHE_MS: envInteger(5_000, 0, 300_000),
  CONTEXT_HUB_ALLOW_NON_LOOPBACK: envBoolean(false),
  CONTEXT_HUB_LOCAL_TENANT: envString("local"),
  CONTEXT_HUB_LOCAL_SUBJECT: envString("local"),
  CONTEXT_HUB_ALLOWED_ORIGINS: envString(""),
  CONTEXT_HUB_MAX_BODY_BYTES: envInteger(64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  GATEWAY_STORE_TIMEOUT_MS: envInteger(15_000, 100),
  GATEWAY_EMBED_TIMEOUT_MS: envInteger(30_000, 100),
  GATEWAY_SUMMARY_TIMEOUT_MS: envInteger(30_000, 100),
  GATEWAY_SECTION_SUMMARY_TIMEOUT_MS: envInteger(5_000, 100),
  LOG_LEVEL: envEnum(["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const, "info"),
});

export interface GatewayConfig {
  host: string;
  port: number;
  peers: { store: string; embedder: string; summarizer: string; reranker: string };
  /** When false the write path skips the summarizer entirely and summaries stay empty. */
  summariesEnabled: boolean;
  auth: {
    mode: "none" | "api-key";
    /** JSON file of provisioned keys (e.g. a mounted Secret); empty for none. */
    keysFile: string | undefined;
    /** How long a key lookup is cached; bounds how late a revocation takes effect. */
    keyCacheMs: number;
    /** Refuse to serve a non-loopback address without authentication unless this is set. */
    allowNonLoopback: boolean;
    localPrincipal: { tenant: string; subject: string };
  };
  /** Origins allowed to call /mcp from a browser; loopback origins are always allowed on a loopback bind. */
  allowedOrigins: string[];
  maxBodyBytes: number;
  timeouts: { storeMs: number; embedMs: number; summaryMs: number; sectionSummaryMs: number };
  logLevel: string;
}

/** Reads the gateway's configuration from the environment; throws listing every bad variable. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  const raw = loadConfig(schema, env);
  return Object.freeze({
    host: raw.GATEWAY_HOST,
    port: raw.GATEWAY_PORT,
    peers: { store: raw.STORE_ADDRESS, embedder: raw.EMBEDDER_ADDRESS, summarizer: raw.SUMMARIZER_ADDRESS, reranker: raw.RERANKER_ADDRESS },
    summariesEnabled: raw.CONTEXT_HUB_SUMMARIES,
    auth: {
      mode: raw.CONTEXT_HUB_AUTH,
      keysFile: raw.CONTEXT_HUB_API_KEYS_FILE === "" ? undefined : raw.CONTEXT_HUB_API_KEYS_FILE,
      keyCacheMs: raw.CONTEXT_HUB_KEY_CACHE_MS,
      allowNonLoopback: raw.CONTEXT_HUB_ALLOW_NON_LOOPBACK,
      localPrincipal: { tenant: raw.CONTEXT_HUB_LOCAL_TENANT, subject: raw.CONTEXT_HUB_LOCAL_SUBJECT },
    },
    allowedOrigins: raw.CONTEXT_HUB_ALLOWED_ORIGINS.split(",").map((origin) => origin.trim()).filter((origin) => origin.length > 0),
    maxBodyBytes: raw.CONTEXT_HUB_MAX_BODY_BYTES,
    timeouts: {
      storeMs: raw.GATEWAY_STORE_TIMEOUT_MS,
      embedMs: raw.GATEWAY_EMBED_TIMEOUT_MS,
      summaryMs: raw.GATEWAY_SUMMARY_TIMEOUT_MS,
      sectionSummaryMs: raw.GATEWAY_SECTION_SUMMARY_TIMEOUT_MS,
    },
    logLevel: raw.LOG_LEVEL,
  });
}
