import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { callOk, connectMcpClient } from "../support/mcp.js";

const bin = resolve(fileURLToPath(import.meta.url), "../../../../bin/context-hub.js");

/** Starts `context-hub start` and resolves with its MCP URL once it prints that it is ready. */
function start(dataDir: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return new Promise((resolveStart, reject) => {
    const child = spawn(process.execPath, [bin, "start", "--port", "0", "--data-dir", dataDir], {
      env: { ...process.env, LOG_LEVEL: "warn", DATABASE_URL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Context Hub is ready in [\d.]+s: (http:\/\/\S+\/mcp)/.exec(output);
      if (match?.[1] !== undefined) resolveStart({ child, url: match[1], output: () => output });
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) =>
      reject(new Error(`context-hub start exited with ${code} before it was ready:\n${output}`)),
    );
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolveStop) => {
    child.removeAllListeners("exit");
    child.once("exit", (code) => resolveStop(code));
    child.kill("SIGINT");
  });
}

test("context-hub start prints a ready client config, stops cleanly on Ctrl-C and keeps committed data", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-start-"));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));

  const first = await start(dataDir);
  assert.match(first.output(), /claude mcp add --transport http context-hub http:\/\/127\.0\.0\.1:\d+\/mcp/);
  assert.match(first.output(), /"mcpServers"/);
  const client = await connectMcpClient(first.url);
  const ack = await callOk<{ context_id: string }>(client, "store_context", {
    thread_id: "durability",
    source: "user",
    text: "Survives a restart.",
  });
  await client.close();
  assert.equal(await stop(first.child), 0, "a clean exit on SIGINT");

  const second = await start(dataDir);
  t.after(() => second.child.kill("SIGKILL"));
  const again = await connectMcpClient(second.url);
  const fetched = await callOk<{ entries: { text: string }[] }>(again, "get_context_by_ids", {
    context_ids: [ack.context_id],
  });
  assert.equal(fetched.entries[0]?.text, "Survives a restart.");
  await again.close();
  assert.equal(await stop(second.child), 0);
});
