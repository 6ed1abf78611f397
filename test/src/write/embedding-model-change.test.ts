import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger } from "@context-hub/common";
import {
  startRecordingHttpServer,
  type FakeAnswer,
  type RecordedRequest,
  type RecordingHttpServer,
} from "@context-hub/common/testing";
import { startAllInOne } from "@context-hub/cli";
import { openDatabase, type SqlDatabase } from "@context-hub/store";
import { hnswIndexName } from "@context-hub/store/testing";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { startTestPostgres } from "../support/postgres.js";

/**
 * An embedding model change, end to end: the gateway refuses to start while
 * stored chunks are in another space, `context-hub reembed` moves them (and
 * survives a SIGKILL half-way: the rerun finishes the rest), and then the
 * gateway starts and semantic search finds the old entries with the new model.
 */

const bin = fileURLToPath(new URL("../../../bin/context-hub.js", import.meta.url));
const logger = createLogger("model-change-test", "silent");
const newModel = "fake-embed";
const newDimension = 8;
const builtinSpace = { model: "builtin-glove-256d-v3", dimension: 256 };

/** A deterministic vector per text: equal texts embed equally, different ones differently. */
function fakeVector(text: string): number[] {
  let hash = 7;
  for (let index = 0; index < text.length; index++) hash = (hash * 31 + text.charCodeAt(index)) % 1_000_003;
  return Array.from({ length: newDimension }, (_, i) => Math.cos(hash + i * 1.7));
}

const embeddingsAnswer = (request: RecordedRequest): FakeAnswer => ({
  json: {
    data: (request.body as { input: string[] }).input.map((text, index) => ({ index, embedding: fakeVector(text) })),
    model: newModel,
  },
});

const notes = Array.from(
  { length: 5 },
  (_, index) =>
    `# Tunnel run ${index}\n\n` +
    Array.from(
      { length: 8 },
      (_, sentence) =>
        `Run ${index} sentence ${sentence}: the blade stalled at ${10 + sentence} degrees and the rig vibrated.`,
    ).join(" "),
);
const shortNote = "Anemometer calibration drifted by two percent during the night shift.";

interface Backend {
  name: string;
  /** The database settings every process of this backend gets. */
  env: Record<string, string>;
  open(): Promise<SqlDatabase>;
  close(): Promise<void>;
}

