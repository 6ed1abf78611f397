/**
 * A `context-hub start` layout with API-key authentication, on PGlite or on a
 * PostgreSQL server, and one MCP client per principal of a keys file: the
 * set-up of the suites that plant neighbours and compare what each caller
 * gets.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { startAllInOne, type AllInOne } from "@context-hub/cli";
import { connectMcpClient } from "./mcp.js";
import { startTestPostgres } from "./postgres.js";
import type { TestPrincipal } from "./principals.js";

/** Where a hub keeps its data: the environment and data directory it starts with, and how to remove it after. */
export interface HubBackend {
  name: string;
  start(): Promise<{ env: NodeJS.ProcessEnv; dataDir: string | undefined; close(): Promise<void> }>;
}

/** The embedded default (in-memory PGlite) and a PostgreSQL server of the suite's own. */
export const hubBackends: readonly HubBackend[] = [
  {
    name: "PGlite",
    start: async () => ({ env: { DATABASE_URL: "" }, dataDir: "memory://", close: async () => {} }),
  },
  {
    name: "PostgreSQL server",
    start: async () => {
      const postgres = await startTestPostgres();
      return { env: { DATABASE_URL: postgres.url }, dataDir: undefined, close: postgres.close };
    },
  },
];

/** A running hub, with `clients` filled in; `close` closes the clients, the hub and the backend. */
export interface KeyedHub {
  hub: AllInOne;
  close(): Promise<void>;
}

/**
 * Starts a hub on `backend` that authenticates the keys of `keys` (a file
 * written by `writeKeysFile`), and connects one MCP client per principal
 * into `clients`, under the principal's name; `env` adds to the hub's environment.
 */
export async function startKeyedHub(
  backend: HubBackend,
  keys: { path: string; principals: Record<string, TestPrincipal> },
  clients: Record<string, Client>,
  env: NodeJS.ProcessEnv = {},
): Promise<KeyedHub> {
  const started = await backend.start();
  let hub: AllInOne | undefined;
  const close = async () => {
    for (const client of Object.values(clients)) await client.close();
    await hub?.close();
    await started.close();
  };
  try {
    hub = await startAllInOne({
      env: {
        ...process.env,
        ...started.env,
        LOG_LEVEL: "silent",
        CONTEXT_HUB_AUTH: "api-key",
        CONTEXT_HUB_API_KEYS_FILE: keys.path,
        ...env,
      },
      port: 0,
      ...(started.dataDir === undefined ? {} : { dataDir: started.dataDir }),
    });
    for (const [name, principal] of Object.entries(keys.principals))
      clients[name] = await connectMcpClient(hub.url, { authorization: `Bearer ${principal.key}` });
    return { hub, close };
  } catch (error) {
    await close();
    throw error;
  }
}
