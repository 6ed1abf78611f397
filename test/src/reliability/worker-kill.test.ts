import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { contentHash, createLogger } from "@context-hub/common";
import { waitFor } from "@context-hub/common/testing";
import { openDatabase } from "@context-hub/store";
import { callOk, callTool, connectMcpClient, textOf } from "../support/mcp.js";
import { readWrite, writeKeysFile } from "../support/principals.js";
import { startServiceProcesses, type ServiceProcesses } from "../support/service-processes.js";

/**
 * One worker killed alone: the five services run as five processes (store on
 * PGlite, API-key auth), a few writes land, then the embedder gets SIGKILL.
 * A write fails with an error naming the embedder and stores nothing,
 * semantic search fails the same way, hybrid search answers from its
 * full-text leg with a warning, and /readyz says not ready. The embedder is
 * started again on its address — nothing else is restarted — and /readyz
 * recovers, the next write succeeds, and the database holds exactly the
 * acknowledged writes, each whole. bench/faults.js runs this and the other
 * single-process kills under load.
 */

const keys = writeKeysFile([
  { name: "writer", tenant: "worker-kill", subject: "writer", groups: [], scopes: readWrite },
]);
const writer = keys.principals.writer!;
let dataDir: string;
let services: ServiceProcesses | undefined;
let client: Client;

/** A note over SUMMARIZER_MIN_CHARS (500), so it gets a summary. */
const note = (index: number) =>
  `# Compressor log ${index}\n\n` +
  Array.from(
    { length: 6 },
    (_, line) =>
      `Discharge pressure at stage ${(index + line) % 5} stayed within limits on shift ${line}; valve ${index} was cycled and logged.`,
  ).join(" ") +
  `\n\n## Follow-up ${index}\n\nRecheck the intercooler marker${index}word at the next window.`;

const readyz = async () => {
  const response = await fetch(`${services!.baseUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "context-hub-worker-kill-"));
  services = await startServiceProcesses({
    dataDir,
    env: { CONTEXT_HUB_AUTH: "api-key", CONTEXT_HUB_API_KEYS_FILE: keys.path, LOG_LEVEL: "error" },
  });
  client = await connectMcpClient(services.url, { authorization: `Bearer ${writer.key}` });
});

after(async () => {
  await client?.close();
  await services?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  keys.dispose();
});

test(
  "SIGKILL of the embedder process alone: writes fail naming it and store nothing; after its restart the gateway reconnects on its own",
  { timeout: 60_000 },
  async () => {
    const acknowledged = new Map<string, string>();
    const write = async (index: number) => {
      const text = note(index);
      const ack = await callOk<{ context_id: string }>(client, "store_context", {
        thread_id: "worker-kill",
        source: "agent",
        text,
      });
      acknowledged.set(ack.context_id, contentHash(text));
    };
    for (let index = 0; index < 3; index++) await write(index);

    const others = (["store", "summarizer", "reranker", "gateway"] as const).map((name) => services!.pid(name));
    await services!.kill("embedder");

    const failed = await callTool(client, "store_context", {
      thread_id: "worker-kill",
      source: "agent",
      text: note(100),
    });
    assert.equal(failed.isError, true, `a write without its embedder must fail: ${textOf(failed)}`);
    assert.match(textOf(failed), /^EMBEDDER_UNAVAILABLE: .*embedder/, textOf(failed));
    const semantic = await callTool(client, "semantic_search_context", { query: "discharge pressure" });
    assert.equal(semantic.isError, true);
    assert.match(textOf(semantic), /^EMBEDDER_UNAVAILABLE: /);
    const hybrid = await callOk<{ results: unknown[]; warnings: string[] }>(client, "hybrid_search_context", {
      query: "discharge pressure",
    });
    assert.ok(hybrid.results.length > 0, "the full-text leg still answers");
    assert.ok(
      hybrid.warnings.some((warning) => /semantic leg failed.*embedder/.test(warning)),
      `hybrid search says the semantic leg failed: ${JSON.stringify(hybrid.warnings)}`,
    );
    const down = await readyz();
    assert.equal(down.status, 503);
    assert.equal(down.body.embedder, false);
    // Nothing of the failed write: its unique word is nowhere, and the thread still holds three entries.
    assert.equal((await callOk<{ count: number }>(client, "fts_search_context", { query: "marker100word" })).count, 0);
    assert.equal(
      (await callOk<{ results: unknown[] }>(client, "search_context", { thread_id: "worker-kill", limit: 50 })).results
        .length,
      3,
    );

    await services!.start("embedder");
    // The gateway learns of the restarted process over gRPC health checks, so wait on /readyz itself.
    await waitFor(async () => (await readyz()).status === 200, {
      what: "/readyz to recover after the embedder's restart",
      timeoutMs: 15_000,
    });
    await write(100);
    await write(101);
    assert.deepEqual(
      (["store", "summarizer", "reranker", "gateway"] as const).map((name) => services!.pid(name)),
      others,
      "no other process was restarted",
    );
    const found = await callOk<{ results: Array<{ id: string }> }>(client, "semantic_search_context", {
      query: "intercooler marker101word",
      limit: 20,
    });
    assert.ok(found.results.length > 0, "semantic search answers again");

    // The database, read directly once every process has stopped: exactly the acknowledged writes, each whole.
    await client.close();
    await services!.stop();
    services = undefined;
    const db = await openDatabase({ url: "", dataDir, poolMax: 1 }, createLogger("verify", "silent"));
    try {
      const { rows } = await db.query<{
        id: string;
        content_hash: string;
        text: string;
        summary: string;
        chunks: number;
      }>(
        `SELECT e.id::text AS id, e.content_hash, e.text, e.summary, (SELECT count(*) FROM chunks c WHERE c.entry_id = e.id)::int AS chunks
         FROM entries e WHERE e.tenant = 'worker-kill'`,
      );
      assert.deepEqual(rows.map((row) => row.id).sort(), [...acknowledged.keys()].sort());
      for (const row of rows) {
        assert.equal(row.content_hash, acknowledged.get(row.id));
        assert.equal(contentHash(row.text), row.content_hash);
        assert.ok(row.chunks > 0, `${row.id} has chunks`);
        assert.notEqual(row.summary, "", `${row.id} has a summary`);
      }
      const orphans = await db.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = c.entry_id)`,
      );
      assert.equal(orphans.rows[0]?.count, 0);
    } finally {
      await db.close();
    }
  },
);
