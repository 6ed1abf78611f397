import { isIP } from "node:net";
import { z } from "zod";
import {
  commonEnvSchema,
  envBoolean,
  envEnum,
  envInteger,
  envOptionalInteger,
  envString,
  envVariable,
  isReservedSubject,
  loadConfig,
  reservedSubjectMessage,
} from "@context-hub/common";
import { splitList, urlProblem } from "./config-values.js";
import { readBodyLimitBytes, writeBodyLimitBytes } from "./mcp/body-limits.js";
import { parseToolsets, toolsetNames, type ToolsetName } from "./mcp/tools/toolsets.js";
import { checkOidcEnv, oidcConfigOf, oidcEnvVariables, type OidcConfig } from "./oidc-config.js";

export { jwtAlgorithms, type JwtAlgorithm, type OidcConfig } from "./oidc-config.js";

/** Ways a caller can prove who it is; none of them means auth off (one local principal). */
export const authMethods = ["api-key", "oidc"] as const;
export type AuthMethod = (typeof authMethods)[number];

/** CONTEXT_HUB_AUTH: `none`, or a comma-separated set of `api-key` and `oidc`. */
const authEnv = envVariable({ envType: "none | api-key | oidc | api-key,oidc", envDefault: "none" }).transform(
  (raw, ctx): AuthMethod[] => {
    const value = raw === undefined || raw.trim() === "" ? "none" : raw.trim();
    if (value === "none") return [];
    const methods = splitList(value);
    const unknown = methods.filter((method) => !(authMethods as readonly string[]).includes(method));
    if (unknown.length > 0 || methods.length === 0) {
      ctx.addIssue({ code: "custom", message: `expected none, api-key, oidc or api-key,oidc, got "${raw}"` });
      return z.NEVER;
    }
    return authMethods.filter((method) => methods.includes(method));
  },
);

/** CONTEXT_HUB_TOOLSETS: `all`, or a comma-separated list of toolset names; an unknown name stops the start. */
const toolsetsEnv = envVariable({ envType: "string", envDefault: "all" }).transform((raw, ctx): ToolsetName[] => {
  const choice = parseToolsets(raw === undefined || raw.trim() === "" ? "all" : raw);
  if (!choice.ok) {
    ctx.addIssue({ code: "custom", message: choice.message });
    return z.NEVER;
  }
  return choice.names;
});

/**
 * GATEWAY_EARLY_GENERATION: whether a new entry's generation starts beside
 * its dedup pre-check instead of after it. `auto` decides from the workers'
 * providers (see clients/early-generation.ts); `on` and `off` decide for
 * every write.
 */
export const earlyGenerationSettings = ["auto", "on", "off"] as const;
export type EarlyGenerationSetting = (typeof earlyGenerationSettings)[number];

