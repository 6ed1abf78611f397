// Load generator: many concurrent agents over real MCP HTTP against `context-hub start` (the all-in-one server in its
// own process, its store in a supervised child), with API keys for several principals in several tenants. The mix is
// store_context (with generation: embeddings and summaries), update_context, get_context_by_ids and every search mode.
// While it runs, a cross-principal sweep inspects every result for another principal's private marker and probes
// foreign ids and markers through every read tool; any violation fails the run. Reports throughput, p50/p95/p99 per
// tool, errors, and the RSS of the server process and of the store child over time, and writes a self-contained HTML
// report (inline SVG) and a JSON file to bench/results/.
//
// Usage: node bench/load.js [--agents 16] [--tenants 3] [--per-tenant 2] [--ops 4000] [--seconds 120]
//        node bench/load.js --soak [--minutes 30] [--agents 4] [--think-ms 50]  (moderate load; fails on upward drift)
// Options: --window <s> (chart window), --html <file>, --json <file>, --memory-slope-max <MB/min>,
//          --p95-slope-max <fraction of the median p95 per minute>, --warmup-minutes <n> (left out of the slopes),
//          --entries-per-principal <n> (past it writes become updates; 150 in a soak, unbounded otherwise)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { page, lineChart, table, windowedSeries } from "./lib/html-report.js";
import { benchEnv, createPrincipals } from "./lib/keys.js";
import { createLedger, createRecorder, createSweep, runAgents, runProbes, sampleMemory } from "./lib/load-core.js";
import { rssMb, startServer } from "./lib/server.js";
import { latencySummary, quantile, round, slope } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    soak: { type: "boolean", default: false },
    minutes: { type: "string", default: "30" },
    agents: { type: "string" },
    tenants: { type: "string", default: "3" },
    "per-tenant": { type: "string", default: "2" },
    ops: { type: "string" },
    seconds: { type: "string", default: "120" },
    "think-ms": { type: "string" },
    window: { type: "string" },
    html: { type: "string" },
    json: { type: "string" },
    "memory-slope-max": { type: "string", default: "2" },
    "p95-slope-max": { type: "string", default: "0.05" },
    "warmup-minutes": { type: "string" },
    "entries-per-principal": { type: "string" },
  },
});
const soak = values.soak;
const seconds = soak ? Number(values.minutes) * 60 : Number(values.seconds);
const agents = Number(values.agents ?? (soak ? 4 : 16));
const maxOps = values.ops === undefined ? (soak ? Infinity : 4000) : Number(values.ops);
const thinkMs = Number(values["think-ms"] ?? (soak ? 50 : 0));
const windowS = Number(values.window ?? (soak ? (seconds >= 600 ? 60 : 15) : 5));
// A soak holds the corpus steady (writes become updates past the cap), so drift means the server, not a growing corpus.
const entriesPerPrincipal = Number(values["entries-per-principal"] ?? (soak ? 150 : Infinity));
const warmupS = Number(values["warmup-minutes"] ?? (soak ? Math.min(2, seconds / 60 / 5) : 0)) * 60;
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const htmlPath = values.html ?? `bench/results/${soak ? "soak" : "load"}-${stamp}.html`;
const jsonPath = values.json ?? `bench/results/${soak ? "soak" : "load"}-${stamp}.json`;
const log = (line) => process.stderr.write(`${line}\n`);

const keys = createPrincipals(Number(values.tenants), Number(values["per-tenant"]));
const dataDir = mkdtempSync(join(tmpdir(), "context-hub-load-"));
const server = await startServer({ dataDir, env: benchEnv(keys.path) });
log(
  `server ${server.url} (pid ${server.pid}, store pid ${server.storePid()}); ${agents} agents, ${keys.principals.length} principals in ${values.tenants} tenants, ≤ ${maxOps} ops, ≤ ${seconds} s`,
);

const recorder = createRecorder();
const probeRecorder = createRecorder();
const sweep = createSweep(keys.principals);
const ledger = createLedger();
const memory = sampleMemory(
  recorder,
  () => ({ server: server.pid, store: server.storePid(), loadgen: process.pid }),
  rssMb,
);
const deadline = performance.now() + seconds * 1000;
let agentsDone = false;
const shouldStop = () => performance.now() > deadline;
const progress = setInterval(
  () =>
    log(
      `${recorder.now().toFixed(0)} s: ${recorder.samples.length} calls, ${recorder.samples.filter((s) => !s.ok).length} errors, ${sweep.violations.length} violations, server ${round(rssMb(server.pid) ?? 0, 0)} MB, store ${round(rssMb(server.storePid()) ?? 0, 0)} MB`,
    ),
  soak ? 30_000 : 10_000,
);

