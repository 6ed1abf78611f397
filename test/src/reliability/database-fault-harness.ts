import assert from "node:assert/strict";
import pg from "pg";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { contentHash } from "@context-hub/common";
import { startAllInOne, type AllInOne } from "@context-hub/cli";
import { connectMcpClient, textOf } from "../support/mcp.js";

/**
 * Load through a database fault, for the database reliability tests: two
 * writers and a reader keep calling while the fault runs, and afterwards the
 * tests check how calls failed and recovered and that every acknowledged
 * write is whole.
 */

export interface Call {
  at: number;
  tool: string;
  ok: boolean;
  message: string;
}

/** A fault to put the database through: `begin` it, hold it `holdMs`, `end` it (returns once the database is back). */
export interface DatabaseFault {
  begin(): Promise<void>;
  holdMs: number;
  end(): Promise<void>;
}

export interface FaultRun {
  calls: Call[];
  /** Acknowledged entries: id → hash of the text written. */
  acknowledged: Map<string, string>;
  /** When the fault began and ended, in ms since the run began (the clock of `calls`). */
  beganAt: number;
  endedAt: number;
  /** /readyz's status one second into the fault. */
  readiness: number | undefined;
}

/** The gateway's deadline for a store call: short, so calls during a fault fail rather than wait it out. */
const storeTimeoutMs = 1_500;

/** An all-in-one server over the database at `databaseUrl`, without rate limits, and three MCP clients of it. */
export async function startHubWithClients(
  databaseUrl: string,
): Promise<{ hub: AllInOne; clients: Client[]; close(): Promise<void> }> {
  const hub = await startAllInOne({
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: "silent",
      GATEWAY_STORE_TIMEOUT_MS: String(storeTimeoutMs),
      CONTEXT_HUB_RATE_READ_PER_MIN: "0",
      CONTEXT_HUB_RATE_WRITE_PER_MIN: "0",
    },
    port: 0,
  });
  const clients: Client[] = [];
  try {
    for (let index = 0; index < 3; index++) clients.push(await connectMcpClient(hub.url));
  } catch (error) {
    await hub.close();
    throw error;
  }
  return {
    hub,
    clients,
    async close() {
      for (const client of clients) await client.close();
      await hub.close();
    },
  };
}

/** A note long enough (over SUMMARIZER_MIN_CHARS, 500) to get a summary. */
const note = (writer: number, index: number) =>
  `# Pump log ${writer}-${index}\n\n` +
  Array.from(
    { length: 6 },
    (_, line) =>
      `Pressure at station ${(index + line) % 7} held steady during shift ${line}; the seal on pump ${writer} was inspected and the bearing temperature logged.`,
  ).join(" ") +
  `\n\n## Follow-up\n\nReplace the gasket at the next maintenance window ${index}.`;

const sleep = (ms: number) => new Promise((wait) => setTimeout(wait, ms));

/**
 * Runs two writers (`clients[0]`, `clients[1]`) and a reader (`clients[2]`)
 * against `hub`: 1.5 s of load, then the fault, then load until calls have
 * all succeeded for 2 s at least 3 s after the fault ended (or 20 s pass).
 */
