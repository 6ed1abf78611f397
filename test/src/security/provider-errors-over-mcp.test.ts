import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { startAllInOne, type AllInOne } from "@context-hub/cli";
import { createLogger } from "@context-hub/common";
import { startRecordingHttpServer, type FakeAnswer, type RecordingHttpServer } from "@context-hub/common/testing";
import { callTool, connectMcpClient, textOf } from "../support/mcp.js";
import { openAiFakeProviders } from "../support/openai-fakes.js";

/**
 * A provider's error body can echo a key, a prompt or an internal host. It
 * reaches the operator's log (bounded, under the request id) and never a
 * caller: the tool result names provider, model, status and a fixed cause.
 */

const leakedKey = "sk-proj-Zx81bQ9vT3kLmN0pRsUw2yA4cE6gI8jK";
const internalHost = "gpu-pool-7.internal.example:8443";
const providerBody = {
  error: {
    message: `Incorrect API key provided: ${leakedKey}. Upstream ${internalHost} refused the request.`,
    type: "invalid_request_error",
    code: "invalid_api_key",
  },
};

const chatAnswer: FakeAnswer = {
  json: {
    id: "x",
    choices: [{ index: 0, message: { role: "assistant", content: "A summary." }, finish_reason: "stop" }],
  },
};

describe("provider error bodies stay in the log, over MCP", () => {
  const lines: string[] = [];
  let embeddings: RecordingHttpServer;
  let chat: RecordingHttpServer;
  let hub: AllInOne;
  let client: Client;

  before(async () => {
    embeddings = await startRecordingHttpServer(() => ({ status: 401, json: providerBody }));
    chat = await startRecordingHttpServer(() => chatAnswer);
    const logger = createLogger("hub", "info", { write: (line) => void lines.push(line) });
    hub = await startAllInOne({
      env: { ...process.env, DATABASE_URL: "", ...openAiFakeProviders(embeddings.url, chat.url, 8) },
      port: 0,
      dataDir: "memory://",
      logger,
    });
    client = await connectMcpClient(hub.url);
  });

  after(async () => {
    await client?.close();
    await hub?.close();
    await embeddings?.close();
    await chat?.close();
  });

  test("the tool result names provider, model, status and a fixed cause; the body with the secret is only in the log, under the call's request id", async () => {
    const result = await callTool(client, "store_context", {
      thread_id: "t",
      source: "user",
      text: "Anything at all, to be embedded.",
    });
    assert.equal(result.isError, true);
    const shown = `${textOf(result)}\n${JSON.stringify(result.structuredContent ?? {})}`;
    assert.match(
      shown,
      /openai embeddings \(model fake-embed\) failed: HTTP 401 \(authentication failed\) after 1 attempt/,
    );
    for (const secret of [leakedKey, "sk-proj", internalHost, "Incorrect API key"])
      assert.ok(!shown.includes(secret), `the caller sees no ${secret}: ${shown}`);

    const requestId = /Request id: (\S+)/.exec(textOf(result))?.[1];
    assert.ok(requestId, textOf(result));
    const logged = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => typeof line.provider_said === "string");
    const mine = logged.filter((line) => line.requestId === requestId);
    assert.equal(
      mine.length,
      1,
      `one log line with the provider's answer under ${requestId}: ${JSON.stringify(logged)}`,
    );
    const [line] = mine;
    assert.equal(line!.service, "embedder");
    assert.equal(line!.status, 401);
    assert.equal(line!.provider, "openai");
    assert.equal(line!.model, "fake-embed");
    assert.equal(line!.provider_said, providerBody.error.message, "what the provider said, for the operator");
  });
});