/** One entry of CONTEXT_HUB_TRUSTED_PROXIES: a named range express knows, an IP address, or a CIDR range. */
function isProxySpec(item: string): boolean {
  if (item === "loopback" || item === "linklocal" || item === "uniquelocal") return true;
  const [address, prefix, extra] = item.split("/");
  if (extra !== undefined || address === undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

/** Every variable the gateway reads: docs/configuration.md is generated from these. */
export const gatewayEnvVariables = z.object({
  GATEWAY_HOST: envString("127.0.0.1").describe("Address to bind."),
  GATEWAY_PORT: envInteger(8080, 0, 65535).describe("HTTP port (`0` picks a free one)."),
  STORE_ADDRESS: envString("127.0.0.1:50051").describe("Store gRPC address."),
  EMBEDDER_ADDRESS: envString("127.0.0.1:50052").describe("Embedder gRPC address."),
  SUMMARIZER_ADDRESS: envString("127.0.0.1:50053").describe("Summarizer gRPC address."),
  RERANKER_ADDRESS: envString("127.0.0.1:50054").describe("Reranker gRPC address."),
  CONTEXT_HUB_SUMMARIES: envBoolean(true).describe("Generate summaries on write (then the summary leg is mandatory)."),
  CONTEXT_HUB_AUTH: authEnv.describe(
    "`none`, `api-key`, `oidc` or `api-key,oidc` (see [gateway.md](gateway.md#authentication)). `none` serves one local principal and refuses non-loopback binds.",
  ),
  CONTEXT_HUB_PUBLIC_URL: envString("").describe(
    "The MCP URL clients use, e.g. `https://context.example.com/mcp`: the OAuth protected resource and the default token audience. Required with `oidc`.",
  ),
  CONTEXT_HUB_API_KEYS_FILE: envString("").describe(
    "JSON file of provisioned API keys (e.g. a mounted Secret); see docs/security.md.",
  ),
  CONTEXT_HUB_KEY_CACHE_MS: envInteger(5_000, 0, 300_000).describe(
    "How long an API-key lookup (revocations included) is cached; bounds how late a revocation takes effect. At most 10,000 lookups are kept, least recently used evicted first.",
  ),
  CONTEXT_HUB_API_KEYS_FILE_POLL_MS: envInteger(10_000, 100, 3_600_000).describe(
    "How often the API keys file is read again (100–3600000); it is also watched, and read on `SIGHUP`.",
  ),
  ...oidcEnvVariables,
  CONTEXT_HUB_ALLOW_NON_LOOPBACK: envBoolean(false).describe(
    "Allow a non-loopback bind without authentication (only behind an authenticating proxy).",
  ),
  CONTEXT_HUB_LOCAL_TENANT: envString("local").describe("Tenant of the local principal in `none` mode."),
  CONTEXT_HUB_LOCAL_SUBJECT: envString("local").describe(
    "Subject of the local principal in `none` mode (not `operator`, which the audit log reserves).",
  ),
  CONTEXT_HUB_ALLOWED_ORIGINS: envString("").describe("Comma-separated browser origins allowed to call `/mcp`."),
  CONTEXT_HUB_MAX_BODY_BYTES: envInteger(writeBodyLimitBytes, 1024, writeBodyLimitBytes).describe(
    "Largest body accepted from a caller with `context:write` (1024 up to the default).",
  ),
  CONTEXT_HUB_MAX_READ_BODY_BYTES: envOptionalInteger(1024, writeBodyLimitBytes).describe(
    "Largest body accepted from a caller without `context:write`; at most `CONTEXT_HUB_MAX_BODY_BYTES`.",
  ),
  CONTEXT_HUB_RATE_AUTH_FAILURES_PER_MIN: envInteger(30, 0, 1_000_000).describe(
    "Failed or missing credentials per client address per minute before 429; `0` is unlimited.",
  ),
  CONTEXT_HUB_RATE_AUTH_FAILURES_BURST: envInteger(60, 1, 1_000_000).describe(
    "Failed authentications an address may make at once.",
  ),
  CONTEXT_HUB_TRUSTED_PROXIES: envString("").describe(
    "Comma-separated proxies whose `X-Forwarded-For` names the client address: IP addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`. Empty: the TCP peer is the client.",
  ),
  CONTEXT_HUB_RATE_READ_PER_MIN: envOptionalInteger(0, 1_000_000).describe(
    "Read messages (read-only tool calls and every message that is not a tool call) per principal per minute; `0` is unlimited.",
  ),
  CONTEXT_HUB_RATE_WRITE_PER_MIN: envOptionalInteger(0, 1_000_000).describe(
    "Calls of every other tool per principal per minute; `0` is unlimited.",
  ),
  CONTEXT_HUB_RATE_READ_BURST: envOptionalInteger(1, 1_000_000).describe("Read messages a principal may send at once."),
  CONTEXT_HUB_RATE_WRITE_BURST: envOptionalInteger(1, 1_000_000).describe("Write calls a principal may make at once."),
  CONTEXT_HUB_DISABLED_TOOLS: envString("").describe(
    "Comma-separated tools to remove from this deployment; a name that is no tool stops the start.",
  ),
  CONTEXT_HUB_TOOLSETS: toolsetsEnv.describe(
    `Comma-separated toolsets this deployment offers (${toolsetNames.join(", ")}), or \`all\`; a client narrows them per connection with \`?toolsets=\` on the MCP URL or the \`X-Context-Hub-Toolsets\` header, and \`context-hub stdio --toolsets\`. An unknown name stops the start.`,
  ),
  CONTEXT_HUB_MCP_APPS: envBoolean(false).describe(
    "Serve the search-results view as an MCP App (`ui://context-hub/search-results.html`) and name it in the search tools' `_meta.ui.resourceUri`, for hosts that render MCP Apps (see [mcp-apps.md](mcp-apps.md)).",
  ),
  CONTEXT_HUB_INSTRUCTIONS: envString("").describe(
    "Replaces the MCP instructions sent at `initialize` (2025 revisions) and `server/discover` (2026-07-28), ≤ 16,384 characters.",
  ),
  GATEWAY_STORE_TIMEOUT_MS: envInteger(15_000, 100).describe("Deadline of store calls."),
  GATEWAY_EMBED_TIMEOUT_MS: envInteger(30_000, 100).describe("Deadline of embedding calls."),
  GATEWAY_SUMMARY_TIMEOUT_MS: envInteger(30_000, 100).describe("Deadline of a write's summary call."),
  GATEWAY_SECTION_SUMMARY_TIMEOUT_MS: envInteger(5_000, 100).describe(
    "How long a write waits for node summaries before storing without them; must be less than `GATEWAY_SUMMARY_TIMEOUT_MS`.",
  ),
  GATEWAY_RERANK_TIMEOUT_MS: envInteger(30_000, 100).describe(
    "Deadline of a search's rerank call; when it passes, the search answers in fused order with a warning.",
  ),
  GATEWAY_EARLY_GENERATION: envEnum(earlyGenerationSettings, "auto").describe(
    "`on`: a new entry's generation starts beside its dedup pre-check; `off`: after it, so a retransmit costs no provider request; `auto`: `on` while both generation workers run the built-in providers (see [gateway.md](gateway.md#the-write-path)).",
  ),
  ...commonEnvSchema,
});

const schema = gatewayEnvVariables.superRefine((env, ctx) => {
  const problem = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (env.CONTEXT_HUB_PUBLIC_URL !== "") {
    const bad = urlProblem(env.CONTEXT_HUB_PUBLIC_URL, true);
    if (bad !== undefined) problem("CONTEXT_HUB_PUBLIC_URL", bad);
  }
  if (env.CONTEXT_HUB_SUMMARIES && env.GATEWAY_SECTION_SUMMARY_TIMEOUT_MS >= env.GATEWAY_SUMMARY_TIMEOUT_MS) {
    // The summarizer answers a text's summary and its node summaries together, so a section budget as long as the summary's deadline would fail the mandatory leg.
    problem(
      "GATEWAY_SECTION_SUMMARY_TIMEOUT_MS",
      `must be less than GATEWAY_SUMMARY_TIMEOUT_MS (${env.GATEWAY_SUMMARY_TIMEOUT_MS}): node summaries may use only part of the summary's deadline, got ${env.GATEWAY_SECTION_SUMMARY_TIMEOUT_MS}`,
    );
  }
  if (
    env.CONTEXT_HUB_MAX_READ_BODY_BYTES !== undefined &&
    env.CONTEXT_HUB_MAX_READ_BODY_BYTES > env.CONTEXT_HUB_MAX_BODY_BYTES
  ) {
    problem(
      "CONTEXT_HUB_MAX_READ_BODY_BYTES",
      `must be at most CONTEXT_HUB_MAX_BODY_BYTES (${env.CONTEXT_HUB_MAX_BODY_BYTES}), got ${env.CONTEXT_HUB_MAX_READ_BODY_BYTES}`,
    );
  }
  const badProxies = splitList(env.CONTEXT_HUB_TRUSTED_PROXIES).filter((item) => !isProxySpec(item));
  if (badProxies.length > 0) {
    problem(
      "CONTEXT_HUB_TRUSTED_PROXIES",
      `expected IP addresses, CIDR ranges, loopback, linklocal or uniquelocal, comma-separated; not understood: ${badProxies.join(", ")}`,
    );
  }
  if (isReservedSubject(env.CONTEXT_HUB_LOCAL_SUBJECT))
    problem("CONTEXT_HUB_LOCAL_SUBJECT", reservedSubjectMessage("the subject", env.CONTEXT_HUB_LOCAL_SUBJECT));
  if (env.CONTEXT_HUB_INSTRUCTIONS.length > 16_384)
    problem("CONTEXT_HUB_INSTRUCTIONS", "must be at most 16384 characters");
  checkOidcEnv(env, problem);
});

/** One token bucket: `perMinute` tokens refill per minute up to `burst`; `perMinute` 0 turns the budget off. */
export interface RateBudget {
  perMinute: number;
  burst: number;
}

export interface GatewayConfig {
  host: string;
  port: number;
  peers: { store: string; embedder: string; summarizer: string; reranker: string };
  /** When false the write path skips the summarizer entirely and summaries stay empty. */
  summariesEnabled: boolean;
  /** The MCP URL clients use (the OAuth protected resource); undefined when not configured. */
  publicUrl: string | undefined;
  auth: {
    /** Accepted credentials; empty means auth off (the one local principal). */
    methods: AuthMethod[];
    /** JSON file of provisioned keys (e.g. a mounted Secret); empty for none. */
    keysFile: string | undefined;
    /** How long a key lookup is cached; bounds how late a revocation takes effect. */
    keyCacheMs: number;
    /** How often the keys file is read again even without a change event (it is also watched, and read on SIGHUP). */
    keysFilePollMs: number;
    /** Present when `methods` includes oidc. */
    oidc: OidcConfig | undefined;
    /** Refuse to serve a non-loopback address without authentication unless this is set. */
    allowNonLoopback: boolean;
    localPrincipal: { tenant: string; subject: string };
  };
  /**
   * Per-principal budgets of JSON-RPC messages: a call of a tool that
   * changes something draws on `write`, every other message (reads,
   * initialize, tools/list, ping, notifications) on `read`. `authFailures`
   * is per client address: each refused credential (or none) draws on it.
   */
  rateLimits: { read: RateBudget; write: RateBudget; authFailures: RateBudget };
  /** Proxies whose X-Forwarded-For names the client address (express's trust proxy list); empty: the TCP peer is the client. */
  trustedProxies: string[];
  /** Tools removed from this deployment (names checked against the tool list at start-up). */
  disabledTools: string[];
  /** Toolsets this deployment offers (docs/gateway.md); a client may narrow them per connection, never widen them. */
  toolsets: ToolsetName[];
  /** MCP `instructions` sent at initialize; undefined means the built-in text. */
  instructions: string | undefined;
  /** Whether /mcp serves the search-results view as an MCP App and the search tools name it. */
  mcpApps: boolean;
  /** Origins allowed to call /mcp from a browser; loopback origins are always allowed on a loopback bind. */
  allowedOrigins: string[];
  /** The largest body accepted from a caller with `context:write` (at most the largest legal write). */
  maxBodyBytes: number;
  /** The largest body accepted from a caller without `context:write`. */
  maxReadBodyBytes: number;
  /** Deadlines of calls to peers: the store, the embedder, a write's summary and its node summaries, and a search's rerank. */
  timeouts: { storeMs: number; embedMs: number; summaryMs: number; sectionSummaryMs: number; rerankMs: number };
  /** When a new entry's generation starts: beside its dedup pre-check (on), after it (off), or as the workers' providers suggest (auto). */
  earlyGeneration: EarlyGenerationSetting;
  logLevel: string;
}

/**
 * Rate-limit defaults. With auth off there is one principal, whom a limit
 * would only slow down, so the budgets are off unless set; with auth on they
 * keep one busy principal from starving the others.
 */
const rateDefaults = { read: { perMinute: 600, burst: 200 }, write: { perMinute: 120, burst: 60 } } as const;

/** Reads the gateway's configuration from the environment; throws listing every bad variable. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  const raw = loadConfig(schema, env);
  const methods = [...raw.CONTEXT_HUB_AUTH];
  const publicUrl = raw.CONTEXT_HUB_PUBLIC_URL === "" ? undefined : raw.CONTEXT_HUB_PUBLIC_URL;
  const authOn = methods.length > 0;
  const budget = (perMinute: number | undefined, burst: number | undefined, defaults: RateBudget): RateBudget => ({
    perMinute: perMinute ?? (authOn ? defaults.perMinute : 0),
    burst: burst ?? defaults.burst,
  });
  const oidc: OidcConfig | undefined = methods.includes("oidc") ? oidcConfigOf(raw, publicUrl) : undefined;
  return Object.freeze({
    host: raw.GATEWAY_HOST,
    port: raw.GATEWAY_PORT,
    peers: {
      store: raw.STORE_ADDRESS,
      embedder: raw.EMBEDDER_ADDRESS,
      summarizer: raw.SUMMARIZER_ADDRESS,
      reranker: raw.RERANKER_ADDRESS,
    },
    summariesEnabled: raw.CONTEXT_HUB_SUMMARIES,
    publicUrl,
    auth: {
      methods,
      keysFile: raw.CONTEXT_HUB_API_KEYS_FILE === "" ? undefined : raw.CONTEXT_HUB_API_KEYS_FILE,
      keyCacheMs: raw.CONTEXT_HUB_KEY_CACHE_MS,
      keysFilePollMs: raw.CONTEXT_HUB_API_KEYS_FILE_POLL_MS,
      oidc,
      allowNonLoopback: raw.CONTEXT_HUB_ALLOW_NON_LOOPBACK,
      localPrincipal: { tenant: raw.CONTEXT_HUB_LOCAL_TENANT, subject: raw.CONTEXT_HUB_LOCAL_SUBJECT },
    },
    rateLimits: {
      read: budget(raw.CONTEXT_HUB_RATE_READ_PER_MIN, raw.CONTEXT_HUB_RATE_READ_BURST, rateDefaults.read),
      write: budget(raw.CONTEXT_HUB_RATE_WRITE_PER_MIN, raw.CONTEXT_HUB_RATE_WRITE_BURST, rateDefaults.write),
      authFailures: {
        perMinute: raw.CONTEXT_HUB_RATE_AUTH_FAILURES_PER_MIN,
        burst: raw.CONTEXT_HUB_RATE_AUTH_FAILURES_BURST,
      },
    },
    trustedProxies: splitList(raw.CONTEXT_HUB_TRUSTED_PROXIES),
    disabledTools: splitList(raw.CONTEXT_HUB_DISABLED_TOOLS),
    toolsets: raw.CONTEXT_HUB_TOOLSETS,
    instructions: raw.CONTEXT_HUB_INSTRUCTIONS.trim() === "" ? undefined : raw.CONTEXT_HUB_INSTRUCTIONS,
    mcpApps: raw.CONTEXT_HUB_MCP_APPS,
    allowedOrigins: splitList(raw.CONTEXT_HUB_ALLOWED_ORIGINS),
    maxBodyBytes: raw.CONTEXT_HUB_MAX_BODY_BYTES,
    // Unset: the read limit, or the write limit when an operator set that lower.
    maxReadBodyBytes:
      raw.CONTEXT_HUB_MAX_READ_BODY_BYTES ?? Math.min(readBodyLimitBytes, raw.CONTEXT_HUB_MAX_BODY_BYTES),
    timeouts: {
      storeMs: raw.GATEWAY_STORE_TIMEOUT_MS,
      embedMs: raw.GATEWAY_EMBED_TIMEOUT_MS,
      summaryMs: raw.GATEWAY_SUMMARY_TIMEOUT_MS,
      sectionSummaryMs: raw.GATEWAY_SECTION_SUMMARY_TIMEOUT_MS,
      rerankMs: raw.GATEWAY_RERANK_TIMEOUT_MS,
    },
    earlyGeneration: raw.GATEWAY_EARLY_GENERATION,
    logLevel: raw.LOG_LEVEL,
  });
}
