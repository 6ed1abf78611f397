import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { waitFor } from "@context-hub/common/testing";
import { callOk } from "../support/mcp.js";

const bin = resolve(fileURLToPath(import.meta.url), "../../../../bin/context-hub.js");

/** Every JSON-RPC message a client transport sends and receives, in order, recorded without changing them. */
interface Wire {
  sent: { method?: string; params?: { _meta?: Record<string, unknown> } }[];
  received: { id?: unknown; result?: Record<string, unknown> }[];
}

/** Records `transport`'s traffic; call it before the client connects (the client installs its handler then). */
function recordWire(transport: { send(message: never, options?: never): Promise<void>; onmessage?: unknown }): Wire {
  const wire: Wire = { sent: [], received: [] };
  const send = transport.send.bind(transport);
  transport.send = (message: never, options?: never) => {
    wire.sent.push(message);
    return send(message, options);
  };
  let handler: ((message: never, extra?: never) => void) | undefined;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () =>
      handler === undefined
        ? undefined
        : (message: never, extra?: never) => {
            wire.received.push(message);
            handler!(message, extra);
          },
    set: (next: typeof handler) => (handler = next),
  });
  return wire;
}

/** The result the server sent for the first request of `method`. */
function resultOf(wire: Wire, method: string): Record<string, unknown> | undefined {
  const request = wire.sent.find((message) => message.method === method) as { id?: unknown } | undefined;
  return wire.received.find((message) => request !== undefined && message.id === request.id)?.result;
}

/** `context-hub stdio` launched the way a desktop client launches it, with the SDK's own stdio client. */
async function launch(
  dataDir: string,
): Promise<{ client: Client; transport: StdioClientTransport; wire: Wire; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "stdio", "--data-dir", dataDir],
    env: { ...(process.env as Record<string, string>), LOG_LEVEL: "info", DATABASE_URL: "" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const wire = recordWire(transport as never);
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  // Any byte on stdout that is not a JSON-RPC message would surface here.
  const strayOutput: Error[] = [];
  client.onerror = (error) => strayOutput.push(error);
  await client.connect(transport);
  return {
    client,
    transport,
    wire,
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

test("context-hub stdio serves revision 2026-07-28 without a handshake, and a 2025-11-25 client after it on the same data", async (t) => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "context-hub-stdio-")), "data");
  t.after(() => rmSync(resolve(dataDir, ".."), { recursive: true, force: true }));
  const env = { ...(process.env as Record<string, string>), LOG_LEVEL: "info", DATABASE_URL: "" };
  const args = [bin, "stdio", "--data-dir", dataDir];

  // A v2 SDK client pinned to 2026-07-28, launched the way a desktop client launches the server.
  const modernTransport = new ModernStdioTransport({ command: process.execPath, args, env, stderr: "pipe" });
  let modernErr = "";
  modernTransport.stderr?.on("data", (chunk: Buffer) => (modernErr += chunk.toString()));
  const modernWire = recordWire(modernTransport as never);
  const modern = new ModernClient(
    { name: "stdio-test-v2", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const modernErrors: Error[] = [];
  modern.onerror = (error) => modernErrors.push(error);
  await modern.connect(modernTransport);
  // On connect the SDK probes with server/discover in a disposable sibling process; ask this process as well.
  t.after(() => modern.close());
  assert.deepEqual([modern.getProtocolEra(), modern.getNegotiatedProtocolVersion()], ["modern", "2026-07-28"]);
  const discovery = await modern.discover();
  assert.deepEqual(discovery.supportedVersions, ["2026-07-28"]);
  assert.equal(modern.getServerVersion()?.name, "context-hub");
  const { tools } = await modern.listTools();
  assert.ok(tools.some((tool) => tool.name === "store_context") && tools.some((tool) => tool.name === "whoami"));
  const stored = await modern.callTool({
    name: "store_context",
    arguments: {
      thread_id: "desk",
      source: "agent",
      text: "Written over stdio at revision 2026-07-28 about heat pumps.",
    },
  });
  assert.equal(stored.isError, undefined, JSON.stringify(stored.content));
  const modernId = (stored.structuredContent as { context_id: string }).context_id;
  const found = await modern.callTool({
    name: "fts_search_context",
    arguments: { thread_id: "desk", query: "heat pumps" },
  });
  assert.deepEqual(
    (found.structuredContent as { results: { id: string }[] }).results.map((hit) => hit.id),
    [modernId],
  );
  // The tools are bound to the local principal, as for a 2025 client.
  const me = await modern.callTool({ name: "whoami", arguments: {} });
  assert.equal(typeof (me.structuredContent as { subject: string }).subject, "string");

  const requests = modernWire.sent.filter((message) => message.method !== undefined);
  assert.deepEqual(
    requests.map((message) => message.method),
    ["server/discover", "tools/list", "tools/call", "tools/call", "tools/call"],
    "no initialize and no notifications: every request stands alone",
  );
  for (const message of requests)
    assert.equal(message.params?._meta?.["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  const discovered = resultOf(modernWire, "server/discover")!;
  assert.deepEqual([discovered.resultType, discovered.ttlMs, discovered.cacheScope], ["complete", 300_000, "private"]);
  const listed = resultOf(modernWire, "tools/list")!;
  assert.deepEqual([listed.resultType, listed.ttlMs, listed.cacheScope], ["complete", 300_000, "private"]);
  assert.deepEqual(modernErrors, [], "stdout carries only MCP messages");

  const modernPid = modernTransport.pid!;
  await modern.close();
  await exited(modernPid);
  assert.doesNotMatch(modernErr, /"level":(50|60)/, "no error logged");

  // A 2025 client (SDK 1.x) on the same directory afterwards: the handshake, the same tools, and the entry above.
  const legacy = await launch(dataDir);
  t.after(() => legacy.client.close());
  assert.equal(resultOf(legacy.wire, "initialize")?.protocolVersion, "2025-11-25");
  const legacyTools = await legacy.client.listTools();
  assert.deepEqual(legacyTools.tools.map((tool) => tool.name).sort(), tools.map((tool) => tool.name).sort());
  const legacyFound = await callOk<{ results: { id: string }[] }>(legacy.client, "fts_search_context", {
    thread_id: "desk",
    query: "heat pumps",
  });
  assert.deepEqual(
    legacyFound.results.map((hit) => hit.id),
    [modernId],
  );
  const ack = await callOk<{ context_id: string }>(legacy.client, "store_context", {
    thread_id: "desk",
    source: "user",
    text: "Written over stdio at revision 2025-11-25 about heat pumps too.",
  });
  const both = await callOk<{ results: { id: string }[] }>(legacy.client, "fts_search_context", {
    thread_id: "desk",
    query: "heat pumps",
  });
  assert.deepEqual(both.results.map((hit) => hit.id).sort(), [modernId, ack.context_id].sort());
  assert.ok(
    legacy.wire.sent.every(
      (message) => message.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === undefined,
    ),
  );
  legacy.stderr();
  const legacyPid = legacy.transport.pid!;
  await legacy.client.close();
  await exited(legacyPid);
});
