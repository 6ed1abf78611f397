// Full-text rankings in the store scoring each candidate term by term (each term's frequency read by a single-term
// ts_rank) against unnesting each candidate's vector, interleaved query by query in one process over one corpus, so a
// change in the machine's load falls on both alike. Both must return the same page: the same entries in the same order,
// scores equal to 1e-12 (the sums run in another order). For every-word (`match`) and any-word questions of the
// bench's 2–4 words, and any-word questions of --long-words words (default 6, the most a store scores one at a time).
// And a quarter as many any-word questions with feedback, whose second pass ranks by twenty-odd terms (unnested on both
// sides at the default limit). --one-by-one sets the limit of the term-by-term side: `--long-words 8 --one-by-one 64`
// shows why it stops at six (at eight words the two cost about the same; feedback's second pass costs more).
//
// Usage: node bench/term-scoring.js --data-dir DIR [--size 100000] [--queries 100] [--long-words 6] [--one-by-one 6]
// DIR holds a corpus from bench/retrieval-data.js (bench/retrieval.js --data-dir loads the same one); when empty, the
// corpus is loaded into it first.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createLogger } from "@context-hub/common";
import { defaultSearchConfig, openSearch } from "@context-hub/store/testing";
import { quantile, round } from "./lib/stats.js";
import { benchPrincipal, makeQueries, openKeptCorpus } from "./retrieval-data.js";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    size: { type: "string", default: "100000" },
    queries: { type: "string", default: "100" },
    "long-words": { type: "string", default: "6" },
    "one-by-one": { type: "string", default: String(defaultSearchConfig.bm25TermsOneByOne) },
  },
});
if (values["data-dir"] === undefined) throw new Error("--data-dir DIR is required (a corpus is kept there)");
const dataDir = values["data-dir"];
const logger = createLogger("bench", "warn");
const log = (message) => process.stderr.write(`${message}\n`);

const db = await openKeptCorpus(dataDir, Number(values.size), logger, log);
const byTerm = await openSearch(
  db,
  { ...defaultSearchConfig, bm25TermsOneByOne: Number(values["one-by-one"]) },
  logger,
);
const unnested = await openSearch(db, { ...defaultSearchConfig, bm25TermsOneByOne: 0 }, logger);
// Feedback with its defaults: the second pass ranks by the question and twenty-odd added words.
const withFeedback = { documents: 0, terms: 0, queryWeight: undefined };
const rank = (search, mode, query, feedback) =>
  search.service.fullText(benchPrincipal, {
    query,
    mode,
    language: "",
    filter: undefined,
    limit: 10,
    offset: 0,
    highlight: false,
    feedback,
  });

const count = Number(values.queries);
const short = makeQueries(count, 11);
// Longer any-word questions: the bench's words run together, each question the next --long-words distinct ones.
const longWords = Number(values["long-words"]);
const pool = makeQueries(count * longWords, 23).flatMap((query) => query.split(" "));
const long = Array.from({ length: count }, (_, index) =>
  [...new Set(pool.slice(index * longWords * 2, (index + 1) * longWords * 2))].slice(0, longWords).join(" "),
);
const sets = [
  { name: "every word", mode: "match", queries: short },
  { name: "any word", mode: "any", queries: short },
  { name: `any word, ${longWords} words`, mode: "any", queries: long },
  {
    name: "any word with feedback",
    mode: "any",
    queries: short.slice(0, Math.ceil(count / 4)),
    feedback: withFeedback,
  },
];

const samePage = (left, right) =>
  left.hits.length === right.hits.length &&
  left.hits.every((hit, index) => {
    const other = right.hits[index];
    return other.entryId === hit.entryId && Math.abs(other.score - hit.score) <= 1e-12 * Math.abs(hit.score);
  });

const results = [];
for (const { name, mode, queries, feedback } of sets) {
  // The warm-up counts the statistics both then share (kept as a store keeps them by default).
  for (const query of queries) {
    await rank(unnested, mode, query, feedback);
    await rank(byTerm, mode, query, feedback);
  }
  const times = { byTerm: [], unnested: [] };
  let differing = 0;
  for (const [index, query] of queries.entries()) {
    const order = index % 2 === 0 ? ["byTerm", "unnested"] : ["unnested", "byTerm"];
    const pages = {};
    for (const which of order) {
      const started = performance.now();
      pages[which] = await rank(which === "byTerm" ? byTerm : unnested, mode, query, feedback);
      times[which].push(performance.now() - started);
    }
    if (!samePage(pages.byTerm, pages.unnested)) differing++;
  }
  const summary = (samples) => ({ p50: round(quantile(samples, 0.5)), p95: round(quantile(samples, 0.95)) });
  results.push({
    questions: name,
    term_by_term: summary(times.byTerm),
    unnested: summary(times.unnested),
    p50_ratio: round(quantile(times.byTerm, 0.5) / quantile(times.unnested, 0.5)),
    differing_pages: differing,
  });
}
const result = {
  entries: Number((await db.query("SELECT count(*)::integer AS n FROM entries")).rows[0].n),
  queries: count,
  results,
  load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
};
console.log(JSON.stringify(result, null, 2));
await byTerm.close();
await unnested.close();
await db.close();
if (results.some((row) => row.differing_pages > 0)) process.exitCode = 1;
