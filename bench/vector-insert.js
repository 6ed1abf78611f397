// What one chunk's HNSW insert costs on PGlite, by the kind of text the vectors come from: near-identical notes from a
// 20-word vocabulary, the retrieval corpus's notes, and real abstracts (Cranfield). Each row: a bare table of built-in
// vectors, `size` rows loaded, the index built, then single-row INSERT … COMMIT transactions timed, and the same without
// an index. The difference is the graph insert a commit pays (docs/performance.md).
//
// Usage: node bench/vector-insert.js [--sizes 900,20000] [--inserts 400] [--m 16] [--ef-construction 200]
//        [--sources narrow,corpus,cranfield] [--cranfield ../shared/data/cranfield] [--json file]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { embedText, loadWordVectors, toDefaultCacheDir } from "@context-hub/text";
import { builtinDimension, builtinEmbedOptions, sizedNote } from "./retrieval-data.js";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "900,20000" },
    inserts: { type: "string", default: "400" },
    m: { type: "string", default: "16" },
    "ef-construction": { type: "string", default: "200" },
    sources: { type: "string", default: "narrow,corpus,cranfield" },
    cranfield: { type: "string", default: resolve(here, "../../shared/data/cranfield") },
    json: { type: "string" },
  },
});
const inserts = Number(values.inserts);
const warmUp = 100;
const log = (message) => process.stderr.write(`${message}\n`);

const narrowWords =
  "turbine blade fatigue crack root section inspection torque schedule bearing vibration spectrum maintenance window operator report anomaly threshold sensor calibration drift rotor".split(
    " ",
  );
/** A 1 KB note whose sentences rotate through 20 words: every note is nearly every other one. */
function narrowNote(index) {
  let body = `# Inspection note ${index}\n\n`;
  for (let sentence = 0; body.length < 1000; sentence++) {
    const pick = (offset) => narrowWords[(index * 7 + sentence * 3 + offset) % narrowWords.length];
    body += `Finding ${sentence} of note ${index}: the ${pick(0)} ${pick(1)} near the ${pick(2)} showed ${pick(3)} above the ${pick(4)}. `;
  }
  return body.slice(0, 1024);
}

function textsOf(source) {
  if (source === "narrow") return { count: Infinity, text: narrowNote };
  if (source === "corpus") return { count: Infinity, text: (index) => sizedNote(index, 1024) };
  if (source === "cranfield") {
    const docs = readFileSync(join(values.cranfield, "docs.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line).text);
    return { count: docs.length, text: (index) => docs[index] };
  }
  throw new Error(`unknown source ${source}: use narrow, corpus or cranfield`);
}

const wordVectors = await loadWordVectors(toDefaultCacheDir(process.env));
const literal = (text) =>
  `[${Array.from(embedText(text, wordVectors, builtinEmbedOptions), (x) => x.toFixed(6)).join(",")}]`;

async function measure(source, size, withIndex) {
  const texts = textsOf(source);
  if (size + warmUp + inserts > texts.count) return undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-vector-insert-"));
  const db = await PGlite.create({ dataDir, extensions: { vector } });
  try {
    await db.exec(
      `CREATE EXTENSION vector; CREATE TABLE chunks (id bigserial PRIMARY KEY, embedding vector(${builtinDimension}))`,
    );
    for (let from = 0; from < size; from += 1000) {
      const rows = [];
      for (let index = from; index < Math.min(size, from + 1000); index++)
        rows.push(`('${literal(texts.text(index))}')`);
      await db.exec(`INSERT INTO chunks (embedding) VALUES ${rows.join(",")}`);
    }
    let buildSeconds;
    if (withIndex) {
      const started = performance.now();
      await db.exec(
        `SET maintenance_work_mem = '512MB'; CREATE INDEX ON chunks USING hnsw (embedding vector_cosine_ops) WITH (m = ${Number(values.m)}, ef_construction = ${Number(values["ef-construction"])})`,
      );
      buildSeconds = (performance.now() - started) / 1000;
    }
    const pending = Array.from({ length: warmUp + inserts }, (_, k) => literal(texts.text(size + k)));
    const insert = (value) => db.transaction((tx) => tx.query("INSERT INTO chunks (embedding) VALUES ($1)", [value]));
    for (const value of pending.slice(0, warmUp)) await insert(value);
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (const value of pending.slice(warmUp)) await insert(value);
    const used = process.cpuUsage(cpu);
    return {
      wall_ms: Number(((performance.now() - started) / inserts).toFixed(3)),
      cpu_ms: Number(((used.user + used.system) / 1000 / inserts).toFixed(3)),
      build_s: buildSeconds === undefined ? undefined : Number(buildSeconds.toFixed(1)),
    };
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const results = { m: Number(values.m), ef_construction: Number(values["ef-construction"]), inserts, rows: [] };
for (const size of values.sizes.split(",").map(Number)) {
  for (const source of values.sources.split(",")) {
    const bare = await measure(source, size, false);
    if (bare === undefined) {
      log(`${source} at ${size}: not enough texts`);
      continue;
    }
    const indexed = await measure(source, size, true);
    const row = {
      source,
      size,
      without_index: bare,
      with_index: indexed,
      graph_insert_cpu_ms: Number((indexed.cpu_ms - bare.cpu_ms).toFixed(3)),
    };
    results.rows.push(row);
    log(
      `${source.padEnd(9)} ${String(size).padStart(6)} rows: CPU per insert ${bare.cpu_ms} ms without the index, ${indexed.cpu_ms} ms with it (graph ${row.graph_insert_cpu_ms} ms; built in ${indexed.build_s} s)`,
    );
  }
}
if (values.json) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
}
