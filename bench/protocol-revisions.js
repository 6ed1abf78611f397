// What a tool call costs the server on each MCP generation: `context-hub start` in its own process, one SDK 1.x client
// (revision 2025-11-25, the gateway's own transport) and one SDK v2 client pinned to 2026-07-28 (the SDK v2 handler),
// calling `whoami` in alternating rounds. Reports, per round and as medians, the server process's CPU per call (from
// /proc, the gateway's process only: the store runs in its own child) and the median latency, and the ratio of the
// 2026-07-28 medians to the 2025 ones.
//
// Usage: node bench/protocol-revisions.js [--rounds 3] [--calls 1000]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { startServer } from "./lib/server.js";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "3" }, calls: { type: "string", default: "1000" } },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);

/** User plus system CPU of a process so far, in microseconds (/proc/<pid>/stat counts clock ticks of 10 ms). */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One round of `calls` sequential whoami calls: the server's CPU per call (µs) and the median latency (ms). */
async function round(client, pid) {
  const latencies = [];
  const before = cpuMicros(pid);
  for (let index = 0; index < calls; index += 1) {
    const start = performance.now();
    const result = await client.callTool({ name: "whoami", arguments: {} });
    if (result.isError) throw new Error(`whoami failed: ${JSON.stringify(result.content)}`);
    latencies.push(performance.now() - start);
  }
  return { cpu: (cpuMicros(pid) - before) / calls, latency: median(latencies) };
}

const dataDir = mkdtempSync(join(tmpdir(), "context-hub-protocol-bench-"));
const server = await startServer({ dataDir, env: { CONTEXT_HUB_AUTH: "none" } });
try {
  const legacy = new Client({ name: "bench-2025", version: "0" });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const modern = new ModernClient(
    { name: "bench-2026", version: "0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await modern.connect(new ModernTransport(new URL(server.url)));
  const clients = { "2025-11-25": legacy, "2026-07-28": modern };
  // Warm both paths (JIT, schema caches) before anything is counted.
  for (const client of Object.values(clients))
    for (let index = 0; index < 200; index += 1) await client.callTool({ name: "whoami", arguments: {} });
  const results = { "2025-11-25": [], "2026-07-28": [] };
  for (let index = 0; index < rounds; index += 1) {
    for (const [revision, client] of Object.entries(clients)) {
      const measured = await round(client, server.pid);
      results[revision].push(measured);
      console.log(
        `round ${index + 1} ${revision}: ${measured.cpu.toFixed(0)} µs server CPU per call, median latency ${measured.latency.toFixed(2)} ms`,
      );
    }
  }
  const summary = Object.fromEntries(
    Object.entries(results).map(([revision, list]) => [
      revision,
      { cpu: median(list.map((one) => one.cpu)), latency: median(list.map((one) => one.latency)) },
    ]),
  );
  for (const [revision, { cpu, latency }] of Object.entries(summary))
    console.log(`median ${revision}: ${cpu.toFixed(0)} µs server CPU per call, ${latency.toFixed(2)} ms latency`);
  console.log(
    `2026-07-28 / 2025-11-25: CPU ×${(summary["2026-07-28"].cpu / summary["2025-11-25"].cpu).toFixed(2)}, latency ×${(summary["2026-07-28"].latency / summary["2025-11-25"].latency).toFixed(2)}`,
  );
  await legacy.close();
  await modern.close();
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
