import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  startRecordingHttpServer,
  type FakeAnswer,
  type RecordedRequest,
  type RecordingHttpServer,
} from "@context-hub/common/testing";
import { startAllInOne } from "@context-hub/cli";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { startTestPostgres } from "../support/postgres.js";

/**
 * Upgrading from the first built-in model: chunks stored as
 * `builtin-glove-100d-v1` (here written by a stand-in HTTP embedder that
 * names itself so, since v1's code is gone) are another space for the
 * current built-in embedder. The gateway refuses to start and names both,
 * `context-hub reembed` with the built-in provider moves every chunk, and
 * semantic search then finds the old entries by meaning.
 */

const bin = fileURLToPath(new URL("../../../bin/context-hub.js", import.meta.url));
const previousModel = "builtin-glove-100d-v1";
const currentModel = "builtin-glove-256d-v3";

/** 100 numbers per text that carry no meaning: only the label of the space matters before the upgrade. */
function standInVector(text: string): number[] {
  let hash = 11;
  for (let index = 0; index < text.length; index++) hash = (hash * 31 + text.charCodeAt(index)) % 1_000_003;
  return Array.from({ length: 100 }, (_, i) => Math.sin(hash + i * 0.37));
}

const answer = (request: RecordedRequest): FakeAnswer => ({
  json: {
    data: (request.body as { input: string[] }).input.map((text, index) => ({ index, embedding: standInVector(text) })),
    model: previousModel,
  },
});

const notes = [
  "The boundary-layer separated ahead of the flap when the angle of attack passed twelve degrees.",
  "Our sourdough starter needs flour and water every morning, or the bread comes out flat.",
  "The quarterly budget review moved the hiring freeze to the second half of the year.",
];

function runReembed(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "reembed"], {
      env: { ...process.env, LOG_LEVEL: "silent", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const backends: {
  name: string;
  start(): Promise<{ env: Record<string, string>; dataDir?: string; close(): Promise<void> }>;
}[] = [
  {
    name: "PGlite on disk",
    async start() {
      const dataDir = mkdtempSync(join(tmpdir(), "context-hub-upgrade-"));
      return {
        env: { DATABASE_URL: "", STORE_DATA_DIR: dataDir },
        dataDir,
        close: async () => rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "PostgreSQL server",
    async start() {
      const postgres = await startTestPostgres();
      return { env: { DATABASE_URL: postgres.url }, close: postgres.close };
    },
  },
];

for (const backendKind of backends) {
  describe(`upgrading the built-in embeddings on ${backendKind.name}`, () => {
    let backend: Awaited<ReturnType<(typeof backends)[number]["start"]>>;
    let standIn: RecordingHttpServer;
    const ids: string[] = [];
    const hubEnv = (embedder: Record<string, string>) => ({
      ...process.env,
      LOG_LEVEL: "silent",
      ...backend.env,
      ...embedder,
    });
    const start = (embedder: Record<string, string>) =>
      startAllInOne({
        env: hubEnv(embedder),
        port: 0,
        ...(backend.dataDir === undefined ? {} : { dataDir: backend.dataDir }),
      });

    before(async () => {
      backend = await backendKind.start();
      standIn = await startRecordingHttpServer(answer);
    });
    after(async () => {
      await standIn?.close();
      await backend?.close();
    });

    test("entries stored in the v1 space make the current built-in embedder's gateway refuse to start", async () => {
      const hub = await start({
        EMBEDDER_PROVIDER: "openai",
        EMBEDDER_BASE_URL: standIn.url,
        EMBEDDER_MODEL: previousModel,
        EMBEDDER_DIMENSION: "100",
        EMBEDDER_MAX_RETRIES: "0",
      });
      try {
        const client = await connectMcpClient(hub.url);
        for (const text of notes)
          ids.push(
            (
              await callOk<{ context_id: string }>(client, "store_context", {
                thread_id: "upgrade",
                source: "agent",
                text,
              })
            ).context_id,
          );
        await client.close();
      } finally {
        await hub.close();
      }
      await assert.rejects(start({ EMBEDDER_PROVIDER: "builtin" }), (error: Error) => {
        assert.match(
          error.message,
          /holds 3 chunks embedded with "builtin-glove-100d-v1" \(100 dimensions\), but the embedder is configured for "builtin-glove-256d-v3" \(256 dimensions\)/,
        );
        assert.match(error.message, /run `context-hub reembed`/);
        return true;
      });
    });

    test("reembed with the built-in provider moves every chunk, and search then finds them by meaning", async () => {
      const run = await runReembed({ ...backend.env, EMBEDDER_PROVIDER: "builtin" });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /Re-embedded 3 chunk\(s\) into builtin-glove-256d-v3 \(256 dimensions\)/);
      const hub = await start({ EMBEDDER_PROVIDER: "builtin" });
      try {
        const client = await connectMcpClient(hub.url);
        const fetched = await callOk<{ entries: { id: string; embedding_model: string }[] }>(
          client,
          "get_context_by_ids",
          { context_ids: ids },
        );
        assert.deepEqual(
          fetched.entries.map((entry) => entry.embedding_model),
          ids.map(() => currentModel),
        );
        const queries = [
          "flow separation over a wing flap at high incidence",
          "baking bread with a starter",
          "hiring freeze in the budget",
        ];
        for (const [index, query] of queries.entries()) {
          const found = await callOk<{ results: { id: string }[] }>(client, "semantic_search_context", {
            query,
            limit: 3,
          });
          assert.equal(found.results[0]?.id, ids[index], query);
        }
        await client.close();
      } finally {
        await hub.close();
      }
    });
  });
}
