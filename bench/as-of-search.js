// Full-text search as of an earlier instant (`as_of`) on the embedded default (PGlite), before and after kept versions
// stored their full-text vectors, in one run.
//
// It loads --entries notes of about --chars characters each (bench/retrieval-data.js) straight into a PGlite data
// directory, records the instant, then changes every one of them the way the store's update does: the current row is
// kept in entry_versions with its vector, and the entry gets a new text. Then, as the notes' owner, it measures p50 and
// p95 of full-text searches as of that instant:
//   - before: the ranking statement as the store ran it before, which parsed each changed entry's earlier text
//     (entry_search_vector(v.text)) on every call, walking the caller's entries;
//   - after: the same ranking over the stored vectors, found through the GIN index of entry_versions, as raw SQL and
//     through the store's search service (in process, no transport);
// and checks that both rank the same entries with the same scores. Two kinds of query: a few topic words (they match
// most notes, so every match is ranked) and one rare word of one earlier text (an index lookup finds it at once).
//
// Usage: node bench/as-of-search.js [--entries 2000] [--chars 50000] [--queries 20] [--before-queries 5]
//          [--json bench/results/as-of-search.json] [--explain]
// --explain prints the plan (EXPLAIN ANALYZE) of the first "after" statement of each kind of query.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { contentHash, createLogger } from "@context-hub/common";
import { openDatabase } from "@context-hub/store";
import {
  accessPredicate,
  createSqlParams,
  createUuidV7,
  defaultSearchConfig,
  emptySearchFilter,
  entrySource,
  openSearch,
} from "@context-hub/store/testing";
import { makeQueries, sizedNote } from "./retrieval-data.js";
import { latencySummary } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    entries: { type: "string", default: "2000" },
    chars: { type: "string", default: "50000" },
    queries: { type: "string", default: "20" },
    "before-queries": { type: "string", default: "5" },
    json: { type: "string" },
    explain: { type: "boolean", default: false },
  },
});
const entryCount = Number(values.entries);
const chars = Number(values.chars);
const queryCount = Number(values.queries);
const beforeCount = Number(values["before-queries"]);
const logger = createLogger("bench", "warn");
const log = (message) => process.stderr.write(`${message}\n`);
const owner = { tenant: "acme", subject: "u1", groups: [], scopes: ["context:read"] };

