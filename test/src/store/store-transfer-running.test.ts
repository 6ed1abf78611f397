/**
 * `context-hub export` and `import` while a hub serves: on PGlite they go
 * through the running hub's store (the data directory is the hub's, so
 * opening it would be refused), on a PostgreSQL server through a store the
 * command starts beside the hub. A file moved PGlite hub → PostgreSQL hub
 * exports back row for row; importing a file twice, a corrupted file and a
 * newer schema change nothing, each with the error naming why.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { runExportCommand, runImportCommand, startAllInOne, type AllInOne } from "@context-hub/cli";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { startTestPostgres } from "../support/postgres.js";

function capture() {
  const text: string[] = [];
  return { text, sink: { write: (line: string) => void text.push(line), isTTY: false } };
}

/** Writes, revises and deletes a few entries through MCP (auth off: tenant "local"), leaving versions, a tombstone and audit records. */
async function writeHistory(url: string, label: string): Promise<string[]> {
  const client = await connectMcpClient(url);
  try {
    const ids: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const ack = await callOk<{ context_id: string }>(client, "store_context", {
        thread_id: "moves",
        source: "user",
        text: `${label} note ${index}: the export streams through the running store`,
      });
      ids.push(ack.context_id);
    }
    await callOk(client, "update_context", { context_id: ids[1], text: `${label} note 1, revised while serving` });
    await callOk(client, "delete_context", { context_ids: [ids[3]], reason: "obsolete" });
    return ids;
  } finally {
    await client.close();
  }
}

/** Runs `context-hub export` into `path`; returns its progress and summary text. */
async function exportTo(env: NodeJS.ProcessEnv, args: string[], path: string): Promise<string> {
  const progress = capture();
  const output = createWriteStream(path);
  assert.equal(await runExportCommand(args, env, output, { progress: progress.sink, progressLineMs: 0 }), 0);
  output.end();
  await finished(output);
  return progress.text.join("");
}

/** Runs `context-hub import`; returns its summary line. */
async function importFrom(env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  const out: string[] = [];
  assert.equal(
    await runImportCommand(args, env, (text) => void out.push(text), { progress: capture().sink, progressLineMs: 0 }),
    0,
  );
  return out.join("");
}

/** The file's rows, sorted: what two exports of the same rows share (the header names when each was taken). */
async function rowsOf(path: string): Promise<string[]> {
  const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
  assert.equal(JSON.parse(lines[0]!).format, "context-hub-export");
  assert.equal(JSON.parse(lines.at(-1)!).kind, "end");
  return lines.slice(1, -1).sort();
}

