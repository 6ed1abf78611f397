// What every Context Hub hook for Claude Code shares: reading the event, reaching the hub, never blocking the user.
// Plain Node (20+) with built-ins only, so a project needs no install to run it.
import { readFileSync, openSync, readSync, fstatSync, closeSync } from "node:fs";
import { request } from "node:http";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The largest event read from stdin; a prompt longer than this is cut, not refused. */
const maxEventBytes = 4 * 1024 * 1024;

/**
 * The settings `context-hub init claude-code` wrote beside the hooks, with the
 * environment's overrides: CONTEXT_HUB_URL for the MCP URL, the variable named
 * by tokenEnv (CONTEXT_HUB_TOKEN by default) for the key.
 */
export function loadSettings(env = process.env) {
  const file = JSON.parse(readFileSync(join(here, "config.json"), "utf8"));
  const url = env.CONTEXT_HUB_URL || file.url;
  const token = env[file.tokenEnv || "CONTEXT_HUB_TOKEN"] || "";
  const timeoutMs =
    Number(env.CONTEXT_HUB_HOOK_TIMEOUT_MS) > 0 ? Number(env.CONTEXT_HUB_HOOK_TIMEOUT_MS) : file.timeoutMs || 3000;
  // With stdio, Claude Code runs the hub in the project directory; its data directory says where it listens.
  const dataDir = resolve(env.CLAUDE_PROJECT_DIR || process.cwd(), env.STORE_DATA_DIR || ".context-hub/data");
  return { url, token, timeoutMs, transport: file.transport || "http", dataDir };
}

/**
 * Where a `context-hub stdio` hub on `dataDir` answers MCP for its own user:
 * the Unix socket its runtime file names, while the process that wrote it
 * lives. Throws a short reason otherwise (Claude Code starts that hub with
 * the session, so a hook at the very start may run before it is up).
 */
export function localHubSocket(dataDir) {
  let info;
  try {
    info = JSON.parse(readFileSync(join(dataDir, "context-hub-runtime.json"), "utf8"));
  } catch {
    throw new Error(`no Context Hub is running on ${dataDir} yet; continuing without it`);
  }
  let alive = typeof info?.pid === "number";
  try {
    if (alive) process.kill(info.pid, 0);
  } catch (error) {
    alive = error?.code === "EPERM";
  }
  if (!alive || typeof info.socketPath !== "string")
    throw new Error(`no Context Hub is running on ${dataDir} yet; continuing without it`);
  return info.socketPath;
}

/** Prints one short warning line on stderr: Claude Code shows it without stopping anything. */
export function warn(message) {
  process.stderr.write(`context-hub: ${message}\n`);
}

/**
 * Runs a hook's body and always exits 0: a hub that is down, slow or refusing
 * costs a warning, never the user's turn. The watchdog bounds the whole run,
 * stdin included, even if a request hangs past its own timeout.
 */
export function runHook(body, timeoutMs) {
  const watchdog = setTimeout(() => {
    warn(`gave up after ${timeoutMs} ms; continuing without Context Hub`);
    process.exit(0);
  }, timeoutMs + 1000);
  watchdog.unref();
  body().then(
    () => process.exit(0),
    (error) => {
      warn(error instanceof Error ? error.message : String(error));
      process.exit(0);
    },
  );
}

