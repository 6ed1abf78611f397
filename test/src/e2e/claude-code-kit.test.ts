import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { findFreePort } from "@context-hub/cli";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { startMemoryHub } from "../support/memory-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";
import { startGatewayOn } from "../gateway/gateways.js";

const bin = resolve(fileURLToPath(import.meta.url), "../../../../bin/context-hub.js");
const hooks = ".claude/hooks/context-hub";

function project(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), "context-hub-kit-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function init(args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [bin, "init", ...args], {
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const readJson = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
/** Every file under .claude and .mcp.json, by path, to show that a refused run changed nothing. */
function snapshot(dir: string): Record<string, string> {
  const paths = [
    ".mcp.json",
    ".claude/settings.json",
    `${hooks}/config.json`,
    `${hooks}/stop.mjs`,
    ".claude/skills/context-hub/SKILL.md",
  ];
  return Object.fromEntries(
    paths.filter((path) => existsSync(join(dir, path))).map((path) => [path, readFileSync(join(dir, path), "utf8")]),
  );
}

interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one installed hook the way Claude Code does: the event as JSON on stdin, CLAUDE_PROJECT_DIR set. */
function runHook(
  dir: string,
  script: string,
  event: Record<string, unknown> | string,
  env: NodeJS.ProcessEnv = {},
): Promise<HookRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [join(dir, hooks, script)], {
      cwd: dir,
      env: { ...process.env, CLAUDE_PROJECT_DIR: dir, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => resolveRun({ code, stdout, stderr }));
    child.stdin.end(typeof event === "string" ? event : JSON.stringify(event));
  });
}

/** The fields Claude Code sends with every hook event. */
const common = (dir: string, sessionId: string, eventName: string, transcript = join(dir, `${sessionId}.jsonl`)) => ({
  session_id: sessionId,
  transcript_path: transcript,
  cwd: dir,
  permission_mode: "default",
  hook_event_name: eventName,
});

