// The embedder over gRPC with an HTTP provider pointed at a local OpenAI-compatible server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createGrpcClient, createLogger, isContextHubError, vectorFromBytes } from "@context-hub/common";
import { startRecordingHttpServer, type FakeAnswer, type RecordedRequest } from "@context-hub/common/testing";
import { embedderV1 } from "@context-hub/proto";
import { loadEmbedderConfig } from "./config.js";
import { startEmbedder } from "./index.js";

const logger = createLogger("embedder-test", "silent");

const openAiAnswer = (request: RecordedRequest): FakeAnswer => {
  const input = (request.body as { input: string[] }).input;
  return {
    json: {
      object: "list",
      model: "text-embedding-3-small",
      data: input.map((text, index) => ({ object: "embedding", index, embedding: [text.length, 1, 0] })),
    },
  };
};

async function startForTest(
  t: { after(fn: () => Promise<void> | void): void },
  handler: (request: RecordedRequest, index: number) => FakeAnswer,
  env: NodeJS.ProcessEnv = {},
) {
  const server = await startRecordingHttpServer(handler);
  t.after(() => server.close());
  const config = loadEmbedderConfig({
    EMBEDDER_PORT: "0",
    EMBEDDER_OPS_PORT: "0",
    EMBEDDER_PROVIDER: "openai",
    EMBEDDER_BASE_URL: `${server.url}/v1`,
    EMBEDDER_API_KEY: "sk-e2e-secret",
    EMBEDDER_MODEL: "text-embedding-3-small",
    EMBEDDER_DIMENSION: "3",
    EMBEDDER_CHUNK_SIZE: "100",
    EMBEDDER_CHUNK_OVERLAP: "10",
    EMBEDDER_MAX_RETRIES: "1",
    EMBEDDER_TIMEOUT_MS: "2000",
    ...env,
  });
  const service = await startEmbedder(config, logger);
  t.after(() => service.close());
  // No gRPC-level retries, so the fake server sees exactly the provider's own attempts.
  const client = createGrpcClient(embedderV1.EmbedderService, {
    address: `127.0.0.1:${service.port}`,
    peer: "embedder",
    deadlineMs: 10_000,
    retries: 0,
  });
  t.after(() => client.close());
  const readyz = async () => (await fetch(`http://127.0.0.1:${service.opsPort}/readyz`)).status;
  return { server, client, readyz };
}

test("EmbedDocuments and EmbedQueries go to the OpenAI-compatible server and come back with its model and dimension", async (t) => {
  const { server, client, readyz } = await startForTest(t, openAiAnswer);
  assert.equal(await readyz(), 200, "a configured dimension makes the provider ready at start");
  const described = await client.describe({});
  assert.deepEqual(
    { provider: described.provider, model: described.model, dimension: described.dimension },
    { provider: "openai", model: "text-embedding-3-small", dimension: 3 },
  );

  const long = "The first paragraph is about chunking. ".repeat(5);
  const reply = await client.embedDocuments({ texts: ["short text", long] });
  assert.equal(reply.model, "text-embedding-3-small");
  assert.equal(reply.dimension, 3);
  assert.equal(reply.documents[0]!.chunks.length, 1);
  assert.ok(reply.documents[1]!.chunks.length >= 2);
  const [chunk] = reply.documents[0]!.chunks;
  const expected = [10, 1, 0].map((value) => value / Math.hypot(10, 1, 0));
  vectorFromBytes(chunk!.vector!.float32Le, "vector").forEach((value, index) =>
    assert.ok(Math.abs(value - expected[index]!) < 1e-6),
  );

  assert.equal(server.requests.length, 1, "all chunks of all texts in one request (batch size 128)");
  const [request] = server.requests;
  assert.equal(request!.path, "/v1/embeddings", "a base URL ending in /v1 is not doubled");
  assert.equal(request!.headers.authorization, "Bearer sk-e2e-secret");
  assert.deepEqual((request!.body as { input: string[] }).input[0], "short text");

  const queries = await client.embedQueries({ texts: ["find me"] });
  assert.equal(queries.vectors.length, 1);
  assert.equal(queries.dimension, 3);
});

test("a failing provider surfaces over gRPC as PROVIDER_ERROR naming provider, model and cause", async (t) => {
  const { server, client } = await startForTest(t, () => ({
    status: 500,
    json: { error: { message: "The server had an error while processing your request." } },
  }));
  await assert.rejects(client.embedDocuments({ texts: ["hello"] }), (error: unknown) => {
    assert.ok(isContextHubError(error));
    assert.equal(error.code, "PROVIDER_ERROR");
    assert.equal(
      error.message,
      "openai embeddings (model text-embedding-3-small) failed: HTTP 500 (provider error) after 2 attempts",
    );
    assert.equal(error.details.status, 500);
    assert.doesNotMatch(error.message, /sk-e2e-secret/);
    return true;
  });
  assert.equal(server.requests.length, 2);
});

test("a provider that never answers surfaces over gRPC as DEADLINE_EXCEEDED", async (t) => {
  const { client } = await startForTest(t, () => "hang", { EMBEDDER_TIMEOUT_MS: "200" });
  await assert.rejects(
    client.embedQueries({ texts: ["hello"] }),
    (error: unknown) =>
      isContextHubError(error) &&
      error.code === "DEADLINE_EXCEEDED" &&
      /openai embeddings \(model text-embedding-3-small\) failed: no answer within 200 ms/.test(error.message),
  );
});

test("a provider that is down at start does not crash the service: not ready, and calls fail with the cause", async (t) => {
  const { client, readyz } = await startForTest(t, () => ({ status: 503, body: "" }), {
    EMBEDDER_DIMENSION: "",
    EMBEDDER_MAX_RETRIES: "0",
  });
  assert.equal(await readyz(), 503, "the dimension is unknown until a probe succeeds");
  assert.equal((await client.describe({})).dimension, 0);
  await assert.rejects(
    client.embedQueries({ texts: ["hello"] }),
    (error: unknown) =>
      isContextHubError(error) &&
      error.code === "PROVIDER_ERROR" &&
      /HTTP 503 \(provider unavailable\) after 1 attempt$/.test(error.message),
  );
});