const dataDir = mkdtempSync(join(tmpdir(), "context-hub-as-of-"));
const db = await openDatabase({ url: "", dataDir, poolMax: 1 }, logger);
const search = await openSearch(db, defaultSearchConfig, logger);
try {
  log(`loading ${entryCount} entries of ${chars} characters, then changing each of them`);
  const started = performance.now();
  const ids = [];
  const batch = 50;
  for (let from = 0; from < entryCount; from += batch) {
    const rows = [];
    for (let index = from; index < Math.min(entryCount, from + batch); index++) {
      const text = sizedNote(index, chars);
      const id = createUuidV7(Date.now());
      ids.push(id);
      rows.push({ id, text });
    }
    await db.query(
      `INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash, summary)
       SELECT r.id, $1, 'notes', 'agent', $2, 'private', r.text, char_length(r.text), left(r.text, 300), r.hash, ''
       FROM unnest($3::uuid[], $4::text[], $5::text[]) AS r (id, text, hash)`,
      [
        owner.tenant,
        owner.subject,
        rows.map((row) => row.id),
        rows.map((row) => row.text),
        rows.map((row) => contentHash(row.text)),
      ],
    );
  }
  const loadMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 20));
  const asOf = new Date();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const changeStarted = performance.now();
  for (let from = 0; from < entryCount; from += batch) {
    const slice = ids.slice(from, from + batch);
    const texts = slice.map((_, offset) => sizedNote(entryCount + from + offset, chars));
    await db.transaction(async (tx) => {
      // What the store's update writes: the replaced version with its vector, then the new text.
      await tx.query(
        `INSERT INTO entry_versions (entry_id, version, tenant, thread_id, source, owner, visibility, text, content_hash, metadata, tags, summary, trust_state,
           written_by, written_at, superseded_by, change_kind, restored_from, valid_from, valid_to, content_type, search_vector)
         SELECT e.id, e.version, e.tenant, e.thread_id, e.source, e.owner, e.visibility, e.text, e.content_hash, e.metadata, e.tags, e.summary, e.trust_state,
           coalesce(e.updated_by, e.owner), e.updated_at, e.owner, e.change_kind, e.restored_from, e.valid_from, e.valid_to, e.content_type, e.search_vector
         FROM entries e WHERE e.id = ANY($1::uuid[])`,
        [slice],
      );
      await tx.query(
        `UPDATE entries e SET text = c.text, text_length = char_length(c.text), preview = left(c.text, 300), content_hash = c.hash, version = e.version + 1,
           updated_at = now(), change_kind = 'update'
         FROM unnest($1::uuid[], $2::text[], $3::text[]) AS c (id, text, hash) WHERE e.id = c.id`,
        [slice, texts, texts.map((text) => contentHash(text))],
      );
    });
  }
  const changeMs = performance.now() - changeStarted;
  await db.query("ANALYZE entries");
  await db.query("ANALYZE entry_versions");
  log(`loaded in ${Math.round(loadMs)} ms, changed in ${Math.round(changeMs)} ms`);

  const filter = { ...emptySearchFilter, asOf };
  const filterInput = {
    threadId: "",
    source: undefined,
    tagsAny: [],
    tagsAll: [],
    metadata: [],
    createdFrom: undefined,
    createdTo: undefined,
    contentType: "",
    asOf,
  };
  /** The ranking statement over a relation: the store's full-text page, without the listing columns. */
  const ranking = (query, source) => {
    const params = createSqlParams();
    const tsquery = `plainto_tsquery('english'::regconfig, ${params.add(query)})`;
    const relation = source(params, tsquery);
    const sql = `SELECT e.id, ts_rank_cd(e.search_vector, ${tsquery}, 0) AS score FROM ${relation} e
      WHERE e.search_vector @@ ${tsquery} AND ${accessPredicate(owner, "e", params)} AND e.trust_state IN ('unverified', 'verified')
      ORDER BY score DESC, e.id DESC LIMIT 11`;
    return { sql, params: params.values };
  };
  // Before: kept versions had no vector, so the relation parsed each one's text when read.
  const before = (query) =>
    ranking(query, (params) =>
      entrySource(owner, filter, params).replaceAll("v.search_vector", "entry_search_vector(v.text)"),
    );
  const after = (query) =>
    ranking(query, (params, tsquery) => entrySource(owner, filter, params, { matching: tsquery }));
  const run = async (statement) =>
    (await db.query(statement.sql, statement.params)).rows.map((row) => `${row.id}:${Number(row.score)}`);
  const time = async (fn) => {
    const t0 = performance.now();
    const result = await fn();
    return { ms: performance.now() - t0, result };
  };

  const topicQueries = makeQueries(queryCount, 20261202);
  // A word that occurs in one earlier text only: note i's reference numbers (ref-N) are its own.
  const rareQueries = Array.from({ length: queryCount }, (_, k) => {
    const note = sizedNote(Math.floor((k * entryCount) / queryCount), chars);
    return note.match(/ref-\d+/)?.[0] ?? "ref-1";
  });
  const results = {};
  for (const [kind, queries] of [
    ["topic words", topicQueries],
    ["one rare word", rareQueries],
  ]) {
    const beforeMs = [];
    const afterMs = [];
    const serviceMs = [];
    let identical = true;
    if (values.explain) {
      const statement = after(queries[0]);
      const { rows } = await db.query(`EXPLAIN (ANALYZE, COSTS OFF) ${statement.sql}`, statement.params);
      log(`plan for ${kind} (${queries[0]}):\n${rows.map((row) => row["QUERY PLAN"]).join("\n")}`);
    }
    for (const [index, query] of queries.entries()) {
      const fresh = await time(() => run(after(query)));
      afterMs.push(fresh.ms);
      const service = await time(() =>
        search.service.fullText(owner, {
          query,
          mode: "match",
          language: "",
          filter: filterInput,
          limit: 10,
          offset: 0,
          highlight: false,
        }),
      );
      serviceMs.push(service.ms);
      const serviceIds = service.result.hits.map((hit) => `${hit.entry.id}:${hit.score}`);
      if (serviceIds.join() !== fresh.result.slice(0, 10).join()) identical = false;
      if (index < beforeCount) {
        const old = await time(() => run(before(query)));
        beforeMs.push(old.ms);
        if (old.result.join() !== fresh.result.join()) identical = false;
      }
    }
    results[kind] = {
      before: latencySummary(beforeMs),
      afterSql: latencySummary(afterMs),
      afterService: latencySummary(serviceMs),
      identical,
    };
    log(
      `${kind}: before p50 ${results[kind].before.p50} ms (${beforeMs.length} queries); after p50 ${results[kind].afterSql.p50} ms (SQL), ${results[kind].afterService.p50} ms (service); same ranking: ${identical}`,
    );
  }
  const report = {
    entries: entryCount,
    chars,
    queries: queryCount,
    beforeQueries: beforeCount,
    loadMs: Math.round(loadMs),
    changeMs: Math.round(changeMs),
    host: { cpus: cpus().length, loadAverage: loadavg().map((value) => Number(value.toFixed(2))) },
    results,
  };
  console.log(JSON.stringify(report, null, 2));
  if (values.json !== undefined) {
    mkdirSync(dirname(values.json), { recursive: true });
    writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  }
  if (Object.values(results).some((result) => !result.identical)) process.exitCode = 1;
} finally {
  await search.close();
  await db.close();
  rmSync(dataDir, { recursive: true, force: true });
}
