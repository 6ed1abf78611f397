// A hub on a retrieval corpus (bench/retrieval.js --data-dir), as `context-hub start` runs it, with an MCP client
// holding the bench principal's API key and rate limits out of the way.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startAllInOne } from "@context-hub/cli";
import { generateApiKey } from "@context-hub/common";
import { benchPrincipal } from "../retrieval-data.js";

/** Starts the hub on `dataDir` with `env` added to this process's environment; `close` closes the client, then the hub. */
export async function startRetrievalHub(dataDir, env = {}) {
  const key = generateApiKey();
  const keysFile = join(dataDir, "..", "bench-keys.json");
  writeFileSync(keysFile, JSON.stringify({ keys: [{ key, ...benchPrincipal }] }));
  const hub = await startAllInOne({
    env: {
      ...process.env,
      LOG_LEVEL: "warn",
      CONTEXT_HUB_AUTH: "api-key",
      CONTEXT_HUB_API_KEYS_FILE: keysFile,
      CONTEXT_HUB_RATE_READ_PER_MIN: "1000000",
      CONTEXT_HUB_RATE_READ_BURST: "1000000",
      ...env,
    },
    readyTimeoutMs: 600_000,
    port: 0,
    dataDir,
    // As `context-hub start` runs it: the store in its own process, so the database has a core of its own.
    storeProcess: true,
  });
  const client = new Client({ name: "bench", version: "1" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(hub.url), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
  } catch (error) {
    await hub.close();
    throw error;
  }
  return {
    hub,
    client,
    async close() {
      await client.close();
      await hub.close();
    },
  };
}
