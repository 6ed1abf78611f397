import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createLogger, startGrpcService } from "@context-hub/common";
import { rerankerV1 } from "@context-hub/proto";
import { startAllInOne, startStoreProcess } from "@context-hub/cli";
import { callOk, connectMcpClient } from "../support/mcp.js";

const quiet = { ...process.env, LOG_LEVEL: "silent", DATABASE_URL: "" };

test("a store process whose TCP port another gRPC server holds fails to start instead of passing for ready", async (t) => {
  // What a port picked free and then taken by another service looks like: something else answers health there.
  const squatter = await startGrpcService({
    name: "squatter",
    host: "127.0.0.1",
    port: 0,
    opsPort: -1,
    logger: createLogger("squatter", "silent"),
    register: (builder) => builder.addService(rerankerV1.RerankerService, { describe: async () => ({ provider: "p", model: "m" }), rerank: async () => ({ results: [] }) }),
  });
  t.after(() => squatter.close());
  await assert.rejects(startStoreProcess({ port: squatter.port }, { ...quiet, STORE_DATA_DIR: "memory://" }, 30_000), /the store exited with 1 before it was ready/);
});

test("context-hub start serves its store on a Unix socket only its user can reach, and removes it on close", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-socket-"));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const hub = await startAllInOne({ env: quiet, port: 0, dataDir, storeProcess: true });
  let closed = false;
  t.after(async () => {
    if (!closed) await hub.close();
  });

  const address = hub.services.store.address;
  assert.match(address, /^unix:\//);
  const socketPath = address.slice("unix:".length);
  assert.equal(statSync(socketPath).isSocket(), true);
  assert.equal(statSync(dirname(socketPath)).mode & 0o777, 0o700, "the socket's directory is private to this user");

  const client = await connectMcpClient(hub.url);
  const ack = await callOk<{ context_id: string }>(client, "store_context", { thread_id: "socket", source: "user", text: "Stored through the store's socket." });
  const fetched = await callOk<{ entries: { text: string }[] }>(client, "get_context_by_ids", { context_ids: [ack.context_id] });
  assert.equal(fetched.entries[0]?.text, "Stored through the store's socket.");
  await client.close();

  await hub.close();
  closed = true;
  assert.equal(existsSync(dirname(socketPath)), false, "the socket's directory is gone once the hub stopped");
});