const backends: { name: string; start(): Promise<Backend> }[] = [
  {
    name: "PGlite on disk",
    async start() {
      const dataDir = mkdtempSync(join(tmpdir(), "context-hub-reembed-"));
      return {
        name: "PGlite",
        env: { DATABASE_URL: "", STORE_DATA_DIR: dataDir },
        open: () => openDatabase({ url: "", dataDir, poolMax: 1 }, logger),
        close: async () => rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "PostgreSQL server",
    async start() {
      const postgres = await startTestPostgres();
      return {
        name: "PostgreSQL",
        env: { DATABASE_URL: postgres.url },
        open: () => openDatabase({ url: postgres.url, dataDir: "", poolMax: 2 }, logger),
        close: postgres.close,
      };
    },
  },
];

/** Chunks per (model, dimension), straight from the database. */
async function spacesIn(
  backend: Backend,
): Promise<{ chunks: Record<string, number>; registered: string[]; indexes: string[] }> {
  const db = await backend.open();
  try {
    const dims = db.vectorType === "pgvector" ? "vector_dims(embedding)" : "cardinality(embedding)";
    const { rows } = await db.query<{ space: string; chunks: number }>(
      `SELECT embedding_model || '/' || ${dims} AS space, count(*)::integer AS chunks FROM chunks GROUP BY 1`,
    );
    const { rows: registered } = await db.query<{ space: string }>(
      "SELECT embedding_model || '/' || dimension AS space FROM embedding_spaces ORDER BY 1",
    );
    const { rows: indexes } = await db.query<{ name: string }>(
      "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'chunks' AND indexname LIKE 'chunks_hnsw_%' ORDER BY 1",
    );
    return {
      chunks: Object.fromEntries(rows.map((row) => [row.space, row.chunks])),
      registered: registered.map((row) => row.space),
      indexes: indexes.map((row) => row.name),
    };
  } finally {
    await db.close();
  }
}

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `context-hub reembed` as its own process; `killWhen` resolving kills it with SIGKILL. */
function runReembed(env: Record<string, string>, args: string[], killWhen?: Promise<unknown>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "reembed", ...args], {
      env: { ...process.env, LOG_LEVEL: "silent", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
    void killWhen?.then(() => child.kill("SIGKILL"));
  });
}

for (const backendKind of backends) {
  describe(`an embedding model change on ${backendKind.name}`, () => {
    let backend: Backend;
    let embeddings: RecordingHttpServer;
    /** Answers normally, except the request with index `hangAt`, which never answers and resolves `hung`. */
    let hangAt = -1;
    let hung: () => void = () => undefined;
    const fakeEnv = () => ({
      EMBEDDER_PROVIDER: "openai",
      EMBEDDER_BASE_URL: embeddings.url,
      EMBEDDER_MODEL: newModel,
      EMBEDDER_DIMENSION: String(newDimension),
      EMBEDDER_TIMEOUT_MS: "60000",
      EMBEDDER_MAX_RETRIES: "0",
    });
    const hubEnv = (embedder: Record<string, string>) => ({
      ...process.env,
      LOG_LEVEL: "silent",
      EMBEDDER_CHUNK_SIZE: "200",
      EMBEDDER_CHUNK_OVERLAP: "20",
      ...backend.env,
      ...embedder,
    });
    const dataDir = () => (backend.env.STORE_DATA_DIR === undefined ? {} : { dataDir: backend.env.STORE_DATA_DIR });
    const ids: string[] = [];
    let shortId = "";
    /** The database as the built-in model left it. */
    let stored: Awaited<ReturnType<typeof spacesIn>>;

    before(async () => {
      backend = await backendKind.start();
      embeddings = await startRecordingHttpServer((request, index) => {
        if (index === hangAt) {
          hung();
          return "hang";
        }
        return embeddingsAnswer(request);
      });
    });
    after(async () => {
      await embeddings?.close();
      await backend?.close();
    });

    test("entries stored with the built-in model; reembed refuses while the server runs (PGlite)", async () => {
      const hub = await startAllInOne({ env: hubEnv({ EMBEDDER_PROVIDER: "builtin" }), port: 0, ...dataDir() });
      try {
        const client = await connectMcpClient(hub.url);
        for (const text of [...notes, shortNote])
          ids.push(
            (
              await callOk<{ context_id: string }>(client, "store_context", {
                thread_id: "tunnel",
                source: "agent",
                text,
              })
            ).context_id,
          );
        shortId = ids.pop()!;
        await client.close();
        if (backend.name === "PGlite") {
          const refused = await runReembed({ ...backend.env, ...fakeEnv() }, []);
          assert.equal(refused.code, 1);
          assert.match(
            refused.stderr,
            /Context Hub is running on .* \(pid \d+, http:\/\/127\.0\.0\.1:\d+\/mcp\)\. Stop it first/,
          );
        }
      } finally {
        await hub.close();
      }
      stored = await spacesIn(backend);
      assert.ok(
        (stored.chunks[`${builtinSpace.model}/${builtinSpace.dimension}`] ?? 0) > notes.length,
        "several chunks per note",
      );
    });

    test("a gateway whose embedder is in another space refuses to start, naming both spaces and what to do", async () => {
      const chunks = stored.chunks[`${builtinSpace.model}/${builtinSpace.dimension}`]!;
      await assert.rejects(startAllInOne({ env: hubEnv(fakeEnv()), port: 0, ...dataDir() }), (error: Error) => {
        assert.match(
          error.message,
          new RegExp(
            `holds ${chunks} chunks embedded with "${builtinSpace.model}" \\(${builtinSpace.dimension} dimensions\\)`,
          ),
        );
        assert.match(error.message, /the embedder is configured for "fake-embed" \(8 dimensions\)/);
        assert.match(error.message, /stop the server, then run `context-hub reembed`/);
        assert.match(error.message, /configure the previous model back/);
        return true;
      });
      // Without a configured dimension the embedder learns it from a probe request; the refusal comes once it has.
      const { EMBEDDER_DIMENSION: _configured, ...probing } = fakeEnv();
      await assert.rejects(
        startAllInOne({ env: hubEnv(probing), port: 0, ...dataDir() }),
        /holds \d+ chunks embedded with "builtin-glove-256d-v3" \(256 dimensions\), but the embedder is configured for "fake-embed" \(8 dimensions\)/,
      );
      // The matching configuration still starts.
      const hub = await startAllInOne({ env: hubEnv({ EMBEDDER_PROVIDER: "builtin" }), port: 0, ...dataDir() });
      await hub.close();
    });

    test("--dry-run counts and changes nothing", async () => {
      const requests = embeddings.requests.length;
      const run = await runReembed({ ...backend.env, ...fakeEnv() }, ["--dry-run"]);
      assert.equal(run.code, 0, run.stderr);
      const pending = stored.chunks[`${builtinSpace.model}/${builtinSpace.dimension}`]!;
      assert.match(
        run.stdout,
        new RegExp(
          `^${pending} chunk\\(s\\) to re-embed into fake-embed \\(8 dimensions\\):\\n  ${pending} chunk\\(s\\) in ${builtinSpace.model} \\(${builtinSpace.dimension} dimensions\\)`,
        ),
      );
      assert.match(run.stdout, /Nothing was changed \(--dry-run\)/);
      const after = await spacesIn(backend);
      assert.deepEqual(
        { chunks: after.chunks, registered: after.registered },
        { chunks: stored.chunks, registered: stored.registered },
      );
      assert.equal(embeddings.requests.length, requests, "no text was embedded");
    });

    test("reembed killed half-way leaves whole batches; the rerun moves exactly the rest and cleans up the old space", async () => {
      const total = stored.chunks[`${builtinSpace.model}/${builtinSpace.dimension}`]!;
      const first = embeddings.requests.length;
      hangAt = first + 2; // two batches of 2 committed, the third embedding call never answers
      const third = new Promise<void>((resolve) => (hung = resolve));
      const killed = await runReembed({ ...backend.env, ...fakeEnv() }, ["--batch-size", "2"], third);
      assert.equal(killed.signal, "SIGKILL");
      hangAt = -1;
      const half = await spacesIn(backend);
      assert.deepEqual(half.chunks, {
        [`${builtinSpace.model}/${builtinSpace.dimension}`]: total - 4,
        [`${newModel}/${newDimension}`]: 4,
      });

      const before = embeddings.requests.length;
      const rerun = await runReembed({ ...backend.env, ...fakeEnv() }, ["--batch-size", "3"]);
      assert.equal(rerun.code, 0, rerun.stderr);
      assert.match(
        rerun.stdout,
        new RegExp(`^${total - 4} chunk\\(s\\) to re-embed into fake-embed \\(8 dimensions\\) \\(4 already there\\)`),
      );
      assert.match(
        rerun.stdout,
        new RegExp(
          `Re-embedded ${total - 4} chunk\\(s\\) into fake-embed \\(8 dimensions\\) in ${Math.ceil((total - 4) / 3)} batch\\(es\\)\\. Removed the emptied space\\(s\\) ${builtinSpace.model} \\(${builtinSpace.dimension} dimensions\\)`,
        ),
      );
      // Not a terminal: plain progress lines on stderr, the last one complete.
      assert.match(
        rerun.stderr,
        new RegExp(`re-embedded ${total - 4}/${total - 4} chunks \\(100%\\)  [\\d.]+ chunks/s  ETA 0s\\n$`),
      );
      const texts = embeddings.requests.slice(before).flatMap((request) => (request.body as { input: string[] }).input);
      assert.equal(texts.length, total - 4, "only the chunks left over were embedded again");

      const done = await spacesIn(backend);
      assert.deepEqual(done.chunks, { [`${newModel}/${newDimension}`]: total });
      assert.deepEqual(done.registered, [`${newModel}/${newDimension}`]);
      assert.ok(
        !done.indexes.includes(hnswIndexName(builtinSpace.model, builtinSpace.dimension)),
        "the old space's HNSW index is gone",
      );

      const again = await runReembed({ ...backend.env, ...fakeEnv() }, []);
      assert.equal(again.code, 0, again.stderr);
      assert.match(
        again.stdout,
        new RegExp(
          `Every stored chunk \\(${total}\\) is already in fake-embed \\(8 dimensions\\); nothing to re-embed`,
        ),
      );
    });

    test("afterwards the new model's gateway starts and finds the old entries by meaning, with their spans unchanged", async () => {
      const hub = await startAllInOne({ env: hubEnv(fakeEnv()), port: 0, ...dataDir() });
      try {
        const client = await connectMcpClient(hub.url);
        const found = await callOk<{ results: { id: string; score: number }[] }>(client, "semantic_search_context", {
          query: shortNote,
          limit: 3,
        });
        assert.equal(found.results[0]?.id, shortId);
        assert.ok(found.results[0]!.score > 0.99, "the re-embedded span is the query's text");
        const fetched = await callOk<{ entries: { id: string; embedding_model: string; chunk_count: number }[] }>(
          client,
          "get_context_by_ids",
          { context_ids: ids },
        );
        assert.deepEqual(
          fetched.entries.map((entry) => entry.embedding_model),
          ids.map(() => newModel),
        );
        await client.close();
      } finally {
        await hub.close();
      }
    });
  });
}

test("an empty store accepts any embedding model", async () => {
  const embeddings = await startRecordingHttpServer(embeddingsAnswer);
  try {
    const hub = await startAllInOne({
      env: {
        ...process.env,
        LOG_LEVEL: "silent",
        DATABASE_URL: "",
        EMBEDDER_PROVIDER: "openai",
        EMBEDDER_BASE_URL: embeddings.url,
        EMBEDDER_MODEL: "another-model",
        EMBEDDER_DIMENSION: "12",
      },
      port: 0,
      dataDir: "memory://",
    });
    await hub.close();
  } finally {
    await embeddings.close();
  }
});