let opsDone = 0;
let probeOutcome = { probes: 0, controlFailures: 0 };
try {
  [opsDone, probeOutcome] = await Promise.all([
    runAgents({
      url: server.url,
      principals: keys.principals,
      agents,
      recorder,
      sweep,
      ledger,
      shouldStop,
      maxOps,
      thinkMs,
      entriesPerPrincipal,
    }).finally(() => (agentsDone = true)),
    runProbes({
      url: server.url,
      principals: keys.principals,
      recorder: probeRecorder,
      sweep,
      ledger,
      shouldStop: () => agentsDone || shouldStop(),
      pauseMs: soak ? 200 : 20,
    }),
  ]);
} finally {
  clearInterval(progress);
  memory.stop();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  keys.dispose();
}

// Figures.
const elapsed = Math.max(...recorder.samples.map((s) => s.t), 1e-3);
const tools = [...new Set(recorder.samples.map((s) => s.tool))].sort();
const perTool = tools.map((tool) => {
  const ok = recorder.samples.filter((s) => s.tool === tool && s.ok).map((s) => s.ms);
  const all = recorder.samples.filter((s) => s.tool === tool);
  return {
    tool,
    calls: all.length,
    errors: all.length - ok.length,
    per_s: round(all.length / elapsed, 1),
    ...latencySummary(ok),
  };
});
const totalErrors = recorder.samples.filter((s) => !s.ok).length;
// Probes by id answer "not found" for a foreign entry by design; anything else is counted.
const probeErrors = [...probeRecorder.errors.entries()].filter(([key]) => !/ENTRY_NOT_FOUND/.test(key));
const memoryPeak = (name) => round(Math.max(...memory.series.map((p) => p[name] ?? 0)), 0);

// Drift: least-squares slopes per minute over windows after the warm-up.
const windows = new Map();
for (const sample of recorder.samples)
  if (sample.t >= warmupS && sample.ok)
    (
      windows.get(Math.floor(sample.t / windowS)) ??
      windows.set(Math.floor(sample.t / windowS), []).get(Math.floor(sample.t / windowS))
    ).push(sample.ms);
const p95Points = [...windows.entries()].map(([w, ms]) => [((w + 0.5) * windowS) / 60, quantile(ms, 0.95)]);
// Memory per window is its lowest sample (the floor after garbage collection), so GC sawtooth does not read as drift.
const memoryWindows = new Map();
for (const p of memory.series) {
  if (p.t < warmupS || p.server === null || p.store === null) continue;
  const w = Math.floor(p.t / windowS);
  memoryWindows.set(w, Math.min(memoryWindows.get(w) ?? Infinity, p.server + p.store));
}
const memoryPoints = [...memoryWindows.entries()].map(([w, mb]) => [((w + 0.5) * windowS) / 60, mb]);
const drift = {
  warmup_s: warmupS,
  window_s: windowS,
  memory_mb_per_min: round(slope(memoryPoints), 3),
  p95_ms_per_min: round(slope(p95Points), 3),
  median_window_p95_ms: round(
    quantile(
      p95Points.map(([, y]) => y),
      0.5,
    ),
  ),
  thresholds: {
    memory_mb_per_min: Number(values["memory-slope-max"]),
    p95_fraction_per_min: Number(values["p95-slope-max"]),
  },
};
const memoryDrifts = drift.memory_mb_per_min > drift.thresholds.memory_mb_per_min;
const latencyDrifts =
  drift.p95_ms_per_min > Math.max(1, drift.thresholds.p95_fraction_per_min * drift.median_window_p95_ms);
const failures = [];
if (sweep.violations.length > 0) failures.push(`${sweep.violations.length} cross-principal violation(s)`);
if (probeOutcome.controlFailures > 0)
  failures.push(`${probeOutcome.controlFailures} positive-control failure(s): an owner did not see its own marker`);
if (totalErrors > 0) failures.push(`${totalErrors} failed call(s)`);
if (probeErrors.length > 0) failures.push(`${probeErrors.length} kind(s) of unexpected probe error`);
if (soak && memoryDrifts)
  failures.push(`memory drifts up ${drift.memory_mb_per_min} MB/min (> ${drift.thresholds.memory_mb_per_min})`);
if (soak && latencyDrifts)
  failures.push(
    `p95 drifts up ${drift.p95_ms_per_min} ms/min (> ${drift.thresholds.p95_fraction_per_min} × ${drift.median_window_p95_ms} ms per min)`,
  );

