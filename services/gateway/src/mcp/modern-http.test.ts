import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { AddressInfo } from "node:net";
import express from "express";
import { sendWebResponse } from "./modern-http.js";

/** Serves one web Response through sendWebResponse on a real express app and fetches it. */
async function relay(make: () => Response): Promise<globalThis.Response> {
  const app = express();
  app.post("/mcp", (_request, response) => void sendWebResponse(make(), response));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, { method: "POST" });
    await answer.clone().arrayBuffer();
    return answer;
  } finally {
    server.close();
  }
}

test("a JSON answer keeps its status and headers and gets its length", async () => {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32020, message: "Header mismatch" } });
  const answer = await relay(
    () => new Response(body, { status: 400, headers: { "content-type": "application/json", "x-extra": "kept" } }),
  );
  assert.equal(answer.status, 400);
  assert.equal(answer.headers.get("x-extra"), "kept");
  assert.equal(answer.headers.get("content-length"), String(Buffer.byteLength(body)));
  assert.equal(await answer.text(), body);
});

test("an event stream is relayed event by event, unbuffered by proxies", async () => {
  const events = [
    'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n',
    'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n',
  ];
  const answer = await relay(() => {
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (const event of events) {
          controller.enqueue(new TextEncoder().encode(event));
          await nextTurn();
        }
        controller.close();
      },
    });
    return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
  });
  assert.equal(answer.headers.get("content-type"), "text/event-stream");
  assert.equal(answer.headers.get("x-accel-buffering"), "no");
  assert.equal(await answer.text(), events.join(""));
});

test("an answer without a body ends the response", async () => {
  const answer = await relay(() => new Response(null, { status: 202 }));
  assert.equal(answer.status, 202);
  assert.equal(await answer.text(), "");
});
