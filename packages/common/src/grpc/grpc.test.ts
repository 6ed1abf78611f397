import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { rerankerV1 } from "@context-hub/proto";
import { ContextHubError, isContextHubError } from "../errors.js";
import { createLogger } from "../logger.js";
import { currentRequestContext, runWithRequestContext } from "../request-context.js";
import { startGrpcService } from "../service-runtime.js";
import { createGrpcClient } from "./client.js";
import { unaryCallsInProgress } from "./server.js";
import { encodeMessage } from "./service-definition.js";
import { waitFor } from "../testing/wait-for.js";

const logger = createLogger("test", "silent");

async function startReranker(implementation: Parameters<typeof rerankerFor>[0], port = 0) {
  return startGrpcService({
    name: "test",
    host: "127.0.0.1",
    port,
    opsPort: -1,
    logger,
    register: (builder) => builder.addService(rerankerV1.RerankerService, rerankerFor(implementation)),
  });
}

/** A client of the test reranker on `port` (2 s deadline), closed after the test. */
function rerankerClient(t: TestContext, port: number) {
  const client = createGrpcClient(rerankerV1.RerankerService, {
    address: `127.0.0.1:${port}`,
    peer: "reranker",
    deadlineMs: 2000,
  });
  t.after(() => client.close());
  return client;
}

function rerankerFor(
  rerank: (request: rerankerV1.RerankRequest) => Promise<{ results: { id: string; index: number; score: number }[] }>,
) {
  return { describe: async () => ({ provider: "test", model: "m" }), rerank };
}

test("a unary call round-trips protobuf messages and the request id", async (t) => {
  let seenRequestId: string | undefined;
  const service = await startReranker(async (request) => {
    seenRequestId = currentRequestContext()?.requestId;
    return {
      results: request.passages.map((passage, index) => ({ id: passage.id, index, score: passage.text.length })),
    };
  });
  t.after(() => service.close());
  const client = rerankerClient(t, service.port);

  const reply = await runWithRequestContext({ requestId: "req-123" }, () =>
    client.rerank({ query: "q", passages: [{ id: "a", text: "four" }] }),
  );
  assert.deepEqual(
    reply.results.map((r) => [r.id, r.score]),
    [["a", 4]],
  );
  assert.equal(seenRequestId, "req-123");
  assert.equal(await client.isServing(), true);
});

test("a domain error crosses the wire with its code, remedy and details", async (t) => {
  const service = await startReranker(async () => {
    throw new ContextHubError("VERSION_CONFLICT", "entry changed", {
      remedy: "retry with expected_version 4",
      details: { current_version: 4 },
    });
  });
  t.after(() => service.close());
  const client = rerankerClient(t, service.port);

  await assert.rejects(client.rerank({ query: "q" }), (error: unknown) => {
    assert.ok(isContextHubError(error));
    assert.equal(error.code, "VERSION_CONFLICT");
    assert.equal(error.remedy, "retry with expected_version 4");
    assert.deepEqual(error.details, { current_version: 4 });
    return true;
  });
});

test("an unexpected error shows only a request id, never its message", async (t) => {
  const service = await startReranker(async () => {
    throw new Error("SELECT secret FROM somewhere");
  });
  t.after(() => service.close());
  const client = rerankerClient(t, service.port);

  await assert.rejects(client.rerank({ query: "q" }), (error: unknown) => {
    assert.ok(isContextHubError(error));
    assert.equal(error.code, "INTERNAL");
    assert.doesNotMatch(error.message, /SELECT/);
    assert.match(error.message, /request id/);
    return true;
  });
});

test("a call past its deadline fails with DEADLINE_EXCEEDED naming the peer", async (t) => {
  // A real gRPC deadline against a real server: the answer has to come later than the 50 ms the client allows.
  const service = await startReranker(() => new Promise((resolve) => setTimeout(() => resolve({ results: [] }), 500)));
  t.after(() => service.close());
  const client = createGrpcClient(rerankerV1.RerankerService, {
    address: `127.0.0.1:${service.port}`,
    peer: "reranker",
    deadlineMs: 50,
  });
  t.after(() => client.close());
  await assert.rejects(
    client.rerank({ query: "q" }),
    (error: unknown) =>
      isContextHubError(error) && error.code === "DEADLINE_EXCEEDED" && /reranker/.test(error.message),
  );
});

test("an unreachable peer is reported as unavailable after bounded retries", async (t) => {
  const client = createGrpcClient(rerankerV1.RerankerService, {
    address: "127.0.0.1:1",
    peer: "reranker",
    deadlineMs: 1500,
    retries: 2,
  });
  t.after(() => client.close());
  await assert.rejects(client.describe({}), (error: unknown) => {
    assert.ok(isContextHubError(error) && error.code === "RERANKER_UNAVAILABLE");
    // The caller is told plainly which service; gRPC's own wording stays in the cause, for the logs.
    assert.equal(
      error.message,
      "the reranker service is unavailable, so the call could not be completed; retry shortly",
    );
    assert.match(String((error.cause as { details?: string } | undefined)?.details), /\S/);
    return true;
  });
  assert.equal(await client.isServing(300), false);
});

test("health checks follow the service's readiness", async (t) => {
  let ready = false;
  const service = await startGrpcService({
    name: "test",
    host: "127.0.0.1",
    port: 0,
    opsPort: -1,
    logger,
    isReady: () => ready,
    register: (builder) =>
      builder.addService(
        rerankerV1.RerankerService,
        rerankerFor(async () => ({ results: [] })),
      ),
  });
  t.after(() => service.close());
  const client = rerankerClient(t, service.port);
  assert.equal(await client.isServing(), false);
  ready = true;
  assert.equal(await client.isServing(), true);
});

