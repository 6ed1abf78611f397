import { test } from "node:test";
import assert from "node:assert/strict";
import { storeV1 } from "@context-hub/proto";
import { ContextHubError, isContextHubError } from "../errors.js";
import { createLogger } from "../logger.js";
import { currentRequestContext, runWithRequestContext } from "../request-context.js";
import { startGrpcService } from "../service-runtime.js";
import { createGrpcClient } from "./client.js";
import type { ServiceImplementation } from "./types.js";

/**
 * Streaming calls through the shared helpers, on TransferService's shapes
 * (a server stream and a stream both ways) with handlers of the test's own.
 */

const logger = createLogger("test", "silent");
type Handlers = ServiceImplementation<typeof storeV1.TransferService>;

async function serve(t: { after(fn: () => unknown): void }, handlers: Handlers) {
  const service = await startGrpcService({
    name: "test",
    host: "127.0.0.1",
    port: 0,
    opsPort: -1,
    logger,
    register: (builder) => builder.addService(storeV1.TransferService, handlers),
  });
  t.after(() => service.close());
  // A deadline far shorter than the streams take: streaming calls must not inherit it.
  const client = createGrpcClient(storeV1.TransferService, {
    address: `127.0.0.1:${service.port}`,
    peer: "store",
    deadlineMs: 50,
  });
  t.after(() => client.close());
  return client;
}

const part = (index: number, size: number) => new Uint8Array(size).fill(index % 251);

test("a server stream delivers every part in order, past the client's unary deadline, then a domain error with its code", async (t) => {
  let requestId: string | undefined;
  const client = await serve(t, {
    async *export(request) {
      requestId = currentRequestContext()?.requestId;
      for (let index = 0; index < 200; index += 1) {
        if (index % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 40));
        yield { data: part(index, 64 * 1024), rowsWritten: BigInt(index) };
      }
      throw new ContextHubError("INVALID_ARGUMENT", `no tenant ${request.tenant}`);
    },
    async *import() {
      throw new Error("not called");
    },
  });
  const seen: number[] = [];
  await assert.rejects(
    runWithRequestContext({ requestId: "req-stream" }, async () => {
      for await (const reply of client.export({ tenant: "acme" })) {
        assert.equal(reply.data.length, 64 * 1024);
        assert.equal(reply.data[0], Number(reply.rowsWritten) % 251);
        seen.push(Number(reply.rowsWritten));
      }
    }),
    (error: unknown) =>
      isContextHubError(error) && error.code === "INVALID_ARGUMENT" && /no tenant acme/.test(error.message),
  );
  assert.deepEqual(
    seen,
    Array.from({ length: 200 }, (_, index) => index),
  );
  assert.equal(requestId, "req-stream");
});

test("a stream both ways: the server reads all the caller sent, then answers; the caller's own failure cancels the call", async (t) => {
  const cancelled: boolean[] = [];
  const client = await serve(t, {
    async *export() {
      throw new Error("not called");
    },
    async *import(requests, context) {
      let bytes = 0;
      try {
        for await (const request of requests) bytes += request.data.length;
      } catch (error) {
        cancelled.push(context.signal.aborted);
        throw error;
      }
      yield { event: { case: "progress", value: { done: BigInt(bytes) } } };
      yield { event: { case: "result", value: { inserted: { entry: BigInt(bytes) } } } };
    },
  });
  async function* sent(parts: number, failAt = -1) {
    for (let index = 0; index < parts; index += 1) {
      if (index === failAt) throw new Error("the file could not be read");
      yield { data: part(index, 256 * 1024) };
    }
  }
  const replies = [];
  for await (const reply of client.import(sent(40))) replies.push(reply.event);
  assert.deepEqual(
    replies.map((event) => event.case),
    ["progress", "result"],
  );
  assert.equal(replies[1]?.case === "result" && replies[1].value.inserted.entry, BigInt(40 * 256 * 1024));

  await assert.rejects(async () => {
    for await (const reply of client.import(sent(40, 20))) void reply;
  }, /the file could not be read/);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(cancelled, [true]);
});

test("a reader that stops early cancels the server's stream, which stops producing", async (t) => {
  let produced = 0;
  let stopped: () => void;
  const ended = new Promise<void>((resolve) => (stopped = resolve));
  const client = await serve(t, {
    async *export(_request, context) {
      try {
        for (;;) {
          context.signal.throwIfAborted();
          produced += 1;
          yield { data: part(produced, 512 * 1024) };
        }
      } finally {
        stopped();
      }
    },
    async *import() {
      throw new Error("not called");
    },
  });
  let read = 0;
  for await (const reply of client.export({})) {
    read += reply.data.length > 0 ? 1 : 0;
    if (read === 3) break;
  }
  await ended;
  // Back-pressure holds the server to what the transport buffers, not an endless stream.
  assert.ok(produced < 200, `the server produced ${produced} parts for a reader that took 3`);
});
