/**
 * Semantic search answered by a native HNSW graph (USearch) kept in the store
 * process, beside PGlite rather than inside it. PostgreSQL stays the source of
 * truth: every chunk vector is in `chunks`, written by the commit's
 * transaction; the graph is a projection, told of each committed chunk by the
 * entry repository (VectorIndex.chunksCommitted) and reconciled with
 * `chunks` whenever the store starts, so it cannot miss a write that
 * committed before a crash. A graph insert costs a tenth of pgvector's in
 * WebAssembly and leaves the commit, which on PGlite runs on the store's one
 * thread (docs/performance.md).
 *
 * A query walks the graph for the nearest chunks, then re-checks every one in
 * PostgreSQL with the one access predicate and the full filter SQL, joined to
 * the chunk itself, and takes its distance from PostgreSQL's exact
 * comparison. Pages grow until `limit` distinct entries pass or the graph runs
 * out, so no filter starves the top k; past `maxGraphPoints` points (most
 * candidates filtered out), or while the store is small, the query goes to
 * the exact scan. A chunk the re-check finds gone leaves the graph then.
 *
 * Only for PGlite: the graph learns of writes from this process's commits, so
 * no other process may write to the database (PGlite serves one process per
 * data directory). Documented in docs/vector-backends.md.
 */
import { unaryCallsInProgress, type Logger } from "@context-hub/common";
import type { SqlDatabase } from "../db/sql-database.js";
import { createExactPreference, dimensionLiteral, hnswIndexName } from "./postgres-vector-queries.js";
import type { PostgresVectorIndexSettings } from "./postgres-vector-settings.js";
import { loadSaved, saveChangedNow } from "./graph-files.js";
import { maxGraphPoints, searchGraph } from "./graph-search.js";
import { addPoint, graphKeyOf, graphPoints, insertPending, newGraph, type Space } from "./graph-space.js";
import type { CommittedChunk, VectorIndex, VectorQuery, VectorSearchResult } from "./vector-index.js";
import type { Principal } from "../model/principal.js";
import { fromVectorColumn } from "./vector-literal.js";

/** Chunks read back from PostgreSQL per statement while a graph catches up. */
const catchUpBatch = 500;
/**
 * Most milliseconds of graph inserts in one turn of the event loop. A
 * megabyte's ~770 chunks take 0.1–0.5 s to insert; in slices this long, the
 * statements and calls of other callers run between them.
 */
const insertSliceMs = 2;
/**
 * While calls are being served, a slice waits until this long after the last
 * one: a call's answer takes several turns of the event loop, and a slice in
 * each would add up (in the text-stall bench, 10 ms here held a reader beside
 * a megabyte write longer than 50).
 */
const sliceGapWhileServingMs = 50;
/**
 * More chunks waiting than this and slices no longer wait for calls: a store
 * under a sustained stream of writes keeps its graph within this of them.
 */
const waitForCallsBelowPending = 2_000;
/** How often a changed graph is saved to disk (and always when the store stops). */
const saveEveryMs = 5 * 60_000;

export interface GraphVectorIndexOptions {
  db: SqlDatabase;
  logger: Logger;
  /**
   * The graph uses `hnswM`, `hnswEfConstruction`, `efSearch`, `exactBelowChunks` and `graphStartWaitMs`;
   * `buildIndexes = false` keeps no graph at all.
   */
  settings: PostgresVectorIndexSettings;
  /** Where graphs are saved between runs; undefined keeps them in memory only (rebuilt from `chunks` at every start). */
  directory: string | undefined;
  /** PostgreSQL's exact scan: answers small stores, selective filters, and spaces without a graph. */
  fallback: VectorIndex;
}

/** What a graph index reads and reports with, and whether it has closed (no further catch-up, no space made ready). */
interface GraphContext {
  db: SqlDatabase;
  logger: Logger;
  settings: PostgresVectorIndexSettings;
  directory: string | undefined;
  isClosed(): boolean;
}

/** The key of an embedding space in the index's maps. */
const spaceKey = (model: string, dimension: number) => `${model}\u0000${dimension}`;

/**
 * Brings a space's graph level with `chunks`: keys of chunks that are gone
 * leave it, chunks it lacks (written after it was last saved, or all of them
 * for a new graph) are read back and added.
 */
