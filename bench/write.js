// Write benchmark on the embedded default: end-to-end store_context latency over MCP with 1 and 16
// concurrent clients, broken down by stage, next to the raw floor measured in the same run: one
// INSERT … COMMIT of an equal row (entry + chunk vector) straight through PGlite.
//
// Usage: node bench/write.js [--writes 1000] [--clients 1,16] [--with-index] [--clients-nice 19] [--json bench/results/write.json]
// With DATABASE_URL set, the store and the floor use that PostgreSQL server instead of PGlite.
// --with-index measures a store whose embedding space has its HNSW graph, as every store has once it holds 2,000 chunks
// (STORE_VECTOR_EXACT_BELOW): the warm-up writes that many, a semantic search then waits until the graph answers, and
// every write measured also inserts its chunk vectors into the graph. On PGlite the graph is the store's in-process
// one (the embedded default, STORE_VECTOR_BACKEND=graph); with STORE_VECTOR_BACKEND=pgvector, or on a PostgreSQL
// server, it is pgvector's HNSW index, which the search has the store build (and refresh its planner statistics).
// Without it the store is started with STORE_HNSW_BUILD=false, so it has no graph however long the run.
// --clients-nice N (Linux) lowers the priority of this process, and so of its MCP clients, to niceness N once the
// server has started: the clients then take the CPU the server leaves idle, a stand-in for clients on other machines
// (the server keeps the default priority). Without it everything runs at the same priority.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { setPriority, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLogger, contentHash } from "@context-hub/common";
import { openDatabase } from "@context-hub/store";
import { createUuidV7, defaultSearchConfig, openSearch } from "@context-hub/store/testing";
import { embedText, loadWordVectors, toDefaultCacheDir } from "@context-hub/text";
import { builtinDimension, builtinEmbedOptions, builtinModel, sizedNote } from "./retrieval-data.js";

const { values } = parseArgs({
  options: {
    writes: { type: "string", default: "1000" },
    clients: { type: "string", default: "1,16" },
    "with-index": { type: "boolean", default: false },
    "clients-nice": { type: "string", default: "0" },
    json: { type: "string" },
  },
});
const writesPerRun = Number(values.writes);
const clientCounts = values.clients.split(",").map(Number);
const clientsNice = Number(values["clients-nice"]);
if (!Number.isInteger(clientsNice) || clientsNice < 0 || clientsNice > 19)
  throw new Error(`--clients-nice takes a niceness from 0 to 19, not ${values["clients-nice"]}`);
const bin = fileURLToPath(new URL("../bin/context-hub.js", import.meta.url));

/**
 * A 1 KB note (a heading and sentences) from the retrieval corpus's generator: thirty topics' vocabularies, so the
 * notes' vectors spread as real notes' do. Near-identical notes would make every HNSW insert far dearer than real
 * traffic does (docs/performance.md).
 */
const text = (index) => sizedNote(index, 1024);

/**
 * CPU seconds a process has used so far (Linux /proc; undefined elsewhere). Per-store CPU of the
 * store process and of the main process (gateway and workers) bounds throughput on dedicated cores
 * and, unlike stores/s, barely moves when other work shares the machine.
 */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** The machine's busy and total CPU ticks so far, over all cores (Linux /proc/stat; undefined elsewhere). */
function machineTicks() {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + (fields[4] ?? 0);
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far by every PostgreSQL server process on this machine (a DATABASE_URL run's database side). */
function postgresCpuSeconds() {
  let total = 0;
  try {
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        if (stat.includes("(postgres)")) total += cpuSeconds(Number(name)) ?? 0;
      } catch {
        // The process ended while we looked.
      }
    }
  } catch {
    return undefined;
  }
  return total;
}

/** The pid of the server's store child process (`context-hub start` runs the store apart). */
function storePid(parent) {
  try {
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1].split(" ");
        if (stat[1] === String(parent) && readFileSync(`/proc/${name}/cmdline`, "utf8").includes("store"))
          return Number(name);
      } catch {
        // The process ended while we looked.
      }
    }
  } catch {
    // No /proc.
  }
  return undefined;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (value) => Number(value.toFixed(2));

