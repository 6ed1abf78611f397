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
import { createHash, randomUUID } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { Index, MetricKind, ScalarKind } from "usearch";
import { gauge, type Logger } from "@context-hub/common";
import { accessPredicate } from "../filters/access-predicate.js";
import { createSqlParams, type SqlDatabase } from "../db/sql-database.js";
import {
  bestPerEntry,
  createExactPreference,
  dimensionLiteral,
  hnswIndexName,
  type ChunkRow,
  type PostgresVectorIndexSettings,
} from "./postgres-vector-index.js";
import type { Principal } from "../model/principal.js";
import { searchFilterConditions } from "../filters/search-filter-sql.js";
import type { CommittedChunk, VectorIndex, VectorQuery, VectorSearchResult } from "./vector-index.js";
import { fromVectorColumn, toVectorLiteral } from "./vector-literal.js";

const graphPoints = gauge(
  "contexthub_vector_graph_points",
  "Chunks in the store's in-process vector graph, by embedding model.",
  ["model"],
);

/** The smallest page of graph points one search re-checks; pages grow fourfold while too few pass. */
const firstPage = 64;
/** Points one search examines before it hands the query to PostgreSQL's exact scan instead. */
const maxGraphPoints = 10_000;
/** Chunks read back from PostgreSQL per statement while a graph catches up. */
const catchUpBatch = 500;
/**
 * Most milliseconds of graph inserts in one turn of the event loop. A
 * megabyte's ~670 chunks take 0.3–0.5 s to insert; in slices this long, the
 * statements and calls of other callers run between them.
 */
const insertSliceMs = 8;
/** How often a changed graph is saved to disk (and always when the store stops). */
const saveEveryMs = 5 * 60_000;

/**
 * A chunk's key in the graph: the low 64 bits of its UUIDv7, which are 62
 * random bits and the variant. Two chunks of one space sharing a key is a
 * chance of about n² / 2⁶³ (10⁻⁷ at a million chunks); the later one is then
 * left out of the graph and found only by exact searches.
 */
export function graphKeyOf(chunkId: string): bigint {
  return BigInt(`0x${chunkId.slice(19, 23)}${chunkId.slice(24)}`);
}

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

interface Space {
  model: string;
  dimension: number;
  graph: Index;
  /** The chunk id of every key in the graph. */
  ids: Map<bigint, string>;
  /** Whether the graph changed since it was last saved. */
  changed: boolean;
  /** Committed chunks not in the graph yet: inserted a slice at a time (see `insertSliceMs`). */
  pending: CommittedChunk[];
  /** Whether the graph has caught up with `chunks` since the store started; until then the exact scan answers. */
  ready: boolean;
}

/** What a saved graph's manifest records; the graph and its key list are files named by `generation`. */
interface Manifest {
  model: string;
  dimension: number;
  generation: string;
  points: number;
  /** SHA-256 of the graph file, checked before it is loaded: USearch takes a damaged file a long time to refuse. */
  sha256: string;
}

/**
 * The SHA-256 of a file, read in chunks between turns of the event loop: a
 * graph file is about 320 bytes per point (a third of a gigabyte at a million
 * chunks), which read whole would cost that much memory and hold the store's
 * one thread for as long as hashing it takes.
 */