const results = {
  kind: soak ? "soak" : "load",
  date: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memory_gb: round(totalmem() / 2 ** 30, 1),
    node: process.version,
  },
  settings: {
    agents,
    principals: keys.principals.length,
    tenants: Number(values.tenants),
    max_ops: maxOps,
    seconds,
    think_ms: thinkMs,
    entries_per_principal: entriesPerPrincipal,
  },
  elapsed_s: round(elapsed, 1),
  calls: recorder.samples.length,
  ops_started: opsDone,
  throughput_per_s: round(recorder.samples.length / elapsed, 1),
  writes_acknowledged: ledger.entries.size,
  errors: totalErrors,
  error_kinds: Object.fromEntries(recorder.errors),
  per_tool: perTool,
  sweep: {
    results_inspected: sweep.inspected,
    probes: probeOutcome.probes,
    probe_calls: probeRecorder.samples.length,
    control_failures: probeOutcome.controlFailures,
    violations: sweep.violations,
    unexpected_probe_errors: Object.fromEntries(probeErrors),
  },
  memory_peak_mb: { server: memoryPeak("server"), store: memoryPeak("store"), loadgen: memoryPeak("loadgen") },
  drift,
  passed: failures.length === 0,
  failures,
};

// Console.
console.log(
  `${results.kind}: ${results.calls} calls in ${results.elapsed_s} s = ${results.throughput_per_s} calls/s; ${results.writes_acknowledged} entries acknowledged; ${totalErrors} errors`,
);
for (const row of perTool)
  console.log(
    `  ${row.tool.padEnd(24)} ${String(row.calls).padStart(6)} calls ${String(row.per_s).padStart(6)}/s  p50 ${row.p50} ms  p95 ${row.p95} ms  p99 ${row.p99} ms  errors ${row.errors}`,
  );
for (const [kind, count] of recorder.errors) console.log(`  error ×${count}: ${kind}`);
console.log(
  `sweep: ${sweep.inspected} results inspected, ${probeOutcome.probes} probe rounds (${probeRecorder.samples.length} calls), ${sweep.violations.length} violations, ${probeOutcome.controlFailures} control failures`,
);
console.log(
  `memory peak: server ${results.memory_peak_mb.server} MB, store ${results.memory_peak_mb.store} MB, load generator ${results.memory_peak_mb.loadgen} MB`,
);
console.log(
  `drift after ${warmupS} s warm-up (windows of ${windowS} s): memory ${drift.memory_mb_per_min} MB/min, p95 ${drift.p95_ms_per_min} ms/min (median window p95 ${drift.median_window_p95_ms} ms)`,
);
console.log(failures.length === 0 ? "PASS" : `FAIL: ${failures.join("; ")}`);

// Files.
const throughput = windowedSeries(
  recorder.samples.map((s) => ({ ...s, tool: "all calls" })),
  windowS,
  (group) => group.length / windowS,
);
const errorRate = windowedSeries(
  recorder.samples.map((s) => ({ ...s, tool: "errors" })),
  windowS,
  (group) => group.filter((s) => !s.ok).length / windowS,
);
const html = page(
  `Context Hub ${results.kind} run, ${results.date}`,
  { ok: results.passed, text: results.passed ? "PASS" : `FAIL: ${failures.join("; ")}` },
  [
    [
      "Summary",
      table([
        {
          calls: results.calls,
          seconds: results.elapsed_s,
          "calls/s": results.throughput_per_s,
          acknowledged: results.writes_acknowledged,
          errors: totalErrors,
          violations: sweep.violations.length,
          "probe rounds": probeOutcome.probes,
          agents,
          principals: keys.principals.length,
        },
      ]),
    ],
    ["Latency per tool (ms, successful calls)", table(perTool)],
    [
      "p95 latency per tool over time",
      lineChart(
        windowedSeries(
          recorder.samples.filter((s) => s.ok),
          windowS,
          (group) =>
            quantile(
              group.map((s) => s.ms),
              0.95,
            ),
        ),
        { title: `p95 per ${windowS} s window`, yLabel: "ms" },
      ),
    ],
    [
      "Throughput and errors",
      lineChart([...throughput, ...errorRate], { title: "calls per second", yLabel: "calls/s" }),
    ],
    [
      "Memory (RSS)",
      lineChart(
        ["server", "store", "loadgen"].map((name) => ({ name, points: memory.series.map((p) => [p.t, p[name]]) })),
        { title: "resident memory", yLabel: "MB" },
      ),
    ],
    ["Drift", `<pre>${JSON.stringify(drift, null, 2)}</pre>`],
    ["Errors", table([...recorder.errors.entries()].map(([kind, count]) => ({ kind, count })))],
    ["Cross-principal sweep", `<pre>${JSON.stringify(results.sweep, null, 2).slice(0, 20_000)}</pre>`],
    ["Machine", `<pre>${JSON.stringify({ ...results.machine, settings: results.settings }, null, 2)}</pre>`],
  ],
);
mkdirSync(dirname(htmlPath), { recursive: true });
writeFileSync(htmlPath, html);
mkdirSync(dirname(jsonPath), { recursive: true });
writeFileSync(jsonPath, JSON.stringify({ ...results, memory_series: memory.series }, null, 2));
console.log(`report: ${htmlPath}\njson: ${jsonPath}`);
process.exitCode = results.passed ? 0 : 1;
