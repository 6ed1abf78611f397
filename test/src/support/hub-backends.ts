import pg from "pg";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AllInOne } from "@context-hub/cli";
import { callOk, connectMcpClient } from "./mcp.js";
import { startMemoryHub } from "./memory-hub.js";
import { startTestPostgres } from "./postgres.js";

/** Every table a write puts rows in (see services/store/src/db/migrations). */
export const writeTables = [
  "entries",
  "chunks",
  "node_summaries",
  "entry_images",
  "entry_versions",
  "audit_log",
  "idempotency_keys",
  "vector_outbox",
  "tombstones",
] as const;
export type WriteTable = (typeof writeTables)[number];

/** The store's database, read directly with SQL. */
export interface HubDatabase {
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
  /** How many rows each table a write touches holds. */
  rowCounts(): Promise<Record<WriteTable, number>>;
}

/** A running `context-hub start` with an MCP client connected to it. */
export interface BackendHub {
  hub: AllInOne;
  client: Client;
  /** The database the store writes to, where a test can open it (a PostgreSQL server); undefined for in-memory PGlite. */
  database: HubDatabase | undefined;
  close(): Promise<void>;
}

/** A database the store can run on; `start` runs the whole hub on it with `env` on top of this process's environment. */
export interface HubBackend {
  name: string;
  start(env: NodeJS.ProcessEnv): Promise<BackendHub>;
}

async function connect(
  hub: AllInOne,
  database: HubDatabase | undefined,
  release: () => Promise<void>,
): Promise<BackendHub> {
  let client: Client;
  try {
    client = await connectMcpClient(hub.url);
  } catch (error) {
    await hub.close();
    await release();
    throw error;
  }
  return {
    hub,
    client,
    database,
    async close() {
      await client.close();
      await hub.close();
      await release();
    },
  };
}

function openDatabase(url: string): { database: HubDatabase; close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
    (await pool.query<R>(sql, params)).rows;
  return {
    database: {
      query,
      async rowCounts() {
        const [row] = await query<Record<WriteTable, number>>(
          `SELECT ${writeTables.map((table) => `(SELECT count(*)::integer FROM ${table}) AS ${table}`).join(", ")}`,
        );
        return row!;
      },
    },
    close: () => pool.end(),
  };
}

/** The store on in-memory PGlite, as `context-hub start` runs it on a laptop. */
export const memoryBackend: HubBackend = {
  name: "PGlite in memory",
  start: async (env) => connect(await startMemoryHub(env), undefined, async () => undefined),
};

/** The store on a real PostgreSQL server: a fresh database, which the test opens too. */
export const postgresBackend: HubBackend = {
  name: "PostgreSQL server",
  async start(env) {
    const postgres = await startTestPostgres();
    let hub: AllInOne;
    try {
      hub = await startMemoryHub({ ...env, DATABASE_URL: postgres.url });
    } catch (error) {
      await postgres.close();
      throw error;
    }
    const opened = openDatabase(postgres.url);
    return connect(hub, opened.database, async () => {
      await opened.close();
      await postgres.close();
    });
  },
};

export const hubBackends: HubBackend[] = [memoryBackend, postgresBackend];

/** What a test can see of the whole store: get_statistics over MCP, and every write table's row count where the database is open to it. */
export interface StoreSnapshot {
  statistics: Record<string, unknown>;
  rows: Record<WriteTable, number> | undefined;
}

export async function snapshotStore(hub: BackendHub): Promise<StoreSnapshot> {
  return { statistics: await callOk(hub.client, "get_statistics", {}), rows: await hub.database?.rowCounts() };
}

/** One entry as its rows stand in the database: the row, its chunks (vectors as text), node summaries and past versions. */
export async function entryRows(database: HubDatabase, id: string) {
  const [entry] = await database.query(
    "SELECT version, text, summary, content_hash, metadata, tags, updated_at FROM entries WHERE id = $1",
    [id],
  );
  const chunks = await database.query(
    "SELECT ordinal, start_offset, end_offset, embedding_model, embedding::text AS embedding FROM chunks WHERE entry_id = $1 ORDER BY ordinal",
    [id],
  );
  const nodeSummaries = await database.query(
    "SELECT node_id, heading, level, start_offset, end_offset, summary FROM node_summaries WHERE entry_id = $1 ORDER BY ordinal",
    [id],
  );
  const versions = await database.query(
    "SELECT version, content_hash, summary FROM entry_versions WHERE entry_id = $1 ORDER BY version",
    [id],
  );
  return { entry, chunks, nodeSummaries, versions };
}
