import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { contentHash } from "@context-hub/common";
import { startAllInOne, type AllInOne } from "@context-hub/cli";
import { connectMcpClient, textOf } from "../support/mcp.js";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";
import { signalPostgres } from "../support/process-tree.js";

/**
 * The database frozen (SIGSTOP of the whole PostgreSQL server) for a few
 * seconds while writers and a reader keep calling: the gateway reports not
 * ready, calls fail with a clear error naming the store instead of hanging
 * or answering "Internal error", nothing is restarted, calls succeed again
 * soon after the database resumes, and every acknowledged write is whole
 * (text hash, chunks, summary) with no partial row left by the ones that
 * failed. bench/faults.js runs this and the other fault scenarios at length.
 */

const pauseMs = 4_000;
const storeTimeoutMs = 1_500;

interface Call {
  at: number;
  tool: string;
  ok: boolean;
  message: string;
}

let postgres: TestPostgres;
let hub: AllInOne;
const clients: Client[] = [];

before(async () => {
  postgres = await startTestPostgres();
  hub = await startAllInOne({
    env: { ...process.env, DATABASE_URL: postgres.url, LOG_LEVEL: "silent", GATEWAY_STORE_TIMEOUT_MS: String(storeTimeoutMs), CONTEXT_HUB_RATE_READ_PER_MIN: "0", CONTEXT_HUB_RATE_WRITE_PER_MIN: "0" },
    port: 0,
  });
  for (let index = 0; index < 3; index++) clients.push(await connectMcpClient(hub.url));
});

after(async () => {
  for (const client of clients) await client.close();
  await hub?.close();
  await postgres?.close();
});

/** A note long enough (over SUMMARIZER_MIN_CHARS, 500) to get a summary. */
const note = (writer: number, index: number) =>
  `# Pump log ${writer}-${index}\n\n` +
  Array.from(
    { length: 6 },
    (_, line) => `Pressure at station ${(index + line) % 7} held steady during shift ${line}; the seal on pump ${writer} was inspected and the bearing temperature logged.`,
  ).join(" ") +
  `\n\n## Follow-up\n\nReplace the gasket at the next maintenance window ${index}.`;

test("a frozen database: clear errors, readiness drops, recovery without restart, every acknowledged write whole", async () => {
  const began = performance.now();
  const now = () => performance.now() - began;
  const calls: Call[] = [];
  const acknowledged = new Map<string, string>();
  let running = true;

  const call = async (client: Client, tool: string, args: Record<string, unknown>) => {
    let result: CallToolResult | undefined;
    let message = "";
    try {
      result = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult;
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
      if (result !== undefined) acknowledged.set((result.structuredContent as { context_id: string }).context_id, contentHash(text));
      else await new Promise((wait) => setTimeout(wait, 100));
    }
  };
  const reader = async (client: Client) => {
    while (running) {
      if ((await call(client, "fts_search_context", { query: "gasket bearing", limit: 5 })) === undefined) await new Promise((wait) => setTimeout(wait, 100));
    }
  };
  const load = Promise.all([writer(clients[0]!, 0), writer(clients[1]!, 1), reader(clients[2]!)]);

  const port = Number(new URL(postgres.url).port);
  let readiness: number | undefined;
  let pausedAt = 0;
  let resumedAt = 0;
  try {
    await new Promise((wait) => setTimeout(wait, 1_500));
    pausedAt = now();
    assert.ok(signalPostgres(port, "SIGSTOP") >= 2, "the server and its processes were frozen");
    try {
      await new Promise((wait) => setTimeout(wait, 1_000));
      readiness = (await fetch(hub.url.replace(/\/mcp$/, "/readyz"), { signal: AbortSignal.timeout(pauseMs) })).status;
      await new Promise((wait) => setTimeout(wait, Math.max(0, pauseMs - (now() - pausedAt))));
    } finally {
      signalPostgres(port, "SIGCONT");
      resumedAt = now();
    }
    // Run on until writes have succeeded for a while again (or give up after 20 s).
    for (;;) {
      const recent = calls.filter((c) => c.at > now() - 2_000);
      if (now() - resumedAt > 3_000 && recent.length > 0 && recent.every((c) => c.ok)) break;
      if (now() - resumedAt > 20_000) break;
      await new Promise((wait) => setTimeout(wait, 200));
    }
  } finally {
    running = false;
    await load;
  }

  assert.equal(readiness, 503, "the gateway reports not ready while the database is frozen");
  const failed = calls.filter((c) => !c.ok);
  assert.ok(failed.length > 0, "calls during the freeze failed (the fault took effect)");
  for (const failure of failed) {
    assert.match(failure.message, /^(STORE_UNAVAILABLE|DEADLINE_EXCEEDED): /, `a clear error naming the store: ${failure.message}`);
    assert.ok(failure.at >= pausedAt, "nothing failed before the freeze");
  }
  const lastFailure = Math.max(...failed.map((c) => c.at));
  assert.ok(lastFailure - resumedAt < 10_000, `calls succeed again within 10 s of the database resuming (last failure ${Math.round(lastFailure - resumedAt)} ms after)`);
  assert.ok(
    calls.some((c) => c.ok && c.tool === "store_context" && c.at > lastFailure),
    "writes succeed after the freeze",
  );
  assert.ok(acknowledged.size > 0);

  const database = new pg.Client({ connectionString: postgres.url });
  await database.connect();
  try {
    const { rows } = await database.query<{ id: string; content_hash: string; text: string; summary: string; chunks: number }>(
      "SELECT e.id::text AS id, e.content_hash, e.text, e.summary, (SELECT count(*) FROM chunks c WHERE c.entry_id = e.id)::int AS chunks FROM entries e",
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const [id, hash] of acknowledged) {
      const row = byId.get(id);
      assert.ok(row !== undefined, `acknowledged entry ${id} is stored`);
      assert.equal(row.content_hash, hash, `entry ${id} holds the acknowledged text`);
    }
    // Every row, acknowledged or not (a write that timed out at the gateway may still have committed), is whole.
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
});
