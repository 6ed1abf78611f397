import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { rerankerV1 } from "@context-hub/proto";
import { SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { createGrpcClient } from "./grpc/client.js";
import { createLogger } from "./logger.js";
import { observeProviderRequest } from "./metrics.js";
import { startGrpcService } from "./service-runtime.js";
import { startTracing, withSpan } from "./tracing.js";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
}

test("one trace spans the caller, the gRPC client and server, and a provider call, exported over OTLP/HTTP", async (t) => {
  // A local OTLP/HTTP collector: the exporter posts JSON to /v1/traces.
  const received: OtlpSpan[] = [];
  const collector = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      assert.equal(request.url, "/v1/traces");
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans);
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => collector.close(() => resolve())));
  const url = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;

  const tracing = startTracing("tracing-test", {}, [new SimpleSpanProcessor(new OTLPTraceExporter({ url }))]);
  assert.ok(tracing);
  const logger = createLogger("tracing-test", "silent");
  const service = await startGrpcService({
    name: "test",
    host: "127.0.0.1",
    port: 0,
    opsPort: -1,
    logger,
    register: (builder) =>
      builder.addService(rerankerV1.RerankerService, {
        describe: async () => ({ provider: "test", model: "m" }),
        rerank: async (request) =>
          observeProviderRequest("test", "rerank", async () => ({
            results: request.passages.map((passage, index) => ({ id: passage.id, index, score: 1 })),
          })),
      }),
  });
  const client = createGrpcClient(rerankerV1.RerankerService, {
    address: `127.0.0.1:${service.port}`,
    peer: "reranker",
    deadlineMs: 2000,
  });
  try {
    await withSpan("tool search", {}, () => client.rerank({ query: "q", passages: [{ id: "a", text: "x" }] }));
  } finally {
    client.close();
    await service.close();
    await tracing.shutdown();
  }

  const byName = (name: string) => received.find((span) => span.name === name);
  const root = byName("tool search");
  // OTLP numbers span kinds SERVER = 2 and CLIENT = 3.
  const rpc = (kind: number) =>
    received.find((span) => span.name === "contexthub.reranker.v1.RerankerService/Rerank" && span.kind === kind);
  const clientSpan = rpc(3);
  const serverSpan = rpc(2);
  const provider = byName("provider rerank");
  assert.ok(
    root && clientSpan && serverSpan && provider,
    `spans received: ${received.map((span) => span.name).join(", ")}`,
  );
  for (const span of [clientSpan, serverSpan, provider])
    assert.equal(span.traceId, root.traceId, `${span.name} is in the same trace`);
  assert.equal(clientSpan.parentSpanId, root.spanId, "the client span is the tool span's child");
  assert.equal(
    serverSpan.parentSpanId,
    clientSpan.spanId,
    "the server span continues the trace carried in gRPC metadata",
  );
  assert.equal(provider.parentSpanId, serverSpan.spanId, "the provider call is the server span's child");
});
