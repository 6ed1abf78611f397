import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createLogger, startGrpcService } from "@context-hub/common";
import { rerankerV1 } from "@context-hub/proto";
import { removeStaleStoreSocket, startAllInOne, startStoreProcess, writeRuntimeFile } from "@context-hub/cli";
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
    register: (builder) =>
      builder.addService(rerankerV1.RerankerService, {
        describe: async () => ({ provider: "p", model: "m" }),
        rerank: async () => ({ results: [] }),
      }),
  });
  t.after(() => squatter.close());
  await assert.rejects(
    startStoreProcess({ port: squatter.port }, { ...quiet, STORE_DATA_DIR: "memory://" }, 30_000),
    /the store exited with 1 before it was ready/,
  );
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
  const ack = await callOk<{ context_id: string }>(client, "store_context", {
    thread_id: "socket",
    source: "user",
    text: "Stored through the store's socket.",
  });
  const fetched = await callOk<{ entries: { text: string }[] }>(client, "get_context_by_ids", {
    context_ids: [ack.context_id],
  });
  assert.equal(fetched.entries[0]?.text, "Stored through the store's socket.");
  await client.close();

  await hub.close();
  closed = true;
  assert.equal(existsSync(dirname(socketPath)), false, "the socket's directory is gone once the hub stopped");
});

/** The pid of a process that has exited: what the runtime file of a killed hub names. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}

/** A socket directory as a hub killed with SIGKILL leaves it: private, in the temporary directory, holding the socket file. */
function leftSocketDir(): string {
  const directory = mkdtempSync(join(tmpdir(), "context-hub-"));
  writeFileSync(join(directory, "store.sock"), "");
  return directory;
}

test("context-hub start removes the socket directory a killed hub on its data directory left behind", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-stale-"));
  const stale = leftSocketDir();
  t.after(() => rmSync(stale, { recursive: true, force: true }));
  writeRuntimeFile(dataDir, {
    pid: await deadPid(),
    storeAddress: `unix:${join(stale, "store.sock")}`,
    url: "http://127.0.0.1:1/mcp",
  });

  const hub = await startAllInOne({ env: quiet, port: 0, dataDir, storeProcess: true });
  // Hooks run in the order they were added: the hub closes (saving its vector graph) before its directory is removed.
  t.after(() => hub.close());
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  assert.equal(existsSync(stale), false, "the dead hub's socket directory is gone");
  assert.notEqual(hub.services.store.address, `unix:${join(stale, "store.sock")}`);
  const client = await connectMcpClient(hub.url);
  await callOk(client, "store_context", {
    thread_id: "stale",
    source: "user",
    text: "Stored after the stale socket was cleared.",
  });
  await client.close();
});

test("a runtime file cannot make the hub remove anything but a dead hub's own socket directory", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-stale-"));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const pid = await deadPid();

  // A live hub's socket stays.
  const live = leftSocketDir();
  t.after(() => rmSync(live, { recursive: true, force: true }));
  writeRuntimeFile(dataDir, { pid: process.pid, storeAddress: `unix:${join(live, "store.sock")}`, url: "" });
  assert.equal(removeStaleStoreSocket(dataDir), undefined);
  assert.deepEqual(readdirSync(live), ["store.sock"]);

  // A directory holding anything else, one outside the temporary directory, or one not named as the hub names it, stays too.
  const crowded = leftSocketDir();
  t.after(() => rmSync(crowded, { recursive: true, force: true }));
  writeFileSync(join(crowded, "notes.txt"), "keep me");
  const elsewhere = join(dataDir, "context-hub-x");
  mkdirSync(elsewhere);
  writeFileSync(join(elsewhere, "store.sock"), "");
  const renamed = mkdtempSync(join(tmpdir(), "other-"));
  t.after(() => rmSync(renamed, { recursive: true, force: true }));
  writeFileSync(join(renamed, "store.sock"), "");
  for (const directory of [crowded, elsewhere, renamed]) {
    writeRuntimeFile(dataDir, { pid, storeAddress: `unix:${join(directory, "store.sock")}`, url: "" });
    assert.equal(removeStaleStoreSocket(dataDir), undefined, directory);
    assert.equal(existsSync(directory), true, directory);
  }

  // A TCP address names no directory.
  writeRuntimeFile(dataDir, { pid, storeAddress: "127.0.0.1:50051", url: "" });
  assert.equal(removeStaleStoreSocket(dataDir), undefined);

  // The dead hub's own directory goes.
  const own = leftSocketDir();
  writeRuntimeFile(dataDir, { pid, storeAddress: `unix:${join(own, "store.sock")}`, url: "" });
  assert.equal(removeStaleStoreSocket(dataDir), own);
  assert.equal(existsSync(own), false);
});