/** The file with the first line of `kind` changed by `change` (the rest byte for byte). */
async function corrupt(from: string, to: string, kind: string, change: (row: Record<string, unknown>) => void) {
  const lines = (await readFile(from, "utf8")).split("\n");
  const index = lines.findIndex((line) => line.startsWith(`{"kind":"${kind}"`));
  assert.ok(index > 0, `the file has a ${kind} line`);
  const parsed = JSON.parse(lines[index]!) as { kind: string; row: Record<string, unknown> };
  change(parsed.row);
  lines[index] = JSON.stringify(parsed);
  await writeFile(to, lines.join("\n"));
  return index + 1;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("export and import with the hub running", () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  let directory: string;
  let fromPglite: string;
  let rowsFromPglite: string[];
  let pgliteHub: { url: string; env: NodeJS.ProcessEnv } | undefined;
  const base = { ...process.env, LOG_LEVEL: "silent", CONTEXT_HUB_AUTH: "none", DATABASE_URL: "" };

  test("PGlite: export and import go through the running hub's store; a second import, a corrupted file and a newer schema change nothing", async () => {
    directory = await mkdtemp(join(tmpdir(), "context-hub-transfer-running-"));
    cleanups.push(() => rm(directory, { recursive: true, force: true }));
    const dataDir = join(directory, "data");
    const env = { ...base, STORE_DATA_DIR: dataDir };
    const hub: AllInOne = await startAllInOne({ env, port: 0, dataDir });
    cleanups.push(() => hub.close());
    await writeHistory(hub.url, "pglite");
    pgliteHub = { url: hub.url, env };

    fromPglite = join(directory, "pglite.jsonl");
    const progress = await exportTo(env, [], fromPglite);
    rowsFromPglite = await rowsOf(fromPglite);
    const rows = rowsFromPglite.length;
    assert.match(progress, new RegExp(`exported ${rows}/${rows} rows \\(100%\\)`));
    assert.match(progress, /Exported \d+ row\(s\): 3 entry, .*entry_version, 1 tombstone, .*audit_record\./);

    // Into the store it came from, while it serves: every row is there already.
    assert.equal(
      await importFrom(env, [fromPglite]),
      `Imported 0 row(s); ${rows} already stored as they are were skipped.\n`,
    );
    const again = join(directory, "pglite-again.jsonl");
    await exportTo(env, [], again);
    assert.deepEqual(await rowsOf(again), rowsFromPglite);

    const tampered = join(directory, "tampered.jsonl");
    const line = await corrupt(fromPglite, tampered, "entry", (row) => {
      row.text = `${String(row.text)} (edited)`;
    });
    await assert.rejects(
      importFrom(env, [tampered]),
      new RegExp(`: line ${line}: the entry's text does not match its content_hash$`),
    );
    const newer = join(directory, "newer.jsonl");
    const [header, ...body] = (await readFile(fromPglite, "utf8")).split("\n");
    await writeFile(newer, [JSON.stringify({ ...JSON.parse(header!), schema_version: 999 }), ...body].join("\n"));
    await assert.rejects(importFrom(env, [newer]), /exported at schema version 999, newer than this store's \d+/);
    await exportTo(env, [], again);
    assert.deepEqual(await rowsOf(again), rowsFromPglite);
  });

  test("PostgreSQL server: a PGlite hub's file imported while the hub serves exports back row for row; a second import and a broken audit chain change nothing", async () => {
    assert.ok(rowsFromPglite !== undefined, "the PGlite test ran first and exported its store");
    const postgres = await startTestPostgres();
    cleanups.push(() => postgres.close());
    const env = { ...base, DATABASE_URL: postgres.url };
    const hub = await startAllInOne({ env, port: 0 });
    cleanups.push(() => hub.close());

    const summary = await importFrom(env, [fromPglite]);
    assert.match(summary, new RegExp(`^Imported ${rowsFromPglite.length} row\\(s\\): 3 entry, `));
    assert.match(summary, /; 0 already stored as they are were skipped\.\n$/);
    // The serving hub answers with the imported entries at once.
    const client = await connectMcpClient(hub.url);
    try {
      const found = await callOk<{ count: number }>(client, "search_context", { thread_id: "moves" });
      assert.equal(found.count, 3);
    } finally {
      await client.close();
    }

    const fromServer = join(directory, "server.jsonl");
    await exportTo(env, [], fromServer);
    assert.deepEqual(await rowsOf(fromServer), rowsFromPglite);

    assert.equal(
      await importFrom(env, [fromPglite]),
      `Imported 0 row(s); ${rowsFromPglite.length} already stored as they are were skipped.\n`,
    );
    const broken = join(directory, "broken-chain.jsonl");
    const line = await corrupt(fromServer, broken, "audit_record", (row) => {
      row.actor = "mallory";
    });
    await assert.rejects(
      importFrom(env, [broken]),
      new RegExp(`: line ${line}: audit record 1 of tenant local: its content does not match its hash`),
    );
    // A file that passes every check but names an entry the server holds with other content: nothing of it lands.
    const conflicting = join(directory, "conflicting.jsonl");
    await corrupt(fromServer, conflicting, "entry", (row) => {
      row.text = "other words under the same id";
      row.content_hash = sha256(String(row.text));
    });
    await assert.rejects(
      importFrom(env, [conflicting]),
      /conflict: this store already holds the entry with id .*nothing was imported/,
    );
    const afterwards = join(directory, "server-afterwards.jsonl");
    await exportTo(env, [], afterwards);
    assert.deepEqual(await rowsOf(afterwards), rowsFromPglite);
  });

  test("PGlite with the vector graph: entries imported into a running hub are found by semantic search at once", async () => {
    assert.ok(pgliteHub !== undefined, "the PGlite test ran first and its hub serves");
    const dataDir = join(directory, "graph-data");
    // The graph answers every search, however few chunks: an imported chunk it was not told of would not be found.
    const env = { ...base, STORE_DATA_DIR: dataDir, STORE_VECTOR_BACKEND: "graph", STORE_VECTOR_EXACT_BELOW: "0" };
    const first = await startAllInOne({ env, port: 0, dataDir });
    try {
      assert.match(await importFrom(env, [fromPglite]), /^Imported \d+ row\(s\): 3 entry, /);
    } finally {
      await first.close();
    }
    // Started again on what it holds, the hub's graph serves the space from the start.
    const hub = await startAllInOne({ env, port: 0, dataDir });
    cleanups.push(() => hub.close());
    // Work the first hub did since: a file that continues the copy, imported while its graph already serves the space.
    const since = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = await writeHistory(pgliteHub.url, "later");
    const recent = join(directory, "recent.jsonl");
    await exportTo(pgliteHub.env, ["--since", since.toISOString()], recent);
    assert.match(await importFrom(env, [recent]), /^Imported \d+ row\(s\): 3 entry, /);
    const client = await connectMcpClient(hub.url);
    try {
      // The built-in embedder reads "later note 0" and "later note 2" alike: either is the query's nearest.
      const query = "later note 2: the export streams through the running store";
      const found = await callOk<{ results: { id: string; score: number }[] }>(client, "semantic_search_context", {
        query,
        limit: 1,
      });
      assert.ok([later[0], later[2]].includes(found.results[0]?.id), JSON.stringify(found.results));
      assert.ok(found.results[0]!.score > 0.99);
    } finally {
      await client.close();
    }
  });
});
