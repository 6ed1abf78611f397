// The reranker over gRPC with an HTTP provider pointed at a local TEI server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createGrpcClient, createLogger, isContextHubError } from "@context-hub/common";
import { startRecordingHttpServer, type FakeAnswer, type RecordedRequest } from "@context-hub/common/testing";
import { rerankerV1 } from "@context-hub/proto";
import { loadRerankerConfig } from "./config.js";
import { startReranker } from "./index.js";

const logger = createLogger("reranker-test", "silent");

async function startForTest(
  t: { after(fn: () => Promise<void> | void): void },
  handler: (request: RecordedRequest, index: number) => FakeAnswer,
  env: NodeJS.ProcessEnv = {},
) {
  const server = await startRecordingHttpServer(handler);
  t.after(() => server.close());
  const config = loadRerankerConfig({
    RERANKER_PORT: "0",
    RERANKER_OPS_PORT: "0",
    RERANKER_PROVIDER: "tei",
    RERANKER_BASE_URL: server.url,
    RERANKER_MODEL: "BAAI/bge-reranker-base",
    RERANKER_MAX_RETRIES: "1",
    RERANKER_TIMEOUT_MS: "2000",
    ...env,
  });
  const service = await startReranker(config, logger);
  t.after(() => service.close());
  const client = createGrpcClient(rerankerV1.RerankerService, {
    address: `127.0.0.1:${service.port}`,
    peer: "reranker",
    deadlineMs: 10_000,
    retries: 0,
  });
  t.after(() => client.close());
  return { server, service, client };
}

const passages = [
  { id: "bread", text: "Bake the bread at 220 degrees until the crust is golden." },
  { id: "postgres", text: "To speed up slow Postgres queries, add an index on the filtered column." },
  { id: "football", text: "The football team won the championship after a late goal." },
];

test("Rerank sends every passage to TEI and orders the passages by its scores", async (t) => {
  const { server, service, client } = await startForTest(t, (request) => {
    const texts = (request.body as { texts: string[] }).texts;
    return {
      json: texts
        .map((text, index) => ({
          index,
          score: text.includes("Postgres") ? 0.97 : text.includes("bread") ? 0.2 : 0.01,
        }))
        .sort((a, b) => b.score - a.score),
    };
  });
  assert.equal(
    (await fetch(`http://127.0.0.1:${service.opsPort}/readyz`)).status,
    200,
    "an HTTP provider is ready at start",
  );
  const described = await client.describe({});
  assert.deepEqual(
    { provider: described.provider, model: described.model },
    { provider: "tei", model: "BAAI/bge-reranker-base" },
  );
  const reply = await client.rerank({ query: "why are my postgres queries slow", passages, topN: 2 });
  assert.deepEqual(
    reply.results.map((result) => [result.id, result.index]),
    [
      ["postgres", 1],
      ["bread", 0],
    ],
  );
  assert.ok(Math.abs(reply.results[0]!.score - 0.97) < 1e-6);
  assert.equal(server.requests.length, 1);
  assert.deepEqual(
    (server.requests[0]!.body as { texts: string[] }).texts,
    passages.map((passage) => passage.text),
    "all passages are scored even with top_n 2",
  );
});

test("a failing provider surfaces over gRPC as PROVIDER_ERROR naming provider, model and cause", async (t) => {
  const { server, client } = await startForTest(t, () => ({
    status: 503,
    json: { error: "Model is overloaded", error_type: "overloaded" },
  }));
  await assert.rejects(client.rerank({ query: "postgres", passages }), (error: unknown) => {
    assert.ok(isContextHubError(error));
    assert.equal(error.code, "PROVIDER_ERROR");
    assert.equal(
      error.message,
      "tei rerank (model BAAI/bge-reranker-base) failed: HTTP 503 (provider unavailable) after 2 attempts",
    );
    return true;
  });
  assert.equal(server.requests.length, 2);
});

test("a provider that never answers surfaces over gRPC as DEADLINE_EXCEEDED", async (t) => {
  const { client } = await startForTest(t, () => "hang", { RERANKER_TIMEOUT_MS: "200" });
  await assert.rejects(
    client.rerank({ query: "postgres", passages }),
    (error: unknown) =>
      isContextHubError(error) &&
      error.code === "DEADLINE_EXCEEDED" &&
      /^tei rerank \(model BAAI\/bge-reranker-base\) failed: no answer within 200 ms/.test(error.message),
  );
});
