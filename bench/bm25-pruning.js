// Pruned against whole any-word BM25 rankings in the store, interleaved query by query in one process over one corpus,
// so a change in the machine's load falls on both alike. Both rank with the same statistics and must return the same
// page (checked for every query); the figures are each one's p50/p95 and the ratio of their p50s, and how often the
// pruned ranking's rarer words proved the page (held), its entries holding every word seeded it (seeded), or neither
// could and every match was ranked after them (ranked_all).
//
// Usage: node bench/bm25-pruning.js --data-dir DIR [--size 100000] [--queries 200] [--candidates 4000] [--limit 10]
// DIR holds a corpus from bench/retrieval-data.js (bench/retrieval.js --data-dir loads the same one); when empty, the
// corpus is loaded into it first.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createLogger, metricsRegistry } from "@context-hub/common";
import { defaultSearchConfig, openSearch } from "@context-hub/store/testing";
import { quantile, round } from "./lib/stats.js";
import { benchPrincipal, makeQueries, openKeptCorpus } from "./retrieval-data.js";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    size: { type: "string", default: "100000" },
    queries: { type: "string", default: "200" },
    candidates: { type: "string", default: String(defaultSearchConfig.bm25Candidates) },
    limit: { type: "string", default: "10" },
  },
});
if (values["data-dir"] === undefined) throw new Error("--data-dir DIR is required (a corpus is kept there)");
const dataDir = values["data-dir"];
const logger = createLogger("bench", "warn");
const log = (message) => process.stderr.write(`${message}\n`);

const db = await openKeptCorpus(dataDir, Number(values.size), logger, log);
// Statistics are kept as a store keeps them by default, and are the same for both: the first pass over the queries
// (the warm-up) counts them.
const pruned = await openSearch(db, { ...defaultSearchConfig, bm25Candidates: Number(values.candidates) }, logger);
const whole = await openSearch(db, { ...defaultSearchConfig, bm25Candidates: 0 }, logger);
const limit = Number(values.limit);
const rank = (search, query) =>
  search.service.fullText(benchPrincipal, {
    query,
    mode: "any",
    language: "",
    filter: undefined,
    limit,
    offset: 0,
    highlight: false,
  });
const outcomes = async () =>
  Object.fromEntries(
    ((await metricsRegistry.getSingleMetric("contexthub_store_pruned_rankings_total")?.get())?.values ?? []).map(
      (value) => [value.labels.outcome, value.value],
    ),
  );

const queries = makeQueries(Number(values.queries), 11);
for (const query of queries) {
  await rank(whole, query);
  await rank(pruned, query);
}
const before = await outcomes();
const times = { pruned: [], whole: [] };
let differing = 0;
for (const [index, query] of queries.entries()) {
  // Alternate which goes first, so neither always finds the other's pages in the cache.
  const order = index % 2 === 0 ? ["pruned", "whole"] : ["whole", "pruned"];
  const pages = {};
  for (const name of order) {
    const started = performance.now();
    const reply = await rank(name === "pruned" ? pruned : whole, query);
    times[name].push(performance.now() - started);
    pages[name] = reply.hits.map((hit) => `${hit.entryId} ${hit.score}`).join("\n");
  }
  if (pages.pruned !== pages.whole) differing++;
}
const after = await outcomes();
const grew = (outcome) => (after[outcome] ?? 0) - (before[outcome] ?? 0);
const [held, seeded, rankedAll] = [grew("held"), grew("seeded"), grew("ranked_all")];
const summary = (samples) => ({ p50: round(quantile(samples, 0.5)), p95: round(quantile(samples, 0.95)) });
const result = {
  entries: Number((await db.query("SELECT count(*)::integer AS n FROM entries")).rows[0].n),
  queries: queries.length,
  candidates: Number(values.candidates),
  limit,
  pruned: summary(times.pruned),
  whole: summary(times.whole),
  p50_ratio: round(quantile(times.pruned, 0.5) / quantile(times.whole, 0.5)),
  held,
  seeded,
  ranked_all: rankedAll,
  not_planned: queries.length - held - seeded - rankedAll,
  differing_pages: differing,
  load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
};
console.log(JSON.stringify(result, null, 2));
await pruned.close();
await whole.close();
await db.close();
if (differing > 0) process.exitCode = 1;