function startServer(dataDir, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "start", "--port", "0", "--data-dir", dataDir], {
      env: { ...process.env, LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const match = /ready in [\d.]+s: (http:\/\/\S+\/mcp)/.exec(output);
      if (match) resolve({ child, url: match[1] });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}

async function connect(url) {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The gateway's write-stage histograms (successful stages), as cumulative bucket counts, sum and count per stage. */
async function stageHistograms(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const stages = {};
  for (const line of text.split("\n")) {
    const bucket =
      /^contexthub_write_stage_seconds_bucket\{le="([^"]+)",stage="(\w+)",outcome="ok"\} (\d+)/.exec(line) ??
      /^contexthub_write_stage_seconds_bucket\{stage="(\w+)",outcome="ok",le="([^"]+)"\} (\d+)/.exec(line);
    const sum = /^contexthub_write_stage_seconds_sum\{stage="(\w+)",outcome="ok"\} ([\d.e+-]+)/.exec(line);
    const count = /^contexthub_write_stage_seconds_count\{stage="(\w+)",outcome="ok"\} (\d+)/.exec(line);
    if (bucket) {
      const [le, stage] =
        bucket[1].includes(".") || bucket[1] === "+Inf" ? [bucket[1], bucket[2]] : [bucket[2], bucket[1]];
      (stages[stage] ??= { buckets: new Map(), sum: 0, count: 0 }).buckets.set(
        le === "+Inf" ? Infinity : Number(le),
        Number(bucket[3]),
      );
    }
    if (sum) (stages[sum[1]] ??= { buckets: new Map(), sum: 0, count: 0 }).sum = Number(sum[2]);
    if (count) (stages[count[1]] ??= { buckets: new Map(), sum: 0, count: 0 }).count = Number(count[2]);
  }
  return stages;
}

/** Mean and approximate median of each write stage over the writes between two snapshots of the histograms. */
function stageFigures(after, before) {
  const result = {};
  for (const [stage, late] of Object.entries(after)) {
    const early = before[stage] ?? { buckets: new Map(), sum: 0, count: 0 };
    const count = late.count - early.count;
    if (count <= 0) continue;
    const half = count / 2;
    let previous = [0, 0];
    let median = NaN;
    for (const [le, cumulative] of [...late.buckets]
      .map(([bound, total]) => [bound, total - (early.buckets.get(bound) ?? 0)])
      .sort((a, b) => a[0] - b[0])) {
      if (cumulative >= half) {
        median =
          le === Infinity
            ? previous[0]
            : previous[0] + ((half - previous[1]) / Math.max(1, cumulative - previous[1])) * (le - previous[0]);
        break;
      }
      previous = [le, cumulative];
    }
    result[stage] = { count, mean_ms: ms(((late.sum - early.sum) / count) * 1000), p50_ms_approx: ms(median * 1000) };
  }
  return result;
}

/** Asks for a semantic search until the store answers it from the HNSW index (the first one starts the build). */
async function awaitVectorIndex(url) {
  const client = await connect(url);
  try {
    for (let attempt = 0; attempt < 600; attempt++) {
      const result = await client.callTool({
        name: "semantic_search_context",
        arguments: { query: "turbine blade inspection" },
      });
      if (result.structuredContent?.strategy === "ann") return;
      await new Promise((wait) => setTimeout(wait, 100));
    }
    throw new Error("the store's vector graph did not answer within a minute");
  } finally {
    await client.close();
  }
}