/** A transcript in Claude Code's JSON Lines format: user turns, assistant text and tool calls, tool results. */
function writeTranscript(path: string, assistantTexts: string[]): void {
  const lines: unknown[] = [
    {
      type: "user",
      message: { role: "user", content: "Find out why the nightly build fails." },
      uuid: "u1",
      sessionId: "s",
    },
  ];
  assistantTexts.forEach((text, index) => {
    lines.push({
      type: "assistant",
      message: {
        role: "assistant",
        content: [{ type: "tool_use", id: `t${index}`, name: "Bash", input: { command: "npm test" } }],
      },
    });
    lines.push({
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${index}`, content: "ok" }] },
    });
    lines.push({
      type: "assistant",
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hidden" },
          { type: "text", text },
        ],
      },
    });
  });
  lines.push({ type: "system", subtype: "stop_hook_summary" });
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
}

test("init claude-code writes the kit, merges into existing settings and servers, and refuses to overwrite a differing one", (t) => {
  const dir = project(t);
  mkdirSync(join(dir, ".claude"));
  const otherStop = { hooks: [{ type: "command", command: "echo done" }] };
  writeFileSync(
    join(dir, ".claude/settings.json"),
    JSON.stringify({ permissions: { allow: ["Bash(ls)"] }, hooks: { Stop: [otherStop] }, model: "opus" }),
  );
  writeFileSync(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { other: { command: "other-server" } } }));

  const first = init(["claude-code", "--dir", dir, "--url", "https://hub.example.com/mcp", "--save-prompts"], {
    CONTEXT_HUB_TOKEN: "chk_secret_never_written",
  });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /wrote {5}\.claude\/settings\.json/);

  const settings = readJson(join(dir, ".claude/settings.json")) as {
    permissions: unknown;
    model: string;
    hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]>;
  };
  assert.deepEqual(settings.permissions, { allow: ["Bash(ls)"] });
  assert.equal(settings.model, "opus");
  assert.deepEqual(settings.hooks.Stop?.[0], otherStop, "the project's own Stop hook is kept, first");
  const commandOf = (event: string) => settings.hooks[event]?.map((group) => group.hooks[0]?.command);
  assert.deepEqual(commandOf("Stop"), ["echo done", `node "$CLAUDE_PROJECT_DIR/${hooks}/stop.mjs"`]);
  assert.deepEqual(commandOf("SessionStart"), [`node "$CLAUDE_PROJECT_DIR/${hooks}/session-start.mjs"`]);
  assert.deepEqual(commandOf("SubagentStop"), [`node "$CLAUDE_PROJECT_DIR/${hooks}/stop.mjs"`]);
  assert.deepEqual(commandOf("UserPromptSubmit"), [`node "$CLAUDE_PROJECT_DIR/${hooks}/user-prompt-submit.mjs"`]);

  const servers = (readJson(join(dir, ".mcp.json")) as { mcpServers: Record<string, unknown> }).mcpServers;
  assert.deepEqual(servers.other, { command: "other-server" });
  assert.deepEqual(servers["context-hub"], {
    type: "http",
    url: "https://hub.example.com/mcp",
    headers: { Authorization: "Bearer ${CONTEXT_HUB_TOKEN:-}" },
  });
  for (const content of Object.values(snapshot(dir))) assert.doesNotMatch(content, /chk_secret_never_written/);
  const skill = readFileSync(join(dir, ".claude/skills/context-hub/SKILL.md"), "utf8");
  assert.match(skill, /^---\nname: context-hub\ndescription: .+\n---\n/);
  assert.match(skill, /hybrid_search_context/);
  assert.match(skill, /## Hand off/);

  // The same run again changes nothing; a differing one is refused as a whole, and --force applies it.
  const again = init(["claude-code", "--dir", dir, "--url", "https://hub.example.com/mcp", "--save-prompts"]);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stdout, /wrote/);
  const before = snapshot(dir);
  const differing = init(["claude-code", "--dir", dir, "--url", "http://127.0.0.1:9000/mcp"]);
  assert.equal(differing.code, 1);
  assert.match(differing.stderr, /nothing was written/);
  assert.match(differing.stderr, /\.mcp\.json: the "context-hub" server is configured differently/);
  assert.match(differing.stderr, /the UserPromptSubmit hook differs from the kit's/);
  assert.deepEqual(snapshot(dir), before);
  const forced = init(["claude-code", "--dir", dir, "--url", "http://127.0.0.1:9000/mcp", "--force"]);
  assert.equal(forced.code, 0, forced.stderr);
  const forcedSettings = readJson(join(dir, ".claude/settings.json")) as { hooks: Record<string, unknown[]> };
  assert.equal(
    forcedSettings.hooks.UserPromptSubmit,
    undefined,
    "--force removes the prompt hook this run does not want",
  );
  assert.deepEqual(forcedSettings.hooks.Stop?.[0], otherStop);
  assert.equal((readJson(join(dir, `${hooks}/config.json`)) as { url: string }).url, "http://127.0.0.1:9000/mcp");
});

test("init claude-code refuses bad input and a settings file it cannot read, writing nothing", (t) => {
  const dir = project(t);
  assert.equal(init(["claude-code", "--dir", dir, "--url", "http://x/mcp", "--stdio"]).code, 2);
  assert.match(
    init(["claude-code", "--dir", dir, "--url", "ftp://x/mcp"]).stderr,
    /--url must be http:\/\/ or https:\/\//,
  );
  assert.match(init(["cursor", "--dir", dir]).stderr, /unknown client "cursor"/);
  assert.match(
    init(["claude-code", "--dir", dir, "--token-env", "NOT-A-NAME"]).stderr,
    /not an environment variable name/,
  );
  assert.match(init(["claude-code", "--dir", join(dir, "missing")]).stderr, /is not a directory/);
  mkdirSync(join(dir, ".claude"));
  writeFileSync(join(dir, ".claude/settings.json"), "{ not json");
  const broken = init(["claude-code", "--dir", dir]);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /\.claude\/settings\.json is not valid JSON/);
  assert.equal(existsSync(join(dir, ".mcp.json")), false);
  assert.equal(existsSync(join(dir, hooks)), false);
  assert.equal(readFileSync(join(dir, ".claude/settings.json"), "utf8"), "{ not json");
});

test("init claude-code --stdio: Claude Code's stdio entry starts a working hub, and every hook reaches it on its socket", async (t) => {
  const dir = project(t);
  const run = init(["claude-code", "--dir", dir, "--stdio", "--save-prompts"]);
  assert.equal(run.code, 0, run.stderr);
  const entry = (
    readJson(join(dir, ".mcp.json")) as {
      mcpServers: Record<string, { type: string; command: string; args: string[] }>;
    }
  ).mcpServers["context-hub"]!;
  assert.equal(entry.type, "stdio");
  assert.deepEqual(Object.keys((readJson(join(dir, ".claude/settings.json")) as { hooks: object }).hooks), [
    "SessionStart",
    "Stop",
    "SubagentStop",
    "UserPromptSubmit",
  ]);
  const thread = `claude-code/${basename(dir)}/stdio-session`;
  const runtimeFile = join(dir, ".context-hub/data/context-hub-runtime.json");

  // Before Claude Code has started the hub, a hook warns and goes on; the start hook still names the thread.
  const early = await runHook(
    dir,
    "session-start.mjs",
    { ...common(dir, "early-session", "SessionStart"), source: "startup" },
    { CONTEXT_HUB_HOOK_TIMEOUT_MS: "300" },
  );
  assert.equal(early.code, 0);
  assert.match(early.stderr, /no Context Hub is running on .*\.context-hub\/data yet; continuing without it/);
  assert.match(early.stdout, /claude-code\/[^/]+\/early-session/);

  // Launched as Claude Code would launch it, in the project directory.
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    cwd: dir,
    env: { ...(process.env as Record<string, string>), DATABASE_URL: "", LOG_LEVEL: "warn", STORE_DATA_DIR: "" },
    stderr: "pipe",
  });
  const client = new Client({ name: "kit-test", version: "1" });
  // The hub answers once it has loaded its models and migrated its database: minutes on a loaded machine.
  await client.connect(transport, { timeout: 300_000 });
  let socketPath: string;
  try {
    const ack = await callOk<{ context_id: string }>(client, "store_context", {
      thread_id: "kit",
      source: "agent",
      text: "Stored through the kit's stdio entry.",
    });
    assert.equal(typeof ack.context_id, "string");
    const runtime = readJson(runtimeFile) as { socketPath: string; url: string };
    socketPath = runtime.socketPath;
    assert.match(runtime.url, /^http\+unix:\/\//);
    assert.equal(statSync(dirname(socketPath)).mode & 0o777, 0o700, "only this user may enter the socket's directory");

    const hookEnv = { STORE_DATA_DIR: "" };
    const start = await runHook(
      dir,
      "session-start.mjs",
      { ...common(dir, "stdio-session", "SessionStart"), source: "startup" },
      hookEnv,
    );
    assert.equal(start.code, 0);
    assert.equal(start.stderr, "");
    const output = JSON.parse(start.stdout) as { hookSpecificOutput: { additionalContext: string } };
    assert.match(
      output.hookSpecificOutput.additionalContext,
      new RegExp(`Context Hub thread for this session: ${thread}`),
    );
    const prompt = await runHook(
      dir,
      "user-prompt-submit.mjs",
      { ...common(dir, "stdio-session", "UserPromptSubmit"), prompt: "Why does the nightly build fail?" },
      hookEnv,
    );
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.equal(prompt.stderr, "");
    writeTranscript(join(dir, "stdio-session.jsonl"), ["The lockfile was regenerated; pinned esbuild."]);
    const stop = await runHook(
      dir,
      "stop.mjs",
      { ...common(dir, "stdio-session", "Stop"), stop_hook_active: false },
      hookEnv,
    );
    assert.equal(stop.code, 0, stop.stderr);
    assert.equal(stop.stderr, "");

    // What the hooks stored is what the agent reads through its own stdio connection: one hub.
    const listed = await callOk<Listed>(client, "search_context", { thread_id: thread, limit: 10 });
    assert.deepEqual(listed.results.map((stored) => stored.tags[1]).sort(), [
      "prompt",
      "session-start",
      "session-summary",
    ]);
    const summary = listed.results.find((stored) => stored.tags.includes("session-summary"));
    assert.match(summary?.preview ?? "", /lockfile was regenerated/);
  } finally {
    await client.close();
  }

  // The hub stopped with its client: the runtime file and the socket's directory are gone, and a hook only warns.
  await waitFor(() => !existsSync(runtimeFile), "the runtime file to be removed");
  assert.equal(existsSync(dirname(socketPath)), false);
  const late = await runHook(dir, "stop.mjs", { ...common(dir, "stdio-session", "Stop"), stop_hook_active: false });
  assert.equal(late.code, 0);
  assert.match(late.stderr, /no Context Hub is running on .* yet; continuing without it/);
});

/** Polls `condition` every 50 ms for up to 10 s. */
async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
}

interface Listed {
  results: {
    id: string;
    thread_id: string;
    source: string;
    tags: string[];
    metadata: Record<string, unknown>;
    preview: string;
  }[];
}

test("the hooks store what Claude Code's events carry in the session's thread, and the start hook hands earlier summaries on", async (t) => {
  const hub = await startMemoryHub();
  t.after(() => hub.close());
  const client = await connectMcpClient(hub.url);
  t.after(() => client.close());
  const dir = project(t);
  assert.equal(init(["claude-code", "--dir", dir, "--url", hub.url, "--save-prompts"]).code, 0);
  const thread = (session: string) => `claude-code/${basename(dir)}/${session}`;
  const listThread = async (session: string) =>
    (await callOk<Listed>(client, "search_context", { thread_id: thread(session), limit: 50 })).results;

  const start = await runHook(dir, "session-start.mjs", {
    ...common(dir, "session-a", "SessionStart"),
    source: "startup",
    model: "claude-sonnet-4-5",
  });
  assert.equal(start.code, 0, start.stderr);
  assert.equal(start.stderr, "");
  const started = JSON.parse(start.stdout) as {
    hookSpecificOutput: { hookEventName: string; additionalContext: string };
  };
  assert.equal(started.hookSpecificOutput.hookEventName, "SessionStart");
  assert.match(
    started.hookSpecificOutput.additionalContext,
    new RegExp(`Context Hub thread for this session: ${thread("session-a")}\n`),
  );
  assert.deepEqual(
    (await listThread("session-a")).map((entry) => entry.tags),
    [["claude-code", "session-start"]],
  );

  const prompt = await runHook(dir, "user-prompt-submit.mjs", {
    ...common(dir, "session-a", "UserPromptSubmit"),
    prompt: "Find out why the nightly build fails.",
  });
  assert.equal(prompt.code, 0, prompt.stderr);
  assert.equal(prompt.stdout, "", "anything printed would be added to the prompt");
  const stored = (await listThread("session-a")).find((entry) => entry.tags.includes("prompt"));
  assert.equal(stored?.source, "user");
  assert.equal(stored?.preview, "Find out why the nightly build fails.");

  // Stop: the last three assistant texts, newest last, bounded in size.
  const transcript = join(dir, "session-a.jsonl");
  writeTranscript(transcript, [
    "First look: the cache key changed.",
    "The lockfile was regenerated on Tuesday.",
    "Pinned esbuild to 0.25.1; the build passes.",
    `Left to do: ${"report the upstream bug. ".repeat(400)}`,
  ]);
  const stop = await runHook(dir, "stop.mjs", { ...common(dir, "session-a", "Stop"), stop_hook_active: false });
  assert.equal(stop.code, 0, stop.stderr);
  assert.equal(stop.stdout, "");
  const summaryListing = (await listThread("session-a")).find((entry) => entry.tags.includes("session-summary"))!;
  assert.equal(summaryListing.metadata.event, "Stop");
  const summary = await callOk<{ entries: { text: string }[] }>(client, "get_context_by_ids", {
    context_ids: [summaryListing.id],
  });
  const text = summary.entries[0]!.text;
  assert.ok(text.length <= 4000, `summary is ${text.length} characters`);
  assert.doesNotMatch(text, /First look/, "only the last three messages");
  assert.match(text, /lockfile was regenerated[\s\S]*Pinned esbuild[\s\S]*Left to do: report the upstream bug/);
  assert.match(text, /\[… cut: \d+ characters more\]$/);
  assert.doesNotMatch(text, /hidden|npm test/, "thinking and tool calls are left out");

  // SubagentStop: the subagent's own transcript and its last message, in the same thread.
  const agentTranscript = join(dir, "agent-1.jsonl");
  writeTranscript(agentTranscript, ["Scanned 41 workflow files."]);
  const subagent = await runHook(dir, "stop.mjs", {
    ...common(dir, "session-a", "SubagentStop"),
    stop_hook_active: false,
    agent_id: "a1b2",
    agent_type: "Explore",
    agent_transcript_path: agentTranscript,
    last_assistant_message: "Only nightly.yml sets NODE_OPTIONS.",
  });
  assert.equal(subagent.code, 0, subagent.stderr);
  const agentEntry = (await listThread("session-a")).find((entry) => entry.tags.includes("subagent-summary"))!;
  assert.equal(agentEntry.metadata.agent_type, "Explore");
  assert.match(
    agentEntry.preview,
    /Subagent Explore finished[\s\S]*Scanned 41 workflow files[\s\S]*Only nightly\.yml sets NODE_OPTIONS/,
  );

  // A later turn stores a newer summary; the next session is told where the last one left off, once.
  writeTranscript(transcript, ["Opened the upstream issue; nothing else is left."]);
  assert.equal(
    (await runHook(dir, "stop.mjs", { ...common(dir, "session-a", "Stop"), stop_hook_active: false })).code,
    0,
  );
  const newest = (await listThread("session-a")).find((entry) => entry.tags.includes("session-summary"))!;
  assert.notEqual(newest.id, summaryListing.id);
  const next = await runHook(dir, "session-start.mjs", {
    ...common(dir, "session-b", "SessionStart"),
    source: "startup",
  });
  assert.equal(next.code, 0, next.stderr);
  const context = (JSON.parse(next.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
    .additionalContext;
  assert.match(
    context,
    new RegExp(
      `\n- ${newest.id} \\(${thread("session-a")}, [^)]*\\): Claude Code session session-a in ${basename(dir)}: where it left off Opened the upstream issue`,
    ),
  );
  assert.equal(context.split(thread("session-a")).length, 2, "one line per earlier session");
  // A compaction continues the session: no second start entry.
  assert.equal(
    (await runHook(dir, "session-start.mjs", { ...common(dir, "session-b", "SessionStart"), source: "compact" })).code,
    0,
  );
  assert.equal((await listThread("session-b")).length, 1);
});

test("with the hub down or hanging, every hook warns on stderr and exits 0 within its bound", async (t) => {
  const dir = project(t);
  const port = await findFreePort();
  assert.equal(init(["claude-code", "--dir", dir, "--url", `http://127.0.0.1:${port}/mcp`, "--save-prompts"]).code, 0);
  writeTranscript(join(dir, "s.jsonl"), ["Done."]);
  const events: [string, Record<string, unknown>][] = [
    ["session-start.mjs", { ...common(dir, "s", "SessionStart"), source: "startup" }],
    ["user-prompt-submit.mjs", { ...common(dir, "s", "UserPromptSubmit"), prompt: "hello" }],
    ["stop.mjs", { ...common(dir, "s", "Stop"), stop_hook_active: false }],
  ];
  for (const [script, event] of events) {
    const run = await runHook(dir, script, event);
    assert.equal(run.code, 0, `${script}: ${run.stderr}`);
    assert.match(
      run.stderr,
      /^context-hub: Context Hub at http:\/\/127\.0\.0\.1:\d+\/mcp is unreachable \(ECONNREFUSED\); continuing without it\n$/,
    );
  }
  // An event that is not what Claude Code sends is reported the same way.
  const garbled = await runHook(dir, "stop.mjs", "not json");
  assert.equal(garbled.code, 0);
  assert.match(garbled.stderr, /^context-hub: the hook event on stdin is not JSON/);
  // The start hook still names the thread, which needs no hub.
  const start = await runHook(dir, "session-start.mjs", events[0]![1]);
  assert.match(start.stdout, /Context Hub thread for this session: claude-code\//);

  // A hub that accepts connections and never answers: the request's timeout bounds the hook.
  const sockets: Socket[] = [];
  const silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((listening) => silent.listen(port, "127.0.0.1", listening));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
  const hung = await runHook(dir, "stop.mjs", events[2]![1], { CONTEXT_HUB_HOOK_TIMEOUT_MS: "500" });
  assert.equal(hung.code, 0);
  // The message names the 500 ms asked for, so that timeout (not a longer default) ended the wait; no stopwatch needed.
  assert.match(hung.stderr, /unreachable \(no answer in 500 ms\)/);
});

test("behind API keys the hooks send the key from the named variable, and a wrong key only warns", async (t) => {
  const keys = writeKeysFile([{ name: "alice", tenant: "acme", subject: "alice", groups: ["eng"], scopes: readWrite }]);
  t.after(() => keys.dispose());
  const hub = await startMemoryHub();
  t.after(() => hub.close());
  const secured = await startGatewayOn(hub, { CONTEXT_HUB_AUTH: "api-key", CONTEXT_HUB_API_KEYS_FILE: keys.path });
  t.after(() => secured.close());
  const key = keys.principals.alice!.key;
  const dir = project(t);
  assert.equal(
    init(["claude-code", "--dir", dir, "--url", secured.url, "--token-env", "KIT_KEY", "--save-prompts"], {
      KIT_KEY: key,
    }).code,
    0,
  );
  assert.deepEqual(
    (readJson(join(dir, ".mcp.json")) as { mcpServers: Record<string, { headers: unknown }> }).mcpServers[
      "context-hub"
    ]!.headers,
    { Authorization: "Bearer ${KIT_KEY:-}" },
  );
  for (const content of Object.values(snapshot(dir))) assert.ok(!content.includes(key), "the key is never written");

  const event = { ...common(dir, "keyed", "UserPromptSubmit"), prompt: "Stored as alice." };
  const stored = await runHook(dir, "user-prompt-submit.mjs", event, { KIT_KEY: key });
  assert.equal(stored.code, 0, stored.stderr);
  assert.equal(stored.stderr, "");
  const alice = await connectMcpClient(secured.url, { Authorization: `Bearer ${key}` });
  t.after(() => alice.close());
  const listed = await callOk<Listed>(alice, "search_context", { thread_id: `claude-code/${basename(dir)}/keyed` });
  assert.deepEqual(
    listed.results.map((entry) => entry.preview),
    ["Stored as alice."],
  );

  const refused = await runHook(
    dir,
    "user-prompt-submit.mjs",
    { ...event, prompt: "Never stored." },
    { KIT_KEY: "chk_wrong" },
  );
  assert.equal(refused.code, 0);
  assert.match(refused.stderr, /^context-hub: Context Hub at \S+ answered HTTP 401/);
  assert.equal(
    (await callOk<Listed>(alice, "search_context", { thread_id: `claude-code/${basename(dir)}/keyed` })).results.length,
    1,
  );
});
