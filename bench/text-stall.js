// Text-stall benchmark: can one hostile write stall everyone else? Against `context-hub start` (the all-in-one
// process: gateway, embedder, summarizer and reranker in one process, the store in a supervised child), one client
// sends store_context with the worst inputs known for the text functions, each at the 1,000,000-character limit, while
// another client keeps reading. For each input it measures how long the write took and how it ended (stored, or
// refused with TEXT_BUDGET_EXCEEDED naming the stage), and the reader's latency during the write against its latency
// on the idle server, measured just before. A write that leaves fewer than --min-reads (100) reads beside it is
// repeated, each time in a new thread, until that many have run, so the p95 is not the slowest of twenty.
//
// Passes when every hostile write completes or is refused within --write-limit-ms (2000), the legitimate text is
// stored, and the reader's p95 during each write stays within --ratio-limit (2) times its idle p95.
//
// Where each write's time went comes from the gateway's own write-stage histogram (`contexthub_write_stage_seconds` on
// /metrics), read before and after the write: validate, dedup_check, embed, summarize (the two generation legs run in
// parallel), commit (the store's call: its screen and full-text vector, then the transaction) and total. The reader's
// calls are not writes, so they do not count there.
//
// Usage: node bench/text-stall.js [--inputs newlines,dots,emphasis,prose,varied-prose] [--chars 1000000] [--idle-reads 300] [--min-reads 100] [--reads mixed|by-id] [--json bench/results/text-stall.json]
// With DATABASE_URL (an empty database) the hub's store keeps its entries on that PostgreSQL server instead of PGlite.
// Heading-heavy inputs: --inputs headings,long-headings,nested-headings,same-headings,hash-headings (with --chars 440000
// for 22,000 short headings, 230000 for 400 headings of 500 characters); words outside the vocabulary, none repeated:
// --inputs distinct-words.
// Environment variables reach the server (e.g. SUMMARIZER_TEXT_BUDGET_MS=1500).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { distinctWords, fillLines } from "@context-hub/common/testing";
import { startServer } from "./lib/server.js";
import { sizedNote } from "./retrieval-data.js";
import { latencySummary, quantile, round } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    inputs: { type: "string", default: "newlines,dots,emphasis,prose,varied-prose" },
    "idle-reads": { type: "string", default: "300" },
    "write-limit-ms": { type: "string", default: "2000" },
    "ratio-limit": { type: "string", default: "2" },
    chars: { type: "string", default: "1000000" },
    "min-reads": { type: "string", default: "100" },
    reads: { type: "string", default: "mixed" },
    json: { type: "string" },
  },
});
const chars = Number(values.chars);
const idleReads = Number(values["idle-reads"]);
const writeLimitMs = Number(values["write-limit-ms"]);
const ratioLimit = Number(values["ratio-limit"]);
const minReads = Number(values["min-reads"]);
if (!["mixed", "by-id"].includes(values.reads)) throw new Error(`--reads: mixed or by-id, not ${values.reads}`);
const byIdOnly = values.reads === "by-id";

/** Repeats `unit` to exactly `length` characters. */
const fill = (unit, length) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/**
 * The worst inputs known, each exactly `chars` long:
 * - newlines: long runs of newlines between screen phrases (a `\s*` after `(?:^|\n)` spans every newline after it);
 * - dots: one run of dots (a sentence boundary pattern retried at every dot);
 * - emphasis: `**x ` repeated (an emphasis pattern looking for a closing `**` from every opening one);
 * - prose: ordinary sentences with headings, the legitimate 1M-character text every budget must let through (four
 *   sentences over and over, so most of its chunks repeat and are stored once);
 * - varied-prose: the retrieval corpus's notes, whose words never repeat in one order, so every chunk is embedded and
 *   stored;
 * and, by name, the heading-heavy inputs and distinct-words (words outside the vocabulary, none repeated).
 */