async function runLoad(url, clients, writes, offset) {
  const connections = await Promise.all(Array.from({ length: clients }, () => connect(url)));
  const latencies = [];
  let next = 0;
  const began = performance.now();
  await Promise.all(
    connections.map(async (client) => {
      while (next < writes) {
        const index = offset + next++;
        const started = performance.now();
        const result = await client.callTool({
          name: "store_context",
          arguments: { thread_id: `bench-${index % 50}`, source: index % 2 ? "agent" : "user", text: text(index) },
        });
        if (result.isError) throw new Error(`store_context failed: ${JSON.stringify(result.content)}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  await Promise.all(connections.map((client) => client.close()));
  latencies.sort((a, b) => a - b);
  return {
    clients,
    writes,
    throughput_per_s: Number((writes / seconds).toFixed(1)),
    p50_ms: ms(quantile(latencies, 0.5)),
    p95_ms: ms(quantile(latencies, 0.95)),
    p99_ms: ms(quantile(latencies, 0.99)),
  };
}

/**
 * The floor: the same row and chunk vector inserted and committed directly through PGlite, into the store's schema —
 * with the same HNSW index on the chunks when the server was measured with one.
 */
async function rawFloor(rows, withIndex) {
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-floor-"));
  const logger = createLogger("floor", "silent");
  const database = await openDatabase({ url: process.env.DATABASE_URL ?? "", dataDir, poolMax: 1 }, logger);
  // The built-in model's vector of the row's text, as the server stores (an HNSW insert's cost depends on its neighbours).
  const wordVectors = await loadWordVectors(toDefaultCacheDir(process.env));
  const components = (body) =>
    Array.from(embedText(body, wordVectors, builtinEmbedOptions), (x) => x.toFixed(6)).join(",");
  // pgvector's literal, or a real[] one on a server without pgvector.
  const vectorOf = (body) => (database.vectorType === "pgvector" ? `[${components(body)}]` : `{${components(body)}}`);
  const latencies = [];
  try {
    // With the in-process graph, the floor's commit is followed by the same graph insert the store makes after its own.
    const graph =
      withIndex && vectorBackend === "graph"
        ? await openSearch(database, defaultSearchConfig, logger, "apply", { kind: "graph", qdrant: undefined })
        : undefined;
    if (withIndex && graph === undefined) {
      const search = await openSearch(
        database,
        { ...defaultSearchConfig, vectors: { ...defaultSearchConfig.vectors, buildIndexes: false } },
        logger,
      );
      await search.vectors.buildIndex(builtinModel, builtinDimension);
      await search.close();
    }
    for (let index = 0; index < rows; index++) {
      const body = text(1_000_000 + index);
      const vector = vectorOf(body);
      const embedding = graph === undefined ? undefined : Array.from(embedText(body, wordVectors, builtinEmbedOptions));
      const id = createUuidV7();
      const chunkId = createUuidV7();
      const started = performance.now();
      await database.transaction(async (tx) => {
        await tx.query(
          "INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash, summary) VALUES ($1, 'local', $2, 'agent', 'local', 'private', $3, $4, $5, $6, '')",
          [id, `floor-${index % 50}`, body, body.length, body.slice(0, 300), contentHash(body)],
        );
        // The embedder's own model, so a PostgreSQL run leaves no second embedding space behind in the shared database.
        await tx.query(
          "INSERT INTO chunks (id, entry_id, tenant, ordinal, start_offset, end_offset, embedding_model, embedding) VALUES ($1, $2, 'local', 0, 0, $3, $4, $5)",
          [chunkId, id, body.length, builtinModel, vector],
        );
      });
      if (graph !== undefined && index === 0) await graph.vectors.buildIndex(builtinModel, builtinDimension);
      else graph?.vectors.chunksCommitted?.([{ id: chunkId, model: builtinModel, vector: embedding }]);
      latencies.push(performance.now() - started);
    }
    await graph?.close();
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  latencies.sort((a, b) => a - b);
  return { rows, p50_ms: ms(quantile(latencies, 0.5)), p95_ms: ms(quantile(latencies, 0.95)) };
}

/**
 * Sets every thread of this process to `niceness` (on Linux a niceness belongs to a thread; threads started later
 * inherit it from the one starting them). The server was spawned before, so it keeps the default.
 */
function lowerOwnPriority(niceness) {
  for (const thread of readdirSync("/proc/self/task")) {
    try {
      setPriority(Number(thread), niceness);
    } catch (error) {
      // A thread that ended since the listing has no priority to lower.
      if (error.info?.code !== "ESRCH") throw error;
    }
  }
}

/** What the server's vectors live in: the store's in-process graph on PGlite unless told otherwise, as `context-hub start` decides. */
const vectorBackend = process.env.STORE_VECTOR_BACKEND ?? (process.env.DATABASE_URL ? "pgvector" : "graph");
const dataDir = mkdtempSync(join(tmpdir(), "context-hub-write-bench-"));
// With the index, every search is asked to use it (no exact comparison below a size), so its use can be observed.
// Without it, the store is told not to build one: it would otherwise build it a minute after the first write, and a
// long run would be measured partly with the index and partly without.
const server = await startServer(dataDir, values["with-index"] ? {} : { STORE_HNSW_BUILD: "false" });
if (clientsNice > 0) lowerOwnPriority(clientsNice);
const results = {
  machine: { cpus: (await import("node:os")).cpus().length, node: process.version },
  text_bytes: 1024,
  with_hnsw_index: values["with-index"],
  vector_backend: vectorBackend,
  clients_nice: clientsNice,
  runs: [],
};
try {
  // Warm-up: 400 writes from 16 clients, so the JIT has compiled the hot paths before anything is measured
  // (with a few dozen, the first seconds of the 16-client run still paid for compilation); with the index, the
  // 2,000 chunks a store holds before it builds one.
  await runLoad(server.url, 16, values["with-index"] ? 2_000 : 400, 10_000_000);
  if (values["with-index"]) await awaitVectorIndex(server.url);
  let offset = 0;
  for (const clients of clientCounts) {
    const before = await stageHistograms(server.url.replace(/\/mcp$/, "/metrics"));
    const store = storePid(server.child.pid);
    const cpuBefore = [cpuSeconds(server.child.pid), store === undefined ? undefined : cpuSeconds(store)];
    // The MCP clients run in this process and share the machine's cores with the server, so their CPU is reported too.
    const clientCpuBefore = process.cpuUsage();
    const ticksBefore = machineTicks();
    const databaseCpuBefore = process.env.DATABASE_URL ? postgresCpuSeconds() : undefined;
    const run = await runLoad(server.url, clients, writesPerRun, offset);
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const ticksAfter = machineTicks();
    const databaseCpuAfter = process.env.DATABASE_URL ? postgresCpuSeconds() : undefined;
    const cpuAfter = [cpuSeconds(server.child.pid), store === undefined ? undefined : cpuSeconds(store)];
    const perStore = (index) =>
      cpuBefore[index] === undefined || cpuAfter[index] === undefined
        ? undefined
        : ms(((cpuAfter[index] - cpuBefore[index]) / writesPerRun) * 1000);
    run.cpu_ms_per_store = {
      store_process: perStore(1),
      gateway_and_workers: perStore(0),
      mcp_clients: ms((clientCpu.user + clientCpu.system) / 1000 / writesPerRun),
    };
    if (databaseCpuBefore !== undefined && databaseCpuAfter !== undefined)
      run.cpu_ms_per_store.postgres_server = ms(((databaseCpuAfter - databaseCpuBefore) / writesPerRun) * 1000);
    // Derived, not measured: what the server's own CPU per store would allow on two cores that ran nothing else.
    const serverParts = [
      run.cpu_ms_per_store.store_process,
      run.cpu_ms_per_store.gateway_and_workers,
      run.cpu_ms_per_store.postgres_server ?? 0,
    ];
    if (serverParts.every((part) => part !== undefined)) {
      run.server_cpu_ms_per_store = ms(serverParts.reduce((sum, part) => sum + part, 0));
      run.server_alone_two_cores_per_s = ms(2000 / run.server_cpu_ms_per_store);
    }
    if (ticksBefore !== undefined && ticksAfter !== undefined)
      run.machine_busy_percent = ms(
        (100 * (ticksAfter.busy - ticksBefore.busy)) / (ticksAfter.total - ticksBefore.total),
      );
    offset += writesPerRun;
    // This run's writes only: the warm-up and earlier runs are subtracted.
    run.stages = stageFigures(await stageHistograms(server.url.replace(/\/mcp$/, "/metrics")), before);
    results.runs.push(run);
    console.log(
      `${clients} client(s)${clientsNice > 0 ? ` at niceness ${clientsNice}` : ""}: ${run.throughput_per_s} stores/s, p50 ${run.p50_ms} ms, p95 ${run.p95_ms} ms, p99 ${run.p99_ms} ms; CPU per store: store process ${run.cpu_ms_per_store.store_process ?? "?"} ms, gateway and workers ${run.cpu_ms_per_store.gateway_and_workers ?? "?"} ms, MCP clients ${run.cpu_ms_per_store.mcp_clients} ms${run.cpu_ms_per_store.postgres_server === undefined ? "" : `, PostgreSQL server ${run.cpu_ms_per_store.postgres_server} ms`}` +
        (run.server_cpu_ms_per_store === undefined
          ? ""
          : `; the server's own ${run.server_cpu_ms_per_store} ms per store would allow at most ${run.server_alone_two_cores_per_s} stores/s on two cores of its own`) +
        (run.machine_busy_percent === undefined ? "" : `; cores ${run.machine_busy_percent} % busy`),
    );
  }
} finally {
  server.child.kill("SIGINT");
  await new Promise((resolve) => server.child.once("exit", resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
results.floor = await rawFloor(200, values["with-index"]);
// The latency target is one client's: without a 1-client run there is no ratio to report.
const singleClient = results.runs.find((run) => run.clients === 1);
const stages = (singleClient ?? results.runs[0])?.stages ?? {};
const generation = Math.max(stages.embed?.p50_ms_approx ?? 0, stages.summarize?.p50_ms_approx ?? 0);
results.target = {
  generation_p50_ms: generation,
  floor_p50_ms: results.floor.p50_ms,
  single_client_p50_ms: singleClient?.p50_ms,
  ratio_to_floor_plus_generation:
    singleClient === undefined ? undefined : ms(singleClient.p50_ms / (results.floor.p50_ms + generation)),
};
console.log(
  `raw floor (INSERT entry + chunk, COMMIT, ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}${values["with-index"] ? (vectorBackend === "graph" ? ", then the chunk into the store's in-process graph" : ", HNSW index on the chunks") : ""}): p50 ${results.floor.p50_ms} ms, p95 ${results.floor.p95_ms} ms`,
);
console.log(
  `stages of the ${(singleClient ?? results.runs[0])?.clients ?? 1}-client run (approx p50 / mean, ms): ${Object.entries(
    stages,
  )
    .map(([stage, f]) => `${stage} ${f.p50_ms_approx}/${f.mean_ms}`)
    .join(", ")}`,
);
console.log(
  singleClient === undefined
    ? "single-client p50 / (floor + generation): no 1-client run (--clients 1,16 gives it)"
    : `single-client p50 / (floor + generation) = ${results.target.ratio_to_floor_plus_generation} (target ≤ 3)`,
);
if (values.json) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(values.json, JSON.stringify(results, null, 2));
}
