// How well `reason` cites, on the public test collections: each collection is stored in a fresh embedded hub (built-in
// providers, so the answers are extractive), and for the first --queries judged queries `reason` answers the query
// over MCP with its defaults. A cited passage counts as relevant when the judgments rate its entry's document
// relevant (any positive grade). Printed per collection: the fraction of citations that are relevant, the fraction of
// answers with at least one relevant citation, and, as the yardstick from the same run, the same two fractions for
// hybrid search's top 5 entries (the entries reason reads its evidence from).
//
// Usage: node bench/reason-quality.js [--data ../shared/data] [--collections cranfield,cisi] [--queries 50] [--json out.json]
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadCollection } from "./lib/quality-data.js";
import { startCollectionHub } from "./lib/quality-hub.js";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    data: { type: "string", default: resolve(here, "../../shared/data") },
    collections: { type: "string", default: "cranfield,cisi" },
    queries: { type: "string", default: "50" },
    json: { type: "string" },
  },
});
const log = (message) => process.stderr.write(`${message}\n`);
const sampleSize = Number(values.queries);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)];
};

async function measure(collection) {
  const { call, docIdOf, close } = await startCollectionHub(collection, log);
  try {
    const sample = collection.queries.slice(0, sampleSize);
    const totals = {
      citations: 0,
      relevantCitations: 0,
      answered: 0,
      withRelevant: 0,
      statements: 0,
      dropped: 0,
      top5: 0,
      relevantTop5: 0,
      top5WithRelevant: 0,
    };
    const times = [];
    for (const query of sample) {
      const gains = collection.judgments.get(query.id);
      const relevant = (entryId) => (gains.get(docIdOf.get(entryId)) ?? 0) > 0;
      const started = performance.now();
      const answer = await call("reason", { question: query.text });
      times.push(performance.now() - started);
      totals.statements += answer.statements.length;
      totals.dropped += answer.dropped.length;
      if (answer.citations.length > 0) totals.answered += 1;
      const good = answer.citations.filter((citation) => relevant(citation.id)).length;
      totals.citations += answer.citations.length;
      totals.relevantCitations += good;
      if (good > 0) totals.withRelevant += 1;
      const top = (await call("hybrid_search_context", { query: query.text, limit: 5 })).results;
      const goodTop = top.filter((hit) => relevant(hit.id)).length;
      totals.top5 += top.length;
      totals.relevantTop5 += goodTop;
      if (goodTop > 0) totals.top5WithRelevant += 1;
    }
    const ratio = (part, whole) => (whole === 0 ? 0 : part / whole);
    return {
      queries: sample.length,
      citedRelevant: ratio(totals.relevantCitations, totals.citations),
      answersWithRelevantCitation: ratio(totals.withRelevant, sample.length),
      answersWithCitations: ratio(totals.answered, sample.length),
      statementsPerAnswer: ratio(totals.statements, sample.length),
      droppedCitations: totals.dropped,
      hybridTop5Relevant: ratio(totals.relevantTop5, totals.top5),
      hybridTop5WithRelevant: ratio(totals.top5WithRelevant, sample.length),
      reasonMedianMs: Math.round(median(times) * 10) / 10,
    };
  } finally {
    await close();
  }
}

const results = {};
for (const name of values.collections.split(",")) {
  const collection = loadCollection(name, resolve(values.data, name));
  results[name] = await measure(collection);
  log(`${collection.label}: ${JSON.stringify(results[name])}`);
}
const pct = (value) => `${(value * 100).toFixed(1)} %`;
console.log(
  "| collection | queries | citations relevant | answers with a relevant citation | answers citing anything | statements per answer | citations dropped | hybrid top 5 relevant | hybrid top 5 holding a relevant entry | reason p50 ms |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const [name, r] of Object.entries(results))
  console.log(
    `| ${name} | ${r.queries} | ${pct(r.citedRelevant)} | ${pct(r.answersWithRelevantCitation)} | ${pct(r.answersWithCitations)} | ${r.statementsPerAnswer.toFixed(1)} | ${r.droppedCitations} | ${pct(r.hybridTop5Relevant)} | ${pct(r.hybridTop5WithRelevant)} | ${r.reasonMedianMs} |`,
  );
if (values.json !== undefined) {
  mkdirSync(dirname(resolve(values.json)), { recursive: true });
  writeFileSync(values.json, JSON.stringify(results, null, 2));
}
