import { createLogger } from "@context-hub/common";
import type { AllInOne } from "@context-hub/cli";
import { loadGatewayConfig, startGateway } from "@context-hub/gateway";

/** A gateway under test: its MCP URL, its base URL, and how to stop it. */
export interface TestGateway {
  url: string;
  base: string;
  close(): Promise<void>;
}

/**
 * Starts one more gateway on the workers and store of a running hub, with
 * its own settings (an auth mode, rate limits…), so several gateway
 * configurations share one store and start in milliseconds. The process
 * environment is not inherited: only `env` configures it.
 */
export async function startGatewayOn(hub: AllInOne, env: Record<string, string>): Promise<TestGateway> {
  const { store, embedder, summarizer, reranker } = hub.services;
  const config = loadGatewayConfig({
    LOG_LEVEL: "silent",
    GATEWAY_PORT: "0",
    STORE_ADDRESS: store.address,
    EMBEDDER_ADDRESS: embedder.address,
    SUMMARIZER_ADDRESS: summarizer.address,
    RERANKER_ADDRESS: reranker.address,
    ...env,
  });
  const gateway = await startGateway(config, createLogger("gateway", "silent"));
  const base = `http://127.0.0.1:${gateway.port}`;
  return { url: `${base}/mcp`, base, close: () => gateway.close() };
}

/** The answer to one raw JSON-RPC POST: status, challenge header and parsed body. */
export interface RawAnswer {
  status: number;
  challenge: string | null;
  body: { result?: unknown; error?: { code: number; message: string } } | undefined;
}

/** POSTs one JSON-RPC message to an MCP URL, optionally with an Authorization header. */
export async function postJsonRpc(
  url: string,
  message: Record<string, unknown>,
  authorization?: string,
): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }),
  });
  const text = await response.text();
  return {
    status: response.status,
    challenge: response.headers.get("www-authenticate"),
    body: text === "" ? undefined : (JSON.parse(text) as RawAnswer["body"]),
  };
}

/** How many times a tool has run, across every gateway in this process (the tool-call counter in /metrics). */
export async function toolRuns(base: string, tool: string): Promise<number> {
  const metrics = await (await fetch(`${base}/metrics`)).text();
  let total = 0;
  for (const match of metrics.matchAll(/^contexthub_tool_calls_total\{([^}]*)\} (\d+)$/gm)) {
    if (match[1]!.includes(`tool="${tool}"`)) total += Number(match[2]);
  }
  return total;
}
