import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createLogger, type RunningService } from "@context-hub/common";
import { loadEmbedderConfig, startEmbedder } from "@context-hub/embedder";
import { loadGatewayConfig, startGateway } from "@context-hub/gateway";
import { loadRerankerConfig, startReranker } from "@context-hub/reranker";
import { openDatabase, type SqlDatabase } from "@context-hub/store";
import { loadSummarizerConfig, startSummarizer } from "@context-hub/summarizer";
import { callTool, connectMcpClient } from "../support/mcp.js";
import { startTestPostgres } from "../support/postgres.js";
import { startStoreProcess, type StoreProcess } from "@context-hub/cli";

/**
 * I-5 under SIGKILL: a stream of writes runs while the store process is
 * killed at random moments and restarted. Afterwards every acknowledged write
 * is present with all its chunks and vectors, no entry lacks its vectors, and
 * retrying each unacknowledged write with its idempotency key lands it
 * exactly once.
 */

const logger = createLogger("crash-test", "silent");

async function startWorkersAndGateway(storeAddress: string): Promise<{ url: string; services: RunningService[] }> {
  const env = { ...process.env, LOG_LEVEL: "silent" };
  const [embedder, summarizer, reranker] = await Promise.all([
    startEmbedder(loadEmbedderConfig({ ...env, EMBEDDER_PORT: "0", EMBEDDER_OPS_PORT: "-1" }), logger),
    startSummarizer(loadSummarizerConfig({ ...env, SUMMARIZER_PORT: "0", SUMMARIZER_OPS_PORT: "-1" }), logger),
    startReranker(loadRerankerConfig({ ...env, RERANKER_PORT: "0", RERANKER_OPS_PORT: "-1" }), logger),
  ]);
  const gateway = await startGateway(
    loadGatewayConfig({
      ...env,
      GATEWAY_PORT: "0",
      STORE_ADDRESS: storeAddress,
      EMBEDDER_ADDRESS: `127.0.0.1:${embedder.port}`,
      SUMMARIZER_ADDRESS: `127.0.0.1:${summarizer.port}`,
      RERANKER_ADDRESS: `127.0.0.1:${reranker.port}`,
      GATEWAY_STORE_TIMEOUT_MS: "3000",
    }),
    logger,
  );
  return { url: `http://127.0.0.1:${gateway.port}/mcp`, services: [gateway, embedder, summarizer, reranker] };
}

/** A deterministic pseudo-random sequence, so a failing run can be replayed. */
function createRandom(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const paragraph = (index: number) =>
  `# Write ${index}\n\n` +
  Array.from({ length: 12 }, (_, sentence) => `Observation ${sentence} of write ${index}: the turbine blade ${index % 7} showed fatigue cracks near root section ${sentence}.`).join(" ");

const backends = [
  {
    name: "PGlite on disk",
    open: async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "context-hub-crash-"));
      return {
        env: { DATABASE_URL: "", STORE_DATA_DIR: dataDir },
        database: () => openDatabase({ url: "", dataDir, poolMax: 1 }, logger),
        close: async () => rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "PostgreSQL server",
    open: async () => {
      const postgres = await startTestPostgres();
      return { env: { DATABASE_URL: postgres.url }, database: () => openDatabase({ url: postgres.url, dataDir: "", poolMax: 2 }, logger), close: postgres.close };
    },
  },
];

for (const backend of backends) {
  describe(`SIGKILL of the store during a stream of writes (${backend.name})`, () => {
    test("acknowledged writes survive whole; nothing partial is left; retries land exactly once", async (t) => {
      const target = await backend.open();
      t.after(() => target.close());
      // As the all-in-one runs it: on a Unix socket no other process can take between the restarts.
      const socketDirectory = mkdtempSync(join(tmpdir(), "context-hub-crash-"));
      t.after(() => rmSync(socketDirectory, { recursive: true, force: true }));
      const listen = { socketPath: join(socketDirectory, "store.sock") };
      const storeEnv = { ...process.env, LOG_LEVEL: "error", ...target.env };
      let store: StoreProcess = await startStoreProcess(listen, storeEnv);
      const { url, services } = await startWorkersAndGateway(store.address);
      t.after(async () => {
        for (const service of services) await service.close();
      });

      const random = createRandom(20261130);
      const acked = new Map<number, string>();
      const failed = new Set<number>();
      let next = 0;
      const total = 120;
      let running = true;

      const writer = async (client: Client) => {
        while (running && next < total) {
          const index = next++;
          const result = await callTool(client, "store_context", { thread_id: `crash-${index % 5}`, source: "agent", text: paragraph(index), idempotency_key: `write-${index}` }).catch(
            () => undefined,
          );
          if (result !== undefined && !result.isError) acked.set(index, String((result.structuredContent as { context_id: string }).context_id));
          else failed.add(index);
        }
      };
      const clients = await Promise.all(Array.from({ length: 4 }, () => connectMcpClient(url)));
      t.after(async () => {
        for (const client of clients) await client.close();
      });
      const writers = Promise.all(clients.map(writer));

      // Kill the store three times at random moments while the writers run, restarting it each time.
      for (let kill = 0; kill < 3; kill++) {
        const after = Math.min(total - 5, next + 8 + Math.floor(random() * 20));
        while (next < after) await new Promise((wait) => setTimeout(wait, 5));
        await store.kill();
        store = await startStoreProcess(listen, storeEnv);
      }
      await writers;
      running = false;
      assert.ok(acked.size > 0, "some writes were acknowledged");
      assert.ok(failed.size > 0, "the kills interrupted some writes (otherwise the test proves nothing)");

      // Retry every unacknowledged write with its key: it lands once, or returns the write that had landed.
      for (const index of failed) {
        const result = await callTool(clients[0]!, "store_context", { thread_id: `crash-${index % 5}`, source: "agent", text: paragraph(index), idempotency_key: `write-${index}` });
        assert.ok(!result.isError, `retry of write ${index}`);
        acked.set(index, String((result.structuredContent as { context_id: string }).context_id));
      }
      await store.stop();

      const database: SqlDatabase = await target.database();
      try {
        const rows = await database.query<{ id: string; text: string; chunks: string }>(
          "SELECT e.id::text AS id, e.text, (SELECT count(*) FROM chunks c WHERE c.entry_id = e.id)::text AS chunks FROM entries e",
        );
        const byId = new Map(rows.rows.map((row) => [row.id, row]));
        assert.equal(rows.rows.length, total, "exactly one row per intended write: nothing lost, nothing doubled");
        for (const [index, id] of acked) {
          const row = byId.get(id);
          assert.ok(row, `acknowledged write ${index} (${id}) is present`);
          assert.equal(row.text, paragraph(index));
          assert.ok(Number(row.chunks) >= 1, `write ${index} has its vectors`);
        }
        const orphans = await database.query<{ count: string }>("SELECT count(*)::text AS count FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = c.entry_id)");
        assert.equal(orphans.rows[0]?.count, "0", "no vector without a row");
        const bare = await database.query<{ count: string }>("SELECT count(*)::text AS count FROM entries e WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.entry_id = e.id)");
        assert.equal(bare.rows[0]?.count, "0", "no row without vectors");
      } finally {
        await database.close();
      }
    });
  });
}