/** The hook event Claude Code writes on stdin, parsed; bounded so a huge prompt cannot exhaust memory. */
export async function readEvent(stream = process.stdin) {
  const chunks = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > maxEventBytes) throw new Error(`the hook event is larger than ${maxEventBytes} bytes`);
    chunks.push(chunk);
  }
  let event;
  try {
    event = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (error) {
    throw new Error(`the hook event on stdin is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof event !== "object" || event === null || typeof event.session_id !== "string" || event.session_id === "")
    throw new Error("the hook event has no session_id");
  return event;
}

/** The project a session runs in, named by its directory: Claude Code sets CLAUDE_PROJECT_DIR for hooks. */
export function projectName(event, env = process.env) {
  return basename(env.CLAUDE_PROJECT_DIR || event.cwd || process.cwd()) || "project";
}

/** One thread per session, named so that the same session (resumed or compacted) always lands in it. */
export function sessionThreadId(event, env = process.env) {
  return `claude-code/${projectName(event, env)}/${event.session_id}`.slice(0, 256);
}

/**
 * Calls one MCP tool with a single JSON-RPC POST (Streamable HTTP, stateless:
 * no handshake needed) and returns its structured result. The answer may come
 * as JSON or as an event stream; both are read.
 */
export async function callTool(settings, name, args) {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  };
  if (settings.token !== "") headers.authorization = `Bearer ${settings.token}`;
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
  const socketPath = settings.transport === "stdio" ? localHubSocket(settings.dataDir) : undefined;
  const where = socketPath === undefined ? settings.url : `unix:${socketPath}`;
  let response;
  try {
    response =
      socketPath === undefined
        ? await fetchPost(settings.url, headers, body, settings.timeoutMs)
        : await socketPost(socketPath, headers, body, settings.timeoutMs);
  } catch (error) {
    const reason =
      error?.name === "TimeoutError"
        ? `no answer in ${settings.timeoutMs} ms`
        : (error?.cause?.code ?? error?.code ?? error?.message ?? String(error));
    throw new Error(`Context Hub at ${where} is unreachable (${reason}); continuing without it`);
  }
  if (response.status < 200 || response.status > 299)
    throw new Error(`Context Hub at ${where} answered HTTP ${response.status}: ${response.body.slice(0, 200)}`);
  const message = response.contentType.includes("text/event-stream")
    ? lastEventData(response.body)
    : JSON.parse(response.body);
  if (message.error) throw new Error(`${name} failed: ${message.error.message}`);
  const result = message.result;
  if (typeof result !== "object" || result === null) throw new Error(`${name}: the hub's answer carried no result`);
  if (result.isError)
    throw new Error(
      `${name} failed: ${(result.content ?? [])
        .map((part) => part.text ?? "")
        .join(" ")
        .slice(0, 300)}`,
    );
  return result.structuredContent ?? {};
}

/** Waits up to `timeoutMs` for a `context-hub stdio` hub on `dataDir` to publish its socket; throws if none does. */
export async function waitForLocalHub(dataDir, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return localHubSocket(dataDir);
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** POSTs `body` to an http(s) URL: status, content type and text of the answer. */
async function fetchPost(url, headers, body, timeoutMs) {
  const response = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(timeoutMs) });
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    body: await response.text(),
  };
}

/** POSTs `body` to /mcp over a Unix socket (fetch cannot dial one): status, content type and text of the answer. */
function socketPost(socketPath, headers, body, timeoutMs) {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { socketPath, path: "/mcp", method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) } },
      (incoming) => {
        const chunks = [];
        incoming.on("data", (chunk) => chunks.push(chunk));
        incoming.on("error", reject);
        incoming.on("end", () =>
          resolve({
            status: incoming.statusCode ?? 0,
            contentType: String(incoming.headers["content-type"] ?? ""),
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    outgoing.setTimeout(timeoutMs, () =>
      outgoing.destroy(Object.assign(new Error("timed out"), { name: "TimeoutError" })),
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** The JSON-RPC answer in an event stream: the last `data:` event that parses. */
function lastEventData(stream) {
  let found;
  for (const block of stream.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (data !== "") found = JSON.parse(data);
  }
  if (found === undefined) throw new Error("the hub's event stream carried no answer");
  return found;
}

/** Cuts text to at most `limit` characters, saying so, so the hub never gets an unbounded entry. */
export function bounded(text, limit) {
  return text.length <= limit
    ? text
    : `${text.slice(0, limit - 40)}\n[… cut: ${text.length - limit + 40} characters more]`;
}

/**
 * The text of the last assistant messages in a transcript (JSON Lines), newest
 * last. Only the file's tail is read, so a long session costs no more than a
 * short one.
 */
export function lastAssistantTexts(transcriptPath, count, tailBytes = 512 * 1024) {
  if (typeof transcriptPath !== "string" || transcriptPath === "") return [];
  let fd;
  try {
    fd = openSync(transcriptPath, "r");
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - tailBytes);
    const buffer = Buffer.alloc(size - start);
    readSync(fd, buffer, 0, buffer.length, start);
    const lines = buffer.toString("utf8").split("\n");
    if (start > 0) lines.shift(); // the first line is cut mid-record
    const texts = [];
    for (const line of lines) {
      const text = assistantText(line);
      if (text !== "") texts.push(text);
    }
    return texts.slice(-count);
  } finally {
    closeSync(fd);
  }
}

/** The text blocks of one transcript line when it is an assistant message; "" otherwise. */
function assistantText(line) {
  if (line.trim() === "") return "";
  let record;
  try {
    record = JSON.parse(line);
  } catch {
    return "";
  }
  if (record?.type !== "assistant" || record.message === undefined) return "";
  const content = record.message.content;
  if (typeof content === "string") return content.trim();
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => block?.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("\n")
    .trim();
}
