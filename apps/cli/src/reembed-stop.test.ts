// `context-hub reembed` as a real process on a PGlite directory the built-in model filled: a graceful stop and its rerun.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLogger, isContextHubError } from "@context-hub/common";
import {
  startRecordingHttpServer,
  type FakeAnswer,
  type RecordedRequest,
  type RecordingHttpServer,
} from "@context-hub/common/testing";
import { openDatabase, reembedChunks } from "@context-hub/store";
import { startAllInOne } from "./all-in-one.js";

const bin = fileURLToPath(new URL("../../../bin/context-hub.js", import.meta.url));
const logger = createLogger("reembed-stop-test", "silent");
const target = { model: "fake-embed", dimension: 8 };
const builtinModel = "builtin-glove-256d-v3";

/** A unit vector per text, different for different texts. */
function vectorOf(text: string): number[] {
  const raw = Array.from(
    { length: target.dimension },
    (_, axis) => 1 + ((text.length * (axis + 3) + (text.charCodeAt(axis % text.length) || 0)) % 17),
  );
  const norm = Math.hypot(...raw);
  return raw.map((value) => value / norm);
}

const answerEmbeddings = (request: RecordedRequest): FakeAnswer => ({
  json: {
    object: "list",
    data: (request.body as { input: string[] }).input.map((text, index) => ({
      object: "embedding",
      index,
      embedding: vectorOf(text),
    })),
    model: target.model,
  },
});

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `context-hub reembed` in its own process; `stderrShows` resolves once its stderr matches. */
function startReembed(env: Record<string, string>, args: string[]) {
  const child = spawn(process.execPath, [bin, "reembed", ...args], {
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const watchers: { pattern: RegExp; seen: () => void }[] = [];
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const watcher of watchers.filter((candidate) => candidate.pattern.test(stderr))) {
      watchers.splice(watchers.indexOf(watcher), 1);
      watcher.seen();
    }
  });
  // "close" comes after the output streams end, so nothing written before the exit is missed.
  const finished = new Promise<Finished>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
  const stderrShows = (pattern: RegExp) =>
    new Promise<void>((seen) => (pattern.test(stderr) ? seen() : watchers.push({ pattern, seen })));
  return { child, finished, stderrShows };
}

