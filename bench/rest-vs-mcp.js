// What the REST face costs beside the MCP face for the same work: `context-hub start` in its own process, a few hundred
// entries stored, then get-by-id (GET /api/v1/entries/{id} against tools/call get_context_by_ids) and hybrid search
// (POST /api/v1/search/hybrid against tools/call hybrid_search_context) with the same arguments, in alternating blocks of calls.
// Both faces are called with plain fetch (one JSON POST per MCP call, stateless, as the gateway serves the 2025
// revisions), so the difference is the server's. Reports per operation and face the median latency and the gateway
// process's CPU per call (from /proc; the store runs in its own child), the REST/MCP ratios and the host's load average.
//
// Usage: node bench/rest-vs-mcp.js [--rounds 3] [--calls 300] [--entries 300] [--block 20] [--json]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { startServer } from "./lib/server.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    calls: { type: "string", default: "300" },
    entries: { type: "string", default: "300" },
    block: { type: "string", default: "20" },
    json: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const entryCount = Number(values.entries);
const block = Number(values.block);

/** User plus system CPU of a process so far, in microseconds (/proc/<pid>/stat counts clock ticks of 10 ms). */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const topics = ["falcon launch", "range safety", "weather window", "fuel loading", "telemetry check", "crew brief"];

async function rest(base, method, path, body) {
  const response = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await response.json();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function mcp(url, name, args) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = await response.json();
  if (body.result === undefined || body.result.isError) throw new Error(`${name}: ${JSON.stringify(body)}`);
  return body.result.structuredContent;
}

const dataDir = mkdtempSync(join(tmpdir(), "context-hub-rest-bench-"));
const server = await startServer({ dataDir, env: { CONTEXT_HUB_AUTH: "none" } });
try {
  const base = new URL(server.url).origin;
  const ids = [];
  for (let start = 0; start < entryCount; start += 100) {
    const entries = Array.from({ length: Math.min(100, entryCount - start) }, (_, offset) => {
      const index = start + offset;
      const topic = topics[index % topics.length];
      return {
        thread_id: `bench-${index % 10}`,
        source: "user",
        text: `Note ${index} on the ${topic}: step ${index % 7} of the checklist, owner team ${index % 5}.`,
      };
    });
    const stored = await rest(base, "POST", "/entries/batch", { entries });
    ids.push(...stored.results.map((result) => result.context_id));
  }
  const search = { query: "falcon launch weather window", limit: 10 };
  const series = {
    "get-by-id REST": (index) => rest(base, "GET", `/entries/${ids[index % ids.length]}`),
    "get-by-id MCP": (index) => mcp(server.url, "get_context_by_ids", { context_ids: [ids[index % ids.length]] }),
    "hybrid search REST": () => rest(base, "POST", "/search/hybrid", search),
    "hybrid search MCP": () => mcp(server.url, "hybrid_search_context", search),
  };
  // Warm both faces up (JIT, connection pools, caches) before anything is timed.
  for (const run of Object.values(series)) for (let index = 0; index < 30; index += 1) await run(index);

  // Blocks of a few calls per series, cycling through the series, so a busy host's changing load falls on all four
  // alike; each block's CPU is counted to its series.
  const results = Object.fromEntries(Object.keys(series).map((name) => [name, { latency: [], cpu: [] }]));
  const loads = [];
  for (let roundIndex = 0; roundIndex < rounds; roundIndex += 1) {
    loads.push(loadavg()[0]);
    const round = Object.fromEntries(Object.keys(series).map((name) => [name, { latencies: [], cpu: 0 }]));
    for (let done = 0; done < calls; done += block) {
      for (const [name, run] of Object.entries(series)) {
        const before = cpuMicros(server.pid);
        for (let index = done; index < Math.min(calls, done + block); index += 1) {
          const start = performance.now();
          await run(index);
          round[name].latencies.push(performance.now() - start);
        }
        round[name].cpu += cpuMicros(server.pid) - before;
      }
    }
    for (const [name, { latencies, cpu }] of Object.entries(round)) {
      results[name].latency.push(median(latencies));
      results[name].cpu.push(cpu / calls);
    }
  }
  const summary = Object.fromEntries(
    Object.entries(results).map(([name, { latency, cpu }]) => [
      name,
      { medianLatencyMs: median(latency), cpuMicrosPerCall: median(cpu) },
    ]),
  );
  const ratio = (operation, field) => summary[`${operation} REST`][field] / summary[`${operation} MCP`][field];
  const report = {
    rounds,
    calls,
    entries: entryCount,
    loadAverage1m: { min: Math.min(...loads), max: Math.max(...loads) },
    summary,
    restOverMcp: Object.fromEntries(
      ["get-by-id", "hybrid search"].map((operation) => [
        operation,
        { latency: ratio(operation, "medianLatencyMs"), cpu: ratio(operation, "cpuMicrosPerCall") },
      ]),
    ),
  };
  if (values.json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log(`${rounds} rounds of ${calls} calls over ${entryCount} entries; load average ${loads.join(", ")}`);
    for (const [name, { medianLatencyMs, cpuMicrosPerCall }] of Object.entries(summary))
      console.log(`${name.padEnd(20)} ${medianLatencyMs.toFixed(2)} ms  ${Math.round(cpuMicrosPerCall)} µs CPU/call`);
    for (const [operation, { latency, cpu }] of Object.entries(report.restOverMcp))
      console.log(`${operation}: REST/MCP latency ×${latency.toFixed(2)}, CPU ×${cpu.toFixed(2)}`);
  }
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