async function catchUp(context: GraphContext, space: Space, savedKeys: Iterable<bigint>): Promise<void> {
  const { db, logger } = context;
  const started = performance.now();
  const { rows } = await db.query<{ id: string }>(
    `SELECT id::text AS id FROM chunks WHERE embedding_model = $1 AND vector_dims(embedding) = ${dimensionLiteral(space.dimension)}`,
    [space.model],
  );
  const stored = new Map<bigint, string>();
  for (const row of rows) stored.set(graphKeyOf(row.id), row.id);
  const gone: bigint[] = [];
  for (const key of savedKeys) {
    const id = stored.get(key);
    if (id === undefined) gone.push(key);
    else space.ids.set(key, id);
  }
  for (const key of gone) {
    space.graph.remove(key);
    space.changed = true;
  }
  const missing = [...stored.entries()].filter(([key]) => !space.ids.has(key)).map(([, id]) => id);
  for (let start = 0; start < missing.length; start += catchUpBatch) {
    if (context.isClosed()) return;
    const { rows: vectors } = await db.query<{ id: string; embedding: string | number[] }>(
      `SELECT id::text AS id, embedding FROM chunks WHERE id = ANY($1::uuid[]) AND embedding_model = $2 AND vector_dims(embedding) = ${dimensionLiteral(space.dimension)}`,
      [missing.slice(start, start + catchUpBatch), space.model],
    );
    let sliceEnds = performance.now() + insertSliceMs;
    for (const row of vectors) {
      addPoint(space, row.id, fromVectorColumn(row.embedding));
      // A store already serving answers its callers between slices of a long catch-up.
      if (performance.now() > sliceEnds) {
        await new Promise((resume) => setImmediate(resume));
        sliceEnds = performance.now() + insertSliceMs;
      }
    }
  }
  graphPoints.set({ model: space.model }, space.ids.size);
  logger.info(
    {
      model: space.model,
      dimension: space.dimension,
      points: space.ids.size,
      added: missing.length,
      removed: gone.length,
      ms: Math.round(performance.now() - started),
    },
    "vector graph caught up with the stored chunks",
  );
}

/** Opens a space's graph once: loads its saved copy, catches it up with `chunks`, then lets it answer searches. */
function createSpaceOpener(context: GraphContext, spaces: Map<string, Space>) {
  const { logger, settings, directory } = context;
  const opening = new Map<string, Promise<Space>>();
  return function openSpace(model: string, dimension: number): Promise<Space> {
    const key = spaceKey(model, dimension);
    let opened = opening.get(key);
    if (opened === undefined) {
      opened = (async () => {
        const saved = await loadSaved(directory, logger, settings, model, dimension);
        const space: Space = {
          model,
          dimension,
          graph: saved?.graph ?? newGraph(settings, dimension),
          ids: new Map(),
          changed: saved === undefined,
          pending: [],
          ready: false,
        };
        spaces.set(key, space);
        await catchUp(context, space, saved?.keys ?? []);
        space.ready = !context.isClosed();
        return space;
      })();
      opening.set(key, opened);
    }
    return opened;
  };
}

/**
 * Inserts pending chunks a slice per turn of the event loop until none are
 * left: in every turn while no call is being served, else every
 * `sliceGapWhileServingMs` (or in every turn again once more than
 * `waitForCallsBelowPending` chunks wait). setImmediate runs after the I/O
 * callbacks of the turn, so calls and statements that arrived meanwhile are
 * served between two slices.
 */
export function createPendingDrain(
  logger: Logger,
  spaces: Map<string, Space>,
  callsInProgress: () => number = unaryCallsInProgress,
): () => void {
  let draining = false;
  return () => {
    if (draining) return;
    draining = true;
    let lastSlice = performance.now();
    const slice = () => {
      const now = performance.now();
      const waiting = now - lastSlice < sliceGapWhileServingMs && callsInProgress() > 0;
      if (
        waiting &&
        [...spaces.values()].reduce((sum, space) => sum + space.pending.length, 0) <= waitForCallsBelowPending
      ) {
        setTimeout(slice, 1);
        return;
      }
      const until = now + insertSliceMs;
      let left = false;
      for (const space of spaces.values())
        if (space.pending.length > 0) left = insertPending(logger, space, until) || left;
      lastSlice = performance.now();
      if (left) setImmediate(slice);
      else draining = false;
    };
    setImmediate(slice);
  };
}

/** Drops a space's pgvector HNSW index, if there is one. */
async function dropPgvectorGraph(db: SqlDatabase, logger: Logger, model: string, dimension: number): Promise<void> {
  // pgvector's graph of the space, from a time the store ran on that backend, would cost every commit its insert again.
  const { rows: dropped } = await db.query<{ name: string | null }>("SELECT to_regclass($1)::text AS name", [
    hnswIndexName(model, dimension),
  ]);
  if (dropped[0]?.name != null) {
    await db.query(`DROP INDEX IF EXISTS ${hnswIndexName(model, dimension)}`);
    logger.info({ model, dimension }, "dropped the space's pgvector HNSW index: the vector graph serves it now");
  }
}

/**
 * Waits up to `waitMs` for the graphs to catch up; past that the store serves, and the graphs go on catching up
 * (searches of a space use the exact scan until its graph is ready).
 */
async function waitForCatchUp(caughtUp: Promise<void>, waitMs: number, logger: Logger): Promise<void> {
  let waiting: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([
    caughtUp.then(() => true),
    new Promise<boolean>((resolve) => (waiting = setTimeout(() => resolve(false), waitMs))),
  ]).finally(() => clearTimeout(waiting));
  if (!inTime) {
    logger.warn(
      { waitedMs: waitMs },
      "the vector graph is still catching up with the stored chunks; the store serves now, and searches of a space use the exact scan until its graph is done",
    );
    caughtUp.catch((error: unknown) =>
      logger.warn({ err: error }, "catching the vector graph up failed; its searches stay exact"),
    );
  }
}