describe("context-hub reembed on a store the built-in model filled", () => {
  let dataDir = "";
  let embeddings: RecordingHttpServer;
  /** When set, the request with this index waits for `release` before it is answered. */
  let held: { index: number; arrived: () => void; release: Promise<void> } | undefined;
  const reembedEnv = () => ({
    DATABASE_URL: "",
    STORE_DATA_DIR: dataDir,
    EMBEDDER_PROVIDER: "openai",
    EMBEDDER_BASE_URL: embeddings.url,
    EMBEDDER_MODEL: target.model,
    EMBEDDER_DIMENSION: String(target.dimension),
    EMBEDDER_MAX_RETRIES: "0",
  });

  /** Chunks per embedding model (the two models here have different dimensions too). */
  async function chunksByModel(): Promise<Record<string, number>> {
    const db = await openDatabase({ url: "", dataDir, poolMax: 1 }, logger);
    try {
      const { rows } = await db.query<{ model: string; chunks: number }>(
        "SELECT embedding_model AS model, count(*)::integer AS chunks FROM chunks GROUP BY 1",
      );
      return Object.fromEntries(rows.map((row) => [row.model, row.chunks]));
    } finally {
      await db.close();
    }
  }

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "context-hub-reembed-stop-"));
    embeddings = await startRecordingHttpServer(async (request, index) => {
      if (held !== undefined && index === held.index) {
        held.arrived();
        await held.release;
      }
      return answerEmbeddings(request);
    });
    const hub = await startAllInOne({
      env: {
        ...process.env,
        LOG_LEVEL: "silent",
        DATABASE_URL: "",
        EMBEDDER_PROVIDER: "builtin",
        EMBEDDER_CHUNK_SIZE: "200",
        EMBEDDER_CHUNK_OVERLAP: "20",
      },
      port: 0,
      dataDir,
    });
    try {
      const client = new Client({ name: "reembed-stop-test", version: "0.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(hub.url)));
      for (let note = 0; note < 4; note++) {
        const text = Array.from(
          { length: 6 },
          (_, line) =>
            `Kiln ${note} log ${line}: the glaze crazed after firing at ${1200 + line * 10} degrees with a fast cool-down.`,
        ).join(" ");
        const result = await client.callTool({
          name: "store_context",
          arguments: { thread_id: "kiln", source: "agent", text },
        });
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
      }
      await client.close();
    } finally {
      await hub.close();
    }
  });
  after(async () => {
    await embeddings?.close();
    if (dataDir !== "") rmSync(dataDir, { recursive: true, force: true });
  });

  test("an embedding provider answering with the wrong count or dimension fails the batch naming provider, model and cause", async () => {
    const before = await chunksByModel();
    const db = await openDatabase({ url: "", dataDir, poolMax: 1 }, logger);
    try {
      const cases: [(texts: string[]) => Float32Array[], string][] = [
        [
          (texts) => texts.slice(1).map(() => new Float32Array(target.dimension)),
          "acme embeddings (model fake-embed) failed: 1 vectors for 2 texts",
        ],
        [
          (texts) => texts.map(() => new Float32Array(3)),
          "acme embeddings (model fake-embed) failed: vector 0 of the batch has 3 dimensions, expected 8",
        ],
      ];
      for (const [embed, message] of cases) {
        await assert.rejects(
          reembedChunks(db, { target, provider: "acme", batchSize: 2, embed: async (texts) => embed(texts) }),
          (error: unknown) => {
            assert.ok(isContextHubError(error));
            assert.equal(error.code, "PROVIDER_ERROR");
            assert.equal(error.message, message);
            return true;
          },
        );
      }
    } finally {
      await db.close();
    }
    assert.deepEqual(await chunksByModel(), before, "a failed batch changes nothing");
  });

  test("Ctrl-C stops after the batch in flight commits, exits 130 saying to run again, and the rerun moves the rest", async () => {
    const total = (await chunksByModel())[builtinModel]!;
    assert.ok(total > 6, `${total} chunks: enough for more than three batches of 2`);
    const first = embeddings.requests.length;
    let arrived!: () => void;
    let release!: () => void;
    const secondBatchArrived = new Promise<void>((resolve) => (arrived = resolve));
    held = { index: first + 1, arrived, release: new Promise<void>((resolve) => (release = resolve)) };

    const run = startReembed(reembedEnv(), ["--batch-size", "2"]);
    await secondBatchArrived;
    run.child.kill("SIGINT");
    await run.stderrShows(/Stopping after the current batch…/);
    release();
    const stopped = await run.finished;
    held = undefined;
    assert.equal(stopped.code, 130, stopped.stderr);
    assert.match(
      stopped.stdout,
      /Stopped after re-embedding 4 chunk\(s\); run `context-hub reembed` again to continue\.\n$/,
    );
    assert.equal(embeddings.requests.length - first, 2, "no batch starts after Ctrl-C");
    assert.deepEqual(
      await chunksByModel(),
      { [builtinModel]: total - 4, [target.model]: 4 },
      "the batch in flight was committed whole",
    );

    const rerun = startReembed(reembedEnv(), ["--batch-size", "2"]);
    const done = await rerun.finished;
    assert.equal(done.code, 0, done.stderr);
    assert.match(
      done.stdout,
      new RegExp(`^${total - 4} chunk\\(s\\) to re-embed into fake-embed \\(8 dimensions\\) \\(4 already there\\)`),
    );
    assert.match(
      done.stdout,
      new RegExp(
        `Re-embedded ${total - 4} chunk\\(s\\) into fake-embed \\(8 dimensions\\) in ${Math.ceil((total - 4) / 2)} batch\\(es\\)\\.`,
      ),
    );
    assert.deepEqual(await chunksByModel(), { [target.model]: total });
  });
});
