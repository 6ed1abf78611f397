import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { callTool, textOf } from "../support/mcp.js";

const bin = resolve(fileURLToPath(import.meta.url), "../../../../bin/context-hub.js");

/** Runs `context-hub stdio` with `args` to its exit, stdin closed, and returns its exit code and stderr. */
async function runToExit(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bin, "stdio", ...args], {
    env: { ...process.env, DATABASE_URL: "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end();
  const code = await new Promise<number | null>((resolveCode) => child.once("exit", resolveCode));
  return { code, stderr };
}

test("context-hub stdio --toolsets refuses an unknown toolset, and one CONTEXT_HUB_TOOLSETS does not offer, before starting", async () => {
  const unknown = await runToExit(["--toolsets", "core,memry"], {});
  assert.equal(unknown.code, 2);
  assert.match(
    unknown.stderr,
    /^context-hub stdio: --toolsets: unknown toolset memry \(toolsets: all, core, search, library, history, workflow, review, admin, connector\)$/m,
  );
  const withheld = await runToExit(["--toolsets", "review"], { CONTEXT_HUB_TOOLSETS: "core,workflow" });
  assert.equal(withheld.code, 2);
  assert.match(withheld.stderr, /--toolsets: toolset review not offered here \(offered: core, workflow\)/);
});

test("context-hub stdio --toolsets serves only the named toolsets' tools", async (t) => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "context-hub-stdio-toolsets-")), "data");
  t.after(() => rmSync(resolve(dataDir, ".."), { recursive: true, force: true }));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "stdio", "--data-dir", dataDir, "--toolsets", "history,review"],
    env: { ...(process.env as Record<string, string>), LOG_LEVEL: "warn", DATABASE_URL: "" },
    stderr: "pipe",
  });
  const client = new Client({ name: "stdio-toolsets-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.deepEqual(names, ["get_context_history", "restore_context_version", "list_review_queue", "review_context"]);
    const outside = await callTool(client, "store_context", { thread_id: "t", source: "user", text: "x" });
    assert.equal(outside.isError, true);
    assert.match(textOf(outside), /store_context not found/);
  } finally {
    await client.close();
  }
});