/** What a search falls back on: PostgreSQL's exact scan, and whether it is the better plan for the caller. */
interface GraphFallback {
  db: SqlDatabase;
  settings: PostgresVectorIndexSettings;
  fallback: VectorIndex;
  preferExact: (principal: Principal, query: VectorQuery) => Promise<boolean>;
}

/**
 * The nearest entries from `space`'s graph, re-checked in PostgreSQL; the exact scan answers when the space has no
 * ready graph, the store is small or the caller's filter is selective, too many chunks wait, or the graph gives up.
 */
async function nearestInSpace(
  { db, settings, fallback, preferExact }: GraphFallback,
  space: Space | undefined,
  principal: Principal,
  query: VectorQuery,
): Promise<VectorSearchResult> {
  if (
    space === undefined ||
    !space.ready ||
    space.ids.size < settings.exactBelowChunks ||
    (await preferExact(principal, query))
  )
    return fallback.nearestEntries(principal, query);
  // More chunks waiting for the graph than one search re-checks: the exact scan finds them. Whether any are pending
  // depends on other callers' writes, so the strategy stays the plan's (invariant I-2).
  if (space.pending.length > maxGraphPoints)
    return { ...(await fallback.nearestEntries(principal, query)), strategy: "ann" };
  const answer = await searchGraph(db, space, principal, query);
  if (answer !== undefined) return answer;
  // The graph gave up (most of what it offered failed the re-check); the exact scan answers. How much failed depends on
  // entries the caller cannot see, so the strategy stays the plan's, chosen from what the caller sees (invariant I-2).
  return { ...(await fallback.nearestEntries(principal, query)), strategy: "ann" };
}

/** Semantic search by in-process HNSW graphs over PostgreSQL's chunks (see the top of this file). */
export function createGraphVectorIndex(options: GraphVectorIndexOptions): VectorIndex {
  const { db, logger, settings, directory, fallback } = options;
  const spaces = new Map<string, Space>();
  const preferExact = createExactPreference(db, settings.exactBelowChunks);
  let saveTimer: NodeJS.Timeout | undefined;
  let closed = false;
  const openSpace = createSpaceOpener({ db, logger, settings, directory, isClosed: () => closed }, spaces);
  const drainPending = createPendingDrain(logger, spaces);

  /** Saves one after another: a periodic save still hashing when the store stops is followed, not overlapped, by the last one. */
  let saving: Promise<void> = Promise.resolve();
  const saveChanged = (): Promise<void> =>
    (saving = saving.then(() => saveChangedNow(directory, logger, spaces.values())));

  return {
    kind: "graph",

    async prepare() {
      await fallback.prepare();
      if (!settings.buildIndexes) return;
      const { rows } = await db.query<{ embedding_model: string; dimension: number }>(
        "SELECT embedding_model, dimension FROM embedding_spaces ORDER BY first_seen_at",
      );
      const opens: Promise<Space>[] = [];
      for (const space of rows) {
        await dropPgvectorGraph(db, logger, space.embedding_model, space.dimension);
        opens.push(openSpace(space.embedding_model, space.dimension));
      }
      await waitForCatchUp(Promise.all(opens).then(saveChanged), settings.graphStartWaitMs, logger);
      saveTimer = setInterval(() => void saveChanged(), saveEveryMs);
      saveTimer.unref();
    },

    async buildIndex(model, dimension) {
      if (settings.buildIndexes) await openSpace(model, dimension);
    },

    chunksCommitted(chunks: readonly CommittedChunk[]) {
      if (!settings.buildIndexes) return;
      for (const chunk of chunks) {
        const key = spaceKey(chunk.model, chunk.vector.length);
        const space = spaces.get(key);
        if (space === undefined) {
          // A space first written after start-up: its graph is read from `chunks`, which hold this commit already.
          openSpace(chunk.model, chunk.vector.length).catch((error: unknown) =>
            logger.warn(
              { err: error, model: chunk.model },
              "building the vector graph of a new embedding space failed; its searches stay exact",
            ),
          );
          continue;
        }
        space.pending.push(chunk);
      }
      drainPending();
    },

    async nearestEntries(principal, query) {
      const space = spaces.get(spaceKey(query.model, query.vector.length));
      return nearestInSpace({ db, settings, fallback, preferExact }, space, principal, query);
    },

    async close() {
      closed = true;
      clearInterval(saveTimer);
      // What is still pending goes in before the last save (a crash instead leaves it to the next start's catch-up).
      for (const space of spaces.values()) insertPending(logger, space, Number.POSITIVE_INFINITY);
      await saveChanged();
      await fallback.close();
    },
  };
}