async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export function createGraphVectorIndex(options: GraphVectorIndexOptions): VectorIndex {
  const { db, logger, settings, directory, fallback } = options;
  const spaces = new Map<string, Space>();
  const preferExact = createExactPreference(db, settings.exactBelowChunks);
  let saveTimer: NodeJS.Timeout | undefined;
  let closed = false;
  const spaceKey = (model: string, dimension: number) => `${model}\u0000${dimension}`;
  const fileStem = (model: string, dimension: number) =>
    hnswIndexName(model, dimension).replace("chunks_hnsw_", "graph-");

  const newGraph = (dimension: number) =>
    new Index({
      dimensions: dimension,
      metric: MetricKind.Cos,
      // Half precision halves the graph's memory; every distance reported is PostgreSQL's exact one.
      quantization: ScalarKind.F16,
      connectivity: settings.hnswM,
      expansion_add: settings.hnswEfConstruction,
      expansion_search: settings.efSearch,
      multi: false,
    });

  function addPoint(space: Space, id: string, vector: Float32Array): void {
    const key = graphKeyOf(id);
    if (space.ids.has(key)) return;
    space.graph.add(key, vector, 1);
    space.ids.set(key, id);
    space.changed = true;
  }

  function removeKeys(space: Space, keys: readonly bigint[]): void {
    for (const key of keys) {
      if (!space.ids.delete(key)) continue;
      space.graph.remove(key);
      space.changed = true;
    }
    graphPoints.set({ model: space.model }, space.ids.size);
  }

  /** The saved graph of a space, if one was saved and reads back whole; otherwise an empty one. */
  async function loadSaved(
    model: string,
    dimension: number,
  ): Promise<{ graph: Index; keys: BigUint64Array } | undefined> {
    if (directory === undefined) return undefined;
    const stem = join(directory, fileStem(model, dimension));
    if (!existsSync(`${stem}.json`)) return undefined;
    try {
      const manifest = JSON.parse(readFileSync(`${stem}.json`, "utf8")) as Manifest;
      const keyBytes = readFileSync(`${stem}.${manifest.generation}.keys`);
      const keys = new BigUint64Array(
        keyBytes.buffer.slice(keyBytes.byteOffset, keyBytes.byteOffset + keyBytes.byteLength),
      );
      const graphFile = `${stem}.${manifest.generation}.usearch`;
      if ((await sha256Of(graphFile)) !== manifest.sha256)
        throw new Error("the graph file is damaged: its SHA-256 does not match its manifest");
      const graph = newGraph(dimension);
      graph.load(graphFile);
      if (
        manifest.model !== model ||
        graph.dimensions() !== dimension ||
        graph.size() !== keys.length ||
        keys.length !== manifest.points
      ) {
        throw new Error(
          `it does not match its manifest (${graph.size()} points, ${keys.length} keys, ${graph.dimensions()} dimensions)`,
        );
      }
      return { graph, keys };
    } catch (error) {
      logger.warn(
        { err: error, model, dimension },
        "a saved vector graph could not be read; it is rebuilt from the stored chunks",
      );
      return undefined;
    }
  }

  /**
   * Brings a space's graph level with `chunks`: keys of chunks that are gone
   * leave it, chunks it lacks (written after it was last saved, or all of them
   * for a new graph) are read back and added.
   */
  async function catchUp(space: Space, savedKeys: Iterable<bigint>): Promise<void> {
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
      if (closed) return;
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
  const opening = new Map<string, Promise<Space>>();
  function openSpace(model: string, dimension: number): Promise<Space> {
    const key = spaceKey(model, dimension);
    let opened = opening.get(key);
    if (opened === undefined) {
      opened = (async () => {
        const saved = await loadSaved(model, dimension);
        const space: Space = {
          model,
          dimension,
          graph: saved?.graph ?? newGraph(dimension),
          ids: new Map(),
          changed: saved === undefined,
          pending: [],
          ready: false,
        };
        spaces.set(key, space);
        await catchUp(space, saved?.keys ?? []);
        space.ready = !closed;
        return space;
      })();
      opening.set(key, opened);
    }
    return opened;
  }

  /**
   * Writes every changed graph: its points and key list under a new
   * generation, then the manifest that names it (renamed into place, so a
   * crash keeps the previous one). The graph and its keys are written in one
   * synchronous step, so they are one snapshot; chunks added while the file
   * is hashed mark the space changed again, for the next save.
   */
  async function saveChangedNow(): Promise<void> {
    if (directory === undefined) return;
    for (const space of spaces.values()) {
      if (!space.changed) continue;
      try {
        // Private like the data directory around it; the native save honours the store's umask (077) for its own file.
        mkdirSync(directory, { recursive: true, mode: 0o700 });
        const stem = join(directory, fileStem(space.model, space.dimension));
        const generation = randomUUID();
        const keys = BigUint64Array.from(space.ids.keys());
        space.graph.save(`${stem}.${generation}.usearch`);
        writeFileSync(`${stem}.${generation}.keys`, new Uint8Array(keys.buffer), { mode: 0o600 });
        space.changed = false;
        const manifest: Manifest = {
          model: space.model,
          dimension: space.dimension,
          generation,
          points: keys.length,
          sha256: await sha256Of(`${stem}.${generation}.usearch`),
        };
        writeFileSync(`${stem}.json.tmp`, JSON.stringify(manifest), { mode: 0o600 });
        renameSync(`${stem}.json.tmp`, `${stem}.json`);
        const stemName = fileStem(space.model, space.dimension);
        for (const name of readdirSync(directory)) {
          if (
            name.startsWith(`${stemName}.`) &&
            !name.startsWith(`${stemName}.${generation}.`) &&
            !name.startsWith(`${stemName}.json`)
          )
            rmSync(join(directory, name), { force: true });
        }
      } catch (error) {
        space.changed = true;
        logger.warn(
          { err: error, model: space.model, dimension: space.dimension },
          "saving the vector graph failed; the next start rebuilds what it lacks from the stored chunks",
        );
      }
    }
  }

  /** Inserts a space's pending chunks, at most `untilMs` (performance.now()) or all of them; says whether any are left. */
  function insertPending(space: Space, untilMs: number): boolean {
    let done = 0;
    while (done < space.pending.length && performance.now() < untilMs) {
      const chunk = space.pending[done++] as CommittedChunk;
      try {
        addPoint(space, chunk.id, Float32Array.from(chunk.vector));
      } catch (error) {
        logger.warn(
          { err: error, chunk: chunk.id },
          "adding a chunk to the vector graph failed; exact searches still find it, and the next start adds it",
        );
      }
    }
    space.pending.splice(0, done);
    graphPoints.set({ model: space.model }, space.ids.size);
    return space.pending.length > 0;
  }

  /**
   * Inserts pending chunks a slice per turn of the event loop until none are
   * left. setImmediate runs after the I/O callbacks of the turn, so calls and
   * statements that arrived meanwhile are served between two slices.
   */
  let draining = false;
  function drainPending(): void {
    if (draining) return;
    draining = true;
    const slice = () => {
      const until = performance.now() + insertSliceMs;
      let left = false;
      for (const space of spaces.values()) if (space.pending.length > 0) left = insertPending(space, until) || left;
      if (left) setImmediate(slice);
      else draining = false;
    };
    setImmediate(slice);
  }

  /** Saves one after another: a periodic save still hashing when the store stops is followed, not overlapped, by the last one. */
  let saving: Promise<void> = Promise.resolve();
  const saveChanged = (): Promise<void> => (saving = saving.then(saveChangedNow));

  /**
   * The chunks among `ids` that exist now in the query's space, each with
   * PostgreSQL's exact distance and whether the caller may see its entry
   * under the full filter.
   */
  async function recheck(
    principal: Principal,
    query: VectorQuery,
    ids: readonly string[],
  ): Promise<(ChunkRow & { id: string; visible: boolean })[]> {
    if (ids.length === 0) return [];
    const params = createSqlParams();
    const vector = params.add(toVectorLiteral("pgvector", query.vector));
    const visible = [
      accessPredicate(principal, "e", params),
      ...searchFilterConditions(principal, query.filter, "e", params),
    ].join(" AND ");
    const { rows } = await db.query<ChunkRow & { id: string; visible: boolean }>(
      `SELECT c.id::text AS id, c.entry_id, c.start_offset, c.end_offset, c.embedding <=> ${vector}::vector AS distance, (${visible}) AS visible
       FROM chunks c JOIN entries e ON e.id = c.entry_id
       WHERE c.id = ANY(${params.add(ids)}::uuid[]) AND c.embedding_model = ${params.add(query.model)} AND vector_dims(c.embedding) = ${dimensionLiteral(query.vector.length)}`,
      params.values,
    );
    return rows;
  }

  async function searchGraph(
    space: Space,
    principal: Principal,
    query: VectorQuery,
  ): Promise<VectorSearchResult | undefined> {
    const target = Float32Array.from(query.vector);
    const checked = new Set<bigint>();
    const passed: ChunkRow[] = [];
    // Chunks committed but not yet inserted into the graph compete too, each with its exact distance, so a search
    // during an insert finds what a search after it would.
    const pending = space.pending.map((chunk) => chunk.id);
    for (const row of await recheck(principal, query, pending)) if (row.visible) passed.push(row);
    let page = Math.max(firstPage, query.limit * 4);
    for (;;) {
      const found = space.graph.search(target, page, 1);
      const fresh: bigint[] = [];
      for (const key of found.keys) {
        if (checked.has(key)) continue;
        checked.add(key);
        fresh.push(key);
      }
      const ids = fresh.map((key) => space.ids.get(key)).filter((id): id is string => id !== undefined);
      const rows = await recheck(principal, query, ids);
      for (const row of rows) if (row.visible) passed.push(row);
      const existing = new Set(rows.map((row) => row.id));
      // Chunks deleted, replaced by an update or moved to another model since they were added leave the graph now.
      removeKeys(
        space,
        fresh.filter((key) => !existing.has(space.ids.get(key) ?? "")),
      );
      const hits = bestPerEntry(passed);
      if (hits.length >= query.limit || found.keys.length < page)
        return { hits: hits.slice(0, query.limit), strategy: "ann", warnings: [] };
      // Most of what the graph offered failed the re-check (a selective filter): the exact scan decides those outright.
      if (page >= maxGraphPoints) return undefined;
      page = Math.min(maxGraphPoints, page * 4);
    }
  }

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
        // pgvector's graph of the space, from a time the store ran on that backend, would cost every commit its insert again.
        const { rows: dropped } = await db.query<{ name: string | null }>("SELECT to_regclass($1)::text AS name", [
          hnswIndexName(space.embedding_model, space.dimension),
        ]);
        if (dropped[0]?.name != null) {
          await db.query(`DROP INDEX IF EXISTS ${hnswIndexName(space.embedding_model, space.dimension)}`);
          logger.info(
            { model: space.embedding_model, dimension: space.dimension },
            "dropped the space's pgvector HNSW index: the vector graph serves it now",
          );
        }
        opens.push(openSpace(space.embedding_model, space.dimension));
      }
      const caughtUp = Promise.all(opens).then(saveChanged);
      let waiting: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([
        caughtUp.then(() => true),
        new Promise<boolean>((resolve) => (waiting = setTimeout(() => resolve(false), settings.graphStartWaitMs))),
      ]).finally(() => clearTimeout(waiting));
      if (!inTime) {
        logger.warn(
          { waitedMs: settings.graphStartWaitMs },
          "the vector graph is still catching up with the stored chunks; the store serves now, and searches of a space use the exact scan until its graph is done",
        );
        caughtUp.catch((error: unknown) =>
          logger.warn({ err: error }, "catching the vector graph up failed; its searches stay exact"),
        );
      }
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
      const answer = await searchGraph(space, principal, query);
      if (answer !== undefined) return answer;
      // The graph gave up (most of what it offered failed the re-check); the exact scan answers. How much failed depends on
      // entries the caller cannot see, so the strategy stays the plan's, chosen from what the caller sees (invariant I-2).
      return { ...(await fallback.nearestEntries(principal, query)), strategy: "ann" };
    },

    async close() {
      closed = true;
      clearInterval(saveTimer);
      // What is still pending goes in before the last save (a crash instead leaves it to the next start's catch-up).
      for (const space of spaces.values()) insertPending(space, Number.POSITIVE_INFINITY);
      await saveChanged();
      await fallback.close();
    },
  };
}