test("a domain error from the peer is not retried, even when it maps to UNAVAILABLE", async (t) => {
  let calls = 0;
  const service = await startReranker(async () => {
    calls++;
    throw new ContextHubError("PROVIDER_ERROR", "cohere rerank (model m) failed: HTTP 503 after 3 attempts");
  });
  t.after(() => service.close());
  const client = createGrpcClient(rerankerV1.RerankerService, {
    address: `127.0.0.1:${service.port}`,
    peer: "reranker",
    deadlineMs: 2000,
    retries: 2,
  });
  t.after(() => client.close());
  await assert.rejects(
    client.rerank({ query: "q" }),
    (error: unknown) => isContextHubError(error) && error.code === "PROVIDER_ERROR" && /HTTP 503/.test(error.message),
  );
  assert.equal(calls, 1);
});

test("a peer that went away is reached again soon after it comes back, however long it was gone", async (t) => {
  const serve = (port?: number) => startReranker(async () => ({ results: [] }), port);
  let service = await serve();
  const port = service.port;
  t.after(() => service.close());
  // A short cap keeps the test quick; without it gRPC's backoff would have grown to 2.6 s and then 4.1 s by now.
  const client = createGrpcClient(rerankerV1.RerankerService, {
    address: `127.0.0.1:${port}`,
    peer: "reranker",
    deadlineMs: 500,
    reconnectBackoffMaxMs: 250,
  });
  t.after(() => client.close());
  assert.ok((await client.rerank({ query: "q" })).results);

  await service.close();
  // Real time is what is tested: gRPC's reconnect backoff grows while the peer stays away, on real sockets.
  const outageEnds = Date.now() + 3_000;
  while (Date.now() < outageEnds) {
    await assert.rejects(
      client.rerank({ query: "q" }),
      (error: unknown) => isContextHubError(error) && error.code === "RERANKER_UNAVAILABLE",
    );
    await new Promise((wait) => setTimeout(wait, 100));
  }
  service = await serve(port);
  // The capped backoff retries within 250 ms; an uncapped one would wait 2.6 s or more, past this bound.
  await waitFor(() => client.isServing(200), { what: "the client to reach the peer again", timeoutMs: 1_000 });
  assert.ok((await client.rerank({ query: "q" })).results);
});

test("a service on a Unix socket answers at its unix: address, and health names the services it serves", async (t) => {
  const directory = mkdtempSync(join(tmpdir(), "grpc-socket-"));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const socketPath = join(directory, "reranker.sock");
  const service = await startGrpcService({
    name: "test",
    host: "127.0.0.1",
    port: 0,
    socketPath,
    opsPort: -1,
    logger,
    register: (builder) =>
      builder.addService(
        rerankerV1.RerankerService,
        rerankerFor(async () => ({ results: [{ id: "a", index: 0, score: 1 }] })),
      ),
  });
  t.after(() => service.close());
  assert.equal(service.address, `unix:${socketPath}`);
  assert.equal(service.port, 0);
  const client = createGrpcClient(rerankerV1.RerankerService, {
    address: service.address,
    peer: "reranker",
    deadlineMs: 2000,
  });
  t.after(() => client.close());
  assert.deepEqual(
    (await client.rerank({ query: "q", passages: [{ id: "a", text: "x" }] })).results.map((result) => result.id),
    ["a"],
  );
  assert.equal(await client.isServing(2000, rerankerV1.RerankerService.typeName), true);
  // A server found at an address is not taken for one whose service it lacks.
  assert.equal(await client.isServing(2000, "contexthub.store.v1.StoreService"), false);
});

test("a message is encoded once: its Buffer is a view of the encoder's bytes and decodes to it, a megabyte field included", () => {
  const schema = rerankerV1.RerankRequestSchema;
  // A small message: Buffer.from(bytes) would copy it into Node's shared 8 KiB pool, whose buffer is larger.
  const small = encodeMessage(schema, create(schema, { query: "q", passages: [{ id: "a", text: "gauge" }] }));
  assert.ok(Buffer.isBuffer(small));
  assert.equal(small.buffer.byteLength, small.byteLength, "a view of the encoder's own array, not a pooled copy");
  const text = `${"gauge ".repeat(200_000)}é`;
  const message = create(schema, { query: "q", passages: [{ id: "a", text }] });
  const encoded = encodeMessage(schema, message);
  assert.deepEqual(new Uint8Array(encoded), toBinary(schema, message));
  assert.equal(fromBinary(schema, encoded).passages[0]?.text, text);
});

test("the server counts the unary calls it is serving, answered or failed", async (t) => {
  const seen: number[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const service = await startReranker(async (request) => {
    seen.push(unaryCallsInProgress());
    if (request.query === "hold") await held;
    if (request.query === "fail") throw new ContextHubError("INVALID_ARGUMENT", "no");
    return { results: [] };
  });
  t.after(() => service.close());
  const client = rerankerClient(t, service.port);

  assert.equal(unaryCallsInProgress(), 0);
  const holding = client.rerank({ query: "hold", passages: [] });
  await waitFor(() => seen.length === 1, { what: "the held call to reach its handler" });
  await client.rerank({ query: "beside", passages: [] });
  assert.deepEqual(seen, [1, 2], "a call sees itself and the one held beside it");
  assert.equal(unaryCallsInProgress(), 1, "the held call is still being served");
  release();
  await holding;
  await assert.rejects(client.rerank({ query: "fail", passages: [] }));
  assert.equal(unaryCallsInProgress(), 0, "answered and failed calls are no longer counted");
});
