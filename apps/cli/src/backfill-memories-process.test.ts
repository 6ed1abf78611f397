// `context-hub backfill-memories` as a real process on a PGlite directory the built-in models filled: the mirrors it
// writes for memories stored without one are the ones their put wrote, and a second run finds nothing to do.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLogger } from "@context-hub/common";
import { openDatabase } from "@context-hub/store";
import { startAllInOne } from "./all-in-one.js";

const bin = fileURLToPath(new URL("../../../bin/context-hub.js", import.meta.url));
const logger = createLogger("backfill-memories-test", "silent");
const settings = {
  DATABASE_URL: "",
  EMBEDDER_PROVIDER: "builtin",
  EMBEDDER_CHUNK_SIZE: "200",
  EMBEDDER_CHUNK_OVERLAP: "20",
};

/** `context-hub backfill-memories` in its own process, to its exit. */
function backfill(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, "backfill-memories", "--batch-size", "1", ...args], {
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Everything a search uses of each mirror entry, by memory id: text, summary, full-text vector, chunk spans and vectors. */
async function mirrors(dataDir: string): Promise<Record<string, unknown>> {
  const db = await openDatabase({ url: "", dataDir, poolMax: 1 }, logger);
  try {
    const { rows } = await db.query<{ memory_id: string }>(
      `SELECT e.memory_id, e.owner, e.thread_id, e.visibility, e.text, e.summary, e.search_vector::text AS search_vector,
              (SELECT json_agg(json_build_array(c.ordinal, c.start_offset, c.end_offset, c.embedding_model, c.embedding::text) ORDER BY c.ordinal)
               FROM chunks c WHERE c.entry_id = e.id) AS chunks
       FROM entries e WHERE e.memory_id IS NOT NULL ORDER BY e.memory_id`,
    );
    return Object.fromEntries(rows.map((row) => [row.memory_id, row]));
  } finally {
    await db.close();
  }
}

describe("context-hub backfill-memories on a store the built-in models filled", () => {
  let dataDir = "";
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "context-hub-backfill-memories-"));
    const hub = await startAllInOne({ env: { ...process.env, LOG_LEVEL: "silent", ...settings }, port: 0, dataDir });
    try {
      const client = new Client({ name: "backfill-memories-test", version: "0.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(hub.url)));
      const values = [
        "The kiln log: the glaze crazed after firing at 1240 degrees with a fast cool-down. Next firing cools slowly over twelve hours, and the shelf moves to the top rack.",
        '{"kiln": "B", "cone": 6, "notes": ["slow cool", "top rack"]}',
      ];
      for (const [index, value] of values.entries()) {
        const result = await client.callTool({
          name: "put_memory",
          arguments: { namespace: "kiln", key: `k${index}`, value, value_type: index === 0 ? "text" : "json" },
        });
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
      }
      await client.close();
    } finally {
      await hub.close();
    }
  });
  after(() => {
    if (dataDir !== "") rmSync(dataDir, { recursive: true, force: true });
  });

  test("writes the mirrors their puts wrote (same text, summary, full-text vector, chunks and vectors); a rerun does nothing", async () => {
    const written = await mirrors(dataDir);
    assert.equal(Object.keys(written).length, 2);
    // As memories stored before migration 20.
    const db = await openDatabase({ url: "", dataDir, poolMax: 1 }, logger);
    await db.query("DELETE FROM entries WHERE memory_id IS NOT NULL");
    await db.close();
    assert.deepEqual(await mirrors(dataDir), {});

    const env = { ...settings, STORE_DATA_DIR: dataDir };
    const dry = await backfill(env, ["--dry-run"]);
    assert.deepEqual(
      [dry.code, dry.stdout],
      [0, "2 memory value(s) without a mirror entry.\nNothing was changed (--dry-run).\n"],
    );
    assert.deepEqual(await mirrors(dataDir), {});
    const first = await backfill(env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(
      first.stdout,
      /^2 memory value\(s\) without a mirror entry\.\nWrote 2 mirror entr\(ies\) in 2 batch\(es\)\.\n$/,
    );
    assert.deepEqual(await mirrors(dataDir), written);

    const second = await backfill(env);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, "Every live memory has its mirror entry; nothing to do.\n");
    assert.deepEqual(await mirrors(dataDir), written);
  });
});
