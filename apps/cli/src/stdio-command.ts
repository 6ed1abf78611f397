import { parseArgs } from "node:util";
import { createLogger } from "@context-hub/common";
import { narrowToolsets, parseToolsets } from "@context-hub/gateway";
import { startLocalHub } from "./all-in-one.js";

export const stdioUsage = `Usage: context-hub stdio [--data-dir <dir>] [--toolsets <list>]

Runs Context Hub in this process and serves MCP on stdin/stdout, for clients
that launch local servers (Claude Desktop, Cursor, Claude Code with a stdio
entry), at revision 2026-07-28 (no handshake) or, after \`initialize\`, the
2025 revisions. One local user, no MCP port: the data lives in --data-dir
(default .context-hub/data under the working directory, or STORE_DATA_DIR),
the same directory \`context-hub start\` uses, and only one process may open
it at a time. Logs go to stderr; stdout carries only MCP messages.

For this user's other processes (the Claude Code kit's hooks, \`context-hub
keys\`), the same hub also answers MCP over HTTP on a Unix socket in a
directory only this user may enter, named in the data directory's
context-hub-runtime.json.

--toolsets core,search narrows the tools served to those toolsets, within
the ones CONTEXT_HUB_TOOLSETS offers (default all); see docs/gateway.md.
`;

/**
 * `context-hub stdio`: starts the hub, serves MCP over stdio until stdin
 * closes (the client quit) or a signal arrives, then stops everything and
 * returns the exit code. Start-up failures (a data directory another
 * process holds, a model mismatch) are printed to stderr with their reason.
 */
export async function runStdioCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  err: (text: string) => void,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { "data-dir": { type: "string" }, toolsets: { type: "string" }, help: { type: "boolean", short: "h" } },
    strict: true,
  });
  if (values.help === true) {
    err(stdioUsage);
    return 0;
  }
  let hubEnv = env;
  if (values.toolsets !== undefined) {
    const narrowed = narrowedToolsets(env.CONTEXT_HUB_TOOLSETS, values.toolsets);
    if (!narrowed.ok) {
      err(`context-hub stdio: ${narrowed.message}\n`);
      return 2;
    }
    hubEnv = { ...env, CONTEXT_HUB_TOOLSETS: narrowed.names.join(",") };
  }
  // Every log line goes to stderr: a single stray byte on stdout would corrupt the client's message stream.
  const logger = createLogger("context-hub", env.LOG_LEVEL ?? "warn", process.stderr);
  const hub = await startLocalHub({
    env: hubEnv,
    logger,
    serveSocket: true,
    ...(values["data-dir"] === undefined ? {} : { dataDir: values["data-dir"] }),
  });
  const finished = new Promise<void>((resolve) => {
    process.stdin.once("end", () => resolve());
    process.stdin.once("close", () => resolve());
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  // Both protocol generations: the client's opening message (initialize, or a 2026-07-28 request) picks one.
  hub.mcp.serveStdio();
  await finished;
  await hub.close();
  return 0;
}

/**
 * The toolsets `--toolsets` leaves: a narrowing of those CONTEXT_HUB_TOOLSETS
 * offers, as a client's `?toolsets=` narrows a deployment's, never a
 * widening.
 */
function narrowedToolsets(
  offeredRaw: string | undefined,
  requested: string,
): { ok: true; names: string[] } | { ok: false; message: string } {
  const offered = parseToolsets(offeredRaw === undefined || offeredRaw.trim() === "" ? "all" : offeredRaw);
  if (!offered.ok) return { ok: false, message: `CONTEXT_HUB_TOOLSETS: ${offered.message}` };
  const narrowed = narrowToolsets(offered.names, requested);
  return narrowed.ok ? narrowed : { ok: false, message: `--toolsets: ${narrowed.message}` };
}