export async function runThroughFault(
  hub: AllInOne,
  clients: readonly Client[],
  fault: DatabaseFault,
): Promise<FaultRun> {
  const began = performance.now();
  const now = () => performance.now() - began;
  const calls: Call[] = [];
  const acknowledged = new Map<string, string>();
  let running = true;

  const call = async (client: Client, tool: string, args: Record<string, unknown>) => {
    let result: CallToolResult | undefined;
    let message = "";
    try {
      result = (await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: 30_000,
      })) as CallToolResult;
      if (result.isError) message = textOf(result);
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    const ok = result !== undefined && result.isError !== true;
    calls.push({ at: now(), tool, ok, message });
    return ok ? result : undefined;
  };
  const writer = async (client: Client, id: number) => {
    for (let index = 0; running; index++) {
      const text = note(id, index);
      const result = await call(client, "store_context", { thread_id: `pumps-${id}`, source: "agent", text });
      if (result !== undefined)
        acknowledged.set((result.structuredContent as { context_id: string }).context_id, contentHash(text));
      else await sleep(100);
    }
  };
  const reader = async (client: Client) => {
    while (running) {
      if ((await call(client, "fts_search_context", { query: "gasket bearing", limit: 5 })) === undefined)
        await sleep(100);
    }
  };
  const load = Promise.all([writer(clients[0]!, 0), writer(clients[1]!, 1), reader(clients[2]!)]);

  let readiness: number | undefined;
  let beganAt = 0;
  let endedAt = 0;
  try {
    await sleep(1_500);
    beganAt = now();
    await fault.begin();
    try {
      await sleep(1_000);
      readiness = (await fetch(hub.url.replace(/\/mcp$/, "/readyz"), { signal: AbortSignal.timeout(fault.holdMs) }))
        .status;
      await sleep(Math.max(0, fault.holdMs - (now() - beganAt)));
    } finally {
      await fault.end();
      endedAt = now();
    }
    for (;;) {
      const recent = calls.filter((c) => c.at > now() - 2_000);
      if (now() - endedAt > 3_000 && recent.length > 0 && recent.every((c) => c.ok)) break;
      if (now() - endedAt > 20_000) break;
      await sleep(200);
    }
  } finally {
    running = false;
    await load;
  }
  return { calls, acknowledged, beganAt, endedAt, readiness };
}

/**
 * The fault took effect and was handled well: calls failed only while it
 * lasted, each with a clear error naming the store, and calls (writes among
 * them) succeed again within 10 s of its end.
 */
export function assertFailedCleanlyAndRecovered(run: FaultRun): void {
  const failed = run.calls.filter((c) => !c.ok);
  assert.ok(failed.length > 0, "calls during the fault failed (the fault took effect)");
  for (const failure of failed) {
    assert.match(
      failure.message,
      /^(STORE_UNAVAILABLE|DEADLINE_EXCEEDED): /,
      `a clear error naming the store: ${failure.message}`,
    );
    assert.ok(failure.at >= run.beganAt, "nothing failed before the fault");
  }
  const lastFailure = Math.max(...failed.map((c) => c.at));
  assert.ok(
    lastFailure - run.endedAt < 10_000,
    `calls succeed again within 10 s of the database coming back (last failure ${Math.round(lastFailure - run.endedAt)} ms after)`,
  );
  assert.ok(
    run.calls.some((c) => c.ok && c.tool === "store_context" && c.at > lastFailure),
    "writes succeed after the fault",
  );
}

/** Every acknowledged write is stored with its text, and every stored entry (acknowledged or not) is whole, with nothing orphaned. */
export async function assertEveryWriteWhole(
  databaseUrl: string,
  acknowledged: ReadonlyMap<string, string>,
): Promise<void> {
  assert.ok(acknowledged.size > 0);
  const database = new pg.Client({ connectionString: databaseUrl });
  await database.connect();
  try {
    const { rows } = await database.query<{
      id: string;
      content_hash: string;
      text: string;
      summary: string;
      chunks: number;
    }>(
      "SELECT e.id::text AS id, e.content_hash, e.text, e.summary, (SELECT count(*) FROM chunks c WHERE c.entry_id = e.id)::int AS chunks FROM entries e",
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const [id, hash] of acknowledged) {
      const row = byId.get(id);
      assert.ok(row !== undefined, `acknowledged entry ${id} is stored`);
      assert.equal(row.content_hash, hash, `entry ${id} holds the acknowledged text`);
    }
    // A write that failed at the gateway may still have committed; whatever committed is whole.
    for (const row of rows) {
      assert.equal(contentHash(row.text), row.content_hash, `entry ${row.id} text intact`);
      assert.ok(row.chunks > 0, `entry ${row.id} has its chunks`);
      assert.notEqual(row.summary, "", `entry ${row.id} has its summary`);
    }
    const orphans = await database.query<{ chunks: number; summaries: number }>(
      "SELECT (SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = c.entry_id))::int AS chunks, (SELECT count(*) FROM node_summaries n WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = n.entry_id))::int AS summaries",
    );
    assert.deepEqual(orphans.rows[0], { chunks: 0, summaries: 0 });
  } finally {
    await database.end();
  }
}
