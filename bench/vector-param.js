// What a write's chunk embeddings cost the store's database thread to receive, in the two shapes the store can send
// them: one `vector[]` parameter whose elements the chunk rows unnest (what the store sends where the column is
// pgvector's), against one flat `real[]` of which each row takes its slice (what it sends where the column is a
// `real[]`, without pgvector). Both in binary, on the store's schema in PGlite, through the store's own prepared statements;
// the statement only reads the vectors (no insert), so the figure is the parameter's cost alone. The two shapes
// alternate round by round; both are first checked to give every chunk the same vector. Beside that, what making the
// parameter costs the store's own thread: its binary form (what PGlite and a PostgreSQL server are sent) against its
// text form (each number printed to nine significant digits), alternating round by round.
//
// Usage: node bench/vector-param.js [--chunks 770] [--dimensions 256] [--rounds 21] [--json file]
// (770 chunks of 256 dimensions: a 1,000,000-character text as the built-in embedder chunks and embeds it.)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "@context-hub/common";
import { openDatabase } from "@context-hub/store";
import { toVectorsParam } from "@context-hub/store/testing";
import { quantile, round } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    chunks: { type: "string", default: "770" },
    dimensions: { type: "string", default: "256" },
    rounds: { type: "string", default: "21" },
    json: { type: "string" },
  },
});
const chunks = Number(values.chunks);
const dimensions = Number(values.dimensions);
const rounds = Number(values.rounds);

const dataDir = mkdtempSync(join(tmpdir(), "context-hub-vector-param-"));
const database = await openDatabase({ url: "", dataDir, poolMax: 1 }, createLogger("vector-param", "silent"));
const vectors = Array.from({ length: chunks }, (_, row) =>
  Float32Array.from({ length: dimensions }, (_, index) => Math.sin(row * dimensions + index)),
);

/** Each shape's rows, one per chunk: `select` is what a row reads of its vector. */
const shapes = {
  "vector[]": (select) =>
    database.query(`SELECT ${select("c.v")} AS v FROM unnest($1::vector[]) WITH ORDINALITY AS c (v, k) ORDER BY c.k`, [
      toVectorsParam("pgvector", vectors).value,
    ]),
  "real[]": (select) =>
    database.query(
      `SELECT ${select("(($1::real[])[(k - 1) * $2::integer + 1 : k * $2::integer])::vector")} AS v
       FROM generate_series(1, $3::integer) AS k ORDER BY k`,
      [toVectorsParam("real[]", vectors).value, dimensions, chunks],
    ),
};

const times = { "vector[]": [], "real[]": [] };
/** The store's thread making the `vector[]` parameter, in each form. */
const making = {
  binary: () => toVectorsParam("pgvector", vectors).value.toPostgresBinary({ oid: 1, name: "vector" }),
  text: () => toVectorsParam("pgvector", vectors).value.toPostgres(),
};
const makingTimes = { binary: [], text: [] };
try {
  // Both shapes give every chunk the same vector (compared as text once, outside the timing).
  const [a, b] = await Promise.all(Object.values(shapes).map((shape) => shape((vector) => `${vector}::text`)));
  if (a.rows.length !== chunks || a.rows.some((row, index) => row.v !== b.rows[index].v))
    throw new Error("the two shapes gave different vectors");
  // Timed: each row's vector is received and built, and only its dimension count goes back.
  for (let roundIndex = 0; roundIndex < rounds; roundIndex++) {
    const order = roundIndex % 2 === 0 ? ["vector[]", "real[]"] : ["real[]", "vector[]"];
    for (const shape of order) {
      const started = performance.now();
      await shapes[shape]((vector) => `vector_dims(${vector})`);
      times[shape].push(performance.now() - started);
    }
    for (const form of roundIndex % 2 === 0 ? ["binary", "text"] : ["text", "binary"]) {
      const started = performance.now();
      making[form]();
      makingTimes[form].push(performance.now() - started);
    }
  }
} finally {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
}

// The first round of each warms the statement; medians over the rest.
const summarize = (samplesByName) =>
  Object.fromEntries(
    Object.entries(samplesByName).map(([name, samples]) => [
      name,
      { p50: round(quantile(samples.slice(1), 0.5)), p95: round(quantile(samples.slice(1), 0.95)) },
    ]),
  );
const summary = summarize(times);
const makingSummary = summarize(makingTimes);
const host = {
  cpus: availableParallelism(),
  model: cpus()[0]?.model ?? "unknown",
  loadavg: loadavg().map((x) => round(x)),
};
console.log(`${chunks} vectors of ${dimensions} dimensions, ${rounds} rounds (the first of each left out), ms:`);
for (const [shape, { p50, p95 }] of Object.entries(summary)) console.log(`  ${shape.padEnd(9)} p50 ${p50}  p95 ${p95}`);
console.log(`  real[] ÷ vector[] at the median: ×${round(summary["real[]"].p50 / summary["vector[]"].p50)}`);
console.log("the vector[] parameter made on the store's thread, ms:");
for (const [form, { p50, p95 }] of Object.entries(makingSummary))
  console.log(`  ${form.padEnd(9)} p50 ${p50}  p95 ${p95}`);
console.log(`  text ÷ binary at the median: ×${round(makingSummary.text.p50 / makingSummary.binary.p50)}`);
console.log(`host: ${host.cpus} CPUs (${host.model}), load average ${host.loadavg.join(" ")}`);
if (values.json !== undefined) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(
    values.json,
    JSON.stringify(
      { date: new Date().toISOString(), host, chunks, dimensions, summary, making: makingSummary },
      null,
      2,
    ),
  );
}
