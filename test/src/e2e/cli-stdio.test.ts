import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { waitFor } from "@context-hub/common/testing";
import { callOk } from "../support/mcp.js";

const bin = resolve(fileURLToPath(import.meta.url), "../../../../bin/context-hub.js");

/** `context-hub stdio` launched the way a desktop client launches it, with the SDK's own stdio client. */
async function launch(
  dataDir: string,
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "stdio", "--data-dir", dataDir],
    env: { ...(process.env as Record<string, string>), LOG_LEVEL: "info", DATABASE_URL: "" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  // Any byte on stdout that is not a JSON-RPC message would surface here.
  const strayOutput: Error[] = [];
  client.onerror = (error) => strayOutput.push(error);
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => {
      assert.deepEqual(strayOutput, [], "stdout carries only MCP messages");
      return stderr;
    },
  };
}

/** Resolves once process `pid` has exited (the transport keeps its child to itself, so the pid is all there is). */
async function exited(pid: number): Promise<void> {
  const gone = () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  };
  await waitFor(gone, { what: `process ${pid} to exit after its client closed`, timeoutMs: 30_000, intervalMs: 50 });
}

test("context-hub stdio serves MCP on stdin/stdout, keeps the data, and refuses a second process on the same directory", async (t) => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "context-hub-stdio-")), "data");
  t.after(() => rmSync(resolve(dataDir, ".."), { recursive: true, force: true }));

  const first = await launch(dataDir);
  const tools = await first.client.listTools();
  assert.ok(tools.tools.some((tool) => tool.name === "hybrid_search_context"));
  const ack = await callOk<{ context_id: string }>(first.client, "store_context", {
    thread_id: "desk",
    source: "user",
    text: "The stdio hub keeps notes about turbine blade cooling.",
  });
  const found = await callOk<{ results: { id: string }[] }>(first.client, "fts_search_context", {
    thread_id: "desk",
    query: "turbine cooling",
  });
  assert.deepEqual(
    found.results.map((hit) => hit.id),
    [ack.context_id],
  );
  const me = await callOk<{ subject: string }>(first.client, "whoami", {});
  assert.equal(typeof me.subject, "string");
  // The directory is the user's alone, as with `context-hub start`.
  assert.equal(statSync(dataDir).mode & 0o077, 0);

  // A second process on the same directory stops at start with the reason, and the first keeps serving.
  const second = spawn(process.execPath, [bin, "stdio", "--data-dir", dataDir], {
    env: { ...process.env, DATABASE_URL: "" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let secondErr = "";
  let secondOut = "";
  second.stderr.on("data", (chunk: Buffer) => (secondErr += chunk.toString()));
  second.stdout.on("data", (chunk: Buffer) => (secondOut += chunk.toString()));
  const code = await new Promise<number | null>((resolveCode) => second.once("exit", resolveCode));
  assert.notEqual(code, 0);
  assert.match(secondErr, /is in use by another store/);
  assert.equal(secondOut, "", "a refused start prints nothing on stdout");
  assert.equal(
    (await callOk<{ results: unknown[] }>(first.client, "fts_search_context", { thread_id: "desk", query: "turbine" }))
      .results.length,
    1,
  );

  // Closing stdin ends the session: the process stops by itself.
  first.stderr();
  const pid = first.transport.pid!;
  await first.client.close();
  await exited(pid);

  const again = await launch(dataDir);
  const fetched = await callOk<{ entries: { text: string }[] }>(again.client, "get_context_by_ids", {
    context_ids: [ack.context_id],
  });
  assert.equal(fetched.entries[0]?.text, "The stdio hub keeps notes about turbine blade cooling.");
  again.stderr();
  const againPid = again.transport.pid!;
  await again.client.close();
  await exited(againPid);
});
