// The context-hub command: `start` runs everything on one machine; other commands manage a deployment.
import { parseArgs } from "node:util";
import { startTracing } from "@context-hub/common";
import { startAllInOne, type AllInOne } from "./all-in-one.js";
import { runBridgeCommand } from "./bridge-command.js";
import { keysUsage, runKeysCommand } from "./keys-command.js";
import { runPurgeCommand } from "./purge-command.js";
import { runAuditCommand } from "./audit-command.js";
import { runSmokeCommand } from "./smoke-command.js";
import { runReembedCommand } from "./reembed-command.js";
import { runBackfillMemoriesCommand } from "./backfill-memories-command.js";
import { runReindexCommand } from "./reindex-command.js";
import { runStdioCommand } from "./stdio-command.js";
import { runExportCommand, runImportCommand } from "./transfer-command.js";
import { runInitCommand } from "./init-command.js";

const usage = `Usage: context-hub <command> [options]

Commands:
  start     Run all services on this machine (PGlite, built-in models, auth off)
            --port <n>        gateway port (default 8080, or GATEWAY_PORT)
            --host <addr>     gateway address (default 127.0.0.1)
            --data-dir <dir>  PGlite data directory (default .context-hub/data, or STORE_DATA_DIR)
  stdio     Run everything in this process and serve MCP on stdin/stdout, for clients that
            launch local servers: [--data-dir <dir>] [--toolsets <list>] (one local user, no MCP port)
  init      Set a project up for a client: init claude-code [--url <mcp url> | --stdio] [--save-prompts]
            (.mcp.json, session hooks and a skill; see \`context-hub init --help\`)
  keys      Create, list and revoke API keys (see \`context-hub keys help\`)
  purge     Erase the kept versions of entries deleted long ago: --older-than <days> [--dry-run]
  audit     Check the audit log's hash chains: audit verify [--tenant <t>] [--json]
  reembed   Re-embed stored chunks after an embedding model change (server stopped): [--batch-size <n>] [--dry-run]
  backfill-memories
            Give memories stored before schema 20 the mirror entry search finds them by
            (generated as a put would; idempotent): [--batch-size <n>] [--dry-run]
  reindex   Rebuild the Qdrant collections from PostgreSQL's chunks: [--batch-size <n>] [--recreate] [--restart]
  export    Write the store as JSON Lines on stdout: [--tenant <t>] [--since <ISO time>] [--data-dir <dir>] > file
  import    Restore an export file, keeping ids (importing twice changes nothing): <file> [--data-dir <dir>]
  smoke     Check a running server end to end: --url <mcp url> [--insecure] (key in CONTEXT_HUB_TOKEN)
  bridge    Serve MCP on stdio, forwarding to a remote server: --url <mcp url> [--insecure] (key in CONTEXT_HUB_TOKEN)
  help      Show this text

${keysUsage}`;

async function start(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { port: { type: "string" }, host: { type: "string" }, "data-dir": { type: "string" } },
    strict: true,
  });
  // Signals are handled from the first moment: a Ctrl-C during start-up stops whatever has started.
  const running: { hub?: AllInOne } = {};
  // Traces are exported only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const tracing = startTracing("context-hub", process.env);
  let stopRequested = false;
  const stop = () => {
    if (stopRequested) return;
    stopRequested = true;
    if (running.hub === undefined) return; // start-up finishes, sees the request and stops.
    process.stdout.write("Stopping…\n");
    running.hub.close().then(
      async () => {
        await tracing?.shutdown().catch(() => undefined);
        process.exit(0);
      },
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);

  const began = performance.now();
  const hub = await startAllInOne({
    storeProcess: true,
    ...(values.port === undefined ? {} : { port: Number(values.port) }),
    ...(values.host === undefined ? {} : { host: values.host }),
    ...(values["data-dir"] === undefined ? {} : { dataDir: values["data-dir"] }),
  });
  running.hub = hub;
  if (stopRequested) {
    stopRequested = false;
    stop();
    return;
  }
  const seconds = ((performance.now() - began) / 1000).toFixed(1);
  process.stdout.write(
    [
      "",
      `Context Hub is ready in ${seconds}s: ${hub.url}`,
      "",
      "Claude Code:",
      `  claude mcp add --transport http context-hub ${hub.url}`,
      "",
      "Cursor, VS Code and other MCP clients (mcp.json):",
      JSON.stringify({ mcpServers: { "context-hub": { type: "http", url: hub.url } } }, null, 2)
        .split("\n")
        .map((line) => `  ${line}`)
        .join("\n"),
      "",
      "Press Ctrl-C to stop.",
      "",
    ].join("\n"),
  );
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case "start":
      await start(rest);
      return;
    case "stdio":
      process.exitCode = await runStdioCommand(rest, process.env, (text) => process.stderr.write(text));
      return;
    case "init":
      process.exitCode = runInitCommand(
        rest,
        (text) => process.stdout.write(text),
        (text) => process.stderr.write(text),
      );
      return;
    case "bridge":
      process.exitCode = await runBridgeCommand(rest, process.env, (text) => process.stderr.write(text));
      return;
    case "smoke":
      process.exitCode = await runSmokeCommand(
        rest,
        process.env,
        (text) => process.stdout.write(text),
        (text) => process.stderr.write(text),
      );
      return;
    case "keys":
      process.exitCode = await runKeysCommand(rest, process.env, (text) => process.stdout.write(text));
      return;
    case "purge":
      process.exitCode = await runPurgeCommand(rest, process.env, (text) => process.stdout.write(text));
      return;
    case "audit":
      process.exitCode = await runAuditCommand(rest, process.env, (text) => process.stdout.write(text));
      return;
    case "reindex":
      process.exitCode = await runReindexCommand(rest, process.env, (text) => process.stdout.write(text));
      return;
    case "export":
      process.exitCode = await runExportCommand(rest, process.env, process.stdout);
      return;
    case "import":
      process.exitCode = await runImportCommand(rest, process.env, (text) => process.stdout.write(text));
      return;
    case "reembed":
    case "backfill-memories": {
      // Ctrl-C (or SIGTERM) stops after the batch in flight commits; a second one stops at once.
      const stop = new AbortController();
      const onSignal = () => {
        if (stop.signal.aborted) process.exit(130);
        process.stderr.write("\nStopping after the current batch…\n");
        stop.abort();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      const run = command === "reembed" ? runReembedCommand : runBackfillMemoriesCommand;
      process.exitCode = await run(rest, process.env, (text) => process.stdout.write(text), { signal: stop.signal });
      return;
    }
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(usage);
      return;
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${usage}`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