const generators = {
  newlines: () => fill(`${"\n".repeat(50_000)}system prompt: you are\n<|im_start|>system\n`, chars),
  dots: () => fill(".", chars),
  emphasis: () => fill("**x ", chars),
  // Many short headings, each on its own line (22,000 of them in about 440,000 characters).
  headings: () => fillLines(chars, (index) => `## Heading ${index}\n`),
  // Headings of 500 characters, each over a short paragraph (400 of them in about 230,000 characters).
  "long-headings": () =>
    fillLines(chars, (index) => `## ${distinctWords(index, 497)}\n\nA paragraph about it. It has two sentences.\n\n`),
  // Levels 1 to 6 over and over, each with a line of text: every heading is nested in the five before it.
  "nested-headings": () =>
    fillLines(chars, (index) => `${"#".repeat((index % 6) + 1)} Level ${index}\n\nThe text of part ${index}.\n\n`),
  // Words outside the vocabulary, none repeated: the most work per character the built-in embedding knows (each word
  // costs its own n-gram vectors).
  "distinct-words": () => fillLines(chars, (index) => `q${((index * 2_654_435_761) % 4_294_967_291).toString(36)} `),
  // One heading name repeated: every sibling after the first needs a `-N` suffix.
  "same-headings": () => fillLines(chars, () => "## Notes\n\nSome text.\n\n"),
  // Runs of `#` inside and after the heading, setext headings between them.
  "hash-headings": () =>
    fillLines(chars, (index) =>
      index % 2 === 0
        ? `## h${index} ${"#".repeat(40)} x ${"#".repeat(40)}   \n`
        : `Title ${index}\n${index % 4 === 1 ? "===" : "---"}\n\n`,
    ),
  // The retrieval corpus's notes (everyday words, a seeded order), one after another: no chunk repeats.
  "varied-prose": () => fillLines(chars, (index) => `${sizedNote(index, 4_000)}\n\n`),
  prose: () => {
    const sentences = [
      "The survey measured the flow at each gauge twice a day.",
      "We found the upstream readings drifted after heavy rain, so the team recalibrated the sensors.",
      "Results improved once the logger clocks were synchronised with the station master.",
      "Next, someone should compare the winter series with last year's baseline before the review.",
    ];
    const parts = [];
    let length = 0;
    for (let index = 0; length < chars; index++) {
      const part = index % 40 === 0 ? `\n\n## Gauge ${index / 40}\n\n` : `${sentences[index % sentences.length]} `;
      parts.push(part);
      length += part.length;
    }
    return parts.join("").slice(0, chars);
  },
};

const inputs = values.inputs.split(",").map((name) => {
  if (!(name in generators))
    throw new Error(`--inputs: unknown input ${name}; known: ${Object.keys(generators).join(", ")}`);
  return name;
});

async function connect(url) {
  const client = new Client({ name: "text-stall-bench", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  return result;
}

/** Seconds spent so far in each write stage, over every outcome, from the gateway's /metrics. */
async function stageSeconds(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const seconds = {};
  for (const line of text.split("\n")) {
    const match = /^contexthub_write_stage_seconds_sum\{([^}]*)\} ([\d.e+-]+)$/.exec(line);
    const stage = match === null ? undefined : /stage="(\w+)"/.exec(match[1])?.[1];
    if (stage !== undefined) seconds[stage] = (seconds[stage] ?? 0) + Number(match[2]);
  }
  return seconds;
}

/** Milliseconds per stage between two readings of `stageSeconds`, in the write path's order. */
function stageMs(after, before) {
  const order = ["validate", "dedup_check", "embed", "summarize", "commit", "total"];
  const stages = {};
  for (const stage of [...order, ...Object.keys(after).filter((name) => !order.includes(name))]) {
    const spent = (after[stage] ?? 0) - (before[stage] ?? 0);
    if (spent > 0) stages[stage] = round(spent * 1000, 0);
  }
  return stages;
}

const firstLine = (result) => (result.content?.[0]?.type === "text" ? result.content[0].text.split("\n")[0] : "");

/**
 * One read of another caller: by id and by semantic search in turn, as an agent browsing the store does; by id alone
 * with --reads by-id (on a PostgreSQL server without pgvector a semantic search scans every vector, which the writes
 * keep adding to, so only by-id reads compare before and after there).
 */
function reader(client, id) {
  let turn = 0;
  return async () => {
    const started = performance.now();
    const result =
      byIdOnly || turn++ % 2 === 0
        ? await call(client, "get_context_by_ids", { context_ids: [id] })
        : await call(client, "semantic_search_context", { query: "gauge calibration drift", limit: 5 });
    if (result.isError) throw new Error(`a read failed: ${firstLine(result)}`);
    return performance.now() - started;
  };
}

const dataDir = mkdtempSync(join(tmpdir(), "context-hub-text-stall-"));
const server = await startServer({ dataDir, env: { ...process.env, LOG_LEVEL: "warn" } });
const metricsUrl = server.url.replace(/\/mcp$/, "/metrics");
const results = [];
try {
  const writer = await connect(server.url);
  const readerClient = await connect(server.url);
  // Something to read: a few ordinary entries in another thread.
  let readId = "";
  for (let index = 0; index < 20; index++) {
    const stored = await call(readerClient, "store_context", {
      thread_id: "gauges",
      source: "agent",
      text: `Gauge ${index} calibration drift was ${index / 10} mm after the storm; we reset it.`,
    });
    if (stored.isError) throw new Error(`seeding failed: ${firstLine(stored)}`);
    readId = stored.structuredContent.context_id;
  }
  const read = reader(readerClient, readId);
  for (let index = 0; index < 30; index++) await read();

  for (const name of inputs) {
    const text = generators[name]();
    // Idle first, right before the write, so both figures see the same machine.
    const idle = [];
    for (let index = 0; index < idleReads; index++) idle.push(await read());

    // A short write sees few reads, and a p95 of twenty is their slowest but one: the same write is repeated (each
    // in a thread of its own, so none folds into the last) until --min-reads reads have run beside one.
    const during = [];
    const writeMs = [];
    let result;
    const stagesBefore = await stageSeconds(metricsUrl);
    for (let round = 0; round === 0 || during.length < minReads; round++) {
      let writing = true;
      const started = performance.now();
      const write = call(writer, "store_context", {
        thread_id: `stall-${name}-${round}`,
        source: "agent",
        text,
      }).finally(() => (writing = false));
      const reading = (async () => {
        while (writing) {
          const latency = await read();
          // A read that began during the write counts, even if it ends after it.
          during.push(latency);
        }
      })();
      result = await write;
      writeMs.push(performance.now() - started);
      await reading;
    }
    // Per write: the stage seconds of every repetition, divided by their number.
    const stages = Object.fromEntries(
      Object.entries(stageMs(await stageSeconds(metricsUrl), stagesBefore)).map(([stage, ms]) => [
        stage,
        Math.round(ms / writeMs.length),
      ]),
    );
    const outcome = result.isError ? firstLine(result) : `stored (${result.structuredContent.trust_state})`;
    const idleP95 = quantile(idle, 0.95);
    const duringP95 = quantile(during, 0.95);
    const ratio = duringP95 / idleP95;
    const refusedByBudget = result.isError && /^TEXT_BUDGET_EXCEEDED: /.test(outcome);
    const longestWriteMs = Math.max(...writeMs);
    // A hostile text must end (stored or refused) within the limit every time; the legitimate one must be stored,
    // however long it takes.
    const ended =
      name === "prose" ? !result.isError : (!result.isError || refusedByBudget) && longestWriteMs <= writeLimitMs;
    const pass = ended && ratio <= ratioLimit;
    const row = {
      input: name,
      chars: text.length,
      writes: writeMs.length,
      writeMs: round(longestWriteMs, 0),
      outcome,
      idle: latencySummary(idle),
      during: latencySummary(during),
      ratioP95: round(ratio),
      stages,
      pass,
    };
    results.push(row);
    console.log(
      `${name.padEnd(9)} ${text.length} chars, ${writeMs.length} writes: longest ${Math.round(longestWriteMs)} ms → ${outcome}; reader p95 ${round(idleP95)} ms idle, ${round(duringP95)} ms during (${during.length} reads), ×${round(ratio)} ${pass ? "PASS" : "FAIL"}`,
    );
    console.log(
      `${"".padEnd(9)} stages per write (ms): ${Object.entries(stages)
        .map(([stage, ms]) => `${stage} ${ms}`)
        .join(", ")}`,
    );
  }
  await writer.close();
  await readerClient.close();
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

const host = {
  cpus: availableParallelism(),
  model: cpus()[0]?.model ?? "unknown",
  loadavg: loadavg().map((value) => round(value)),
};
console.log(`host: ${host.cpus} CPUs (${host.model}), load average ${host.loadavg.join(" ")}`);
const failed = results.filter((row) => !row.pass);
console.log(
  failed.length === 0
    ? "PASS: every write completed or was refused in time, and the reader kept up"
    : `FAIL: ${failed.map((row) => row.input).join(", ")}`,
);
if (values.json !== undefined) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(
    values.json,
    JSON.stringify({ date: new Date().toISOString(), host, writeLimitMs, ratioLimit, results }, null, 2),
  );
}
process.exitCode = failed.length === 0 ? 0 : 1;
