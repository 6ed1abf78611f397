/**
 * The HNSW indexes of pgvector's embedding spaces, built and kept: one build
 * per space at a time, replacing an invalid leftover, started at start-up,
 * by a search's first sight of a space and by a check every minute for
 * spaces registered since, but only once the store holds enough chunks for
 * an index to serve a search at all.
 */
import type { Logger } from "@context-hub/common";
import type { SqlDatabase } from "../db/sql-database.js";
import type { PostgresVectorIndexSettings } from "./postgres-vector-settings.js";
import { annTypeOf, countAtMost, countTtlMs, hnswIndexName } from "./postgres-vector-queries.js";

/** How often the store looks for embedding spaces that have no index yet. */
const spaceWatchMs = 60_000;

export interface HnswIndexBuildOptions {
  db: SqlDatabase;
  logger: Logger;
  settings: PostgresVectorIndexSettings;
  /** Told when an index build has ended. */
  onIndexBuilt?: (() => Promise<unknown>) | undefined;
}

/** The index builds of one store (see the module's comment). */
export interface HnswIndexBuilds {
  /** Builds the index of one space now unless it has a valid one; resolves when it can serve. */
  buildIndex(model: string, dimension: number): Promise<void>;
  /** Whether the space's HNSW index can serve now; if it is missing, its build starts in the background. */
  annReady(model: string, dimension: number): Promise<boolean>;
  /** Builds the missing indexes (before serving on PGlite, in the background on a server) and starts the minutely check. */
  start(): Promise<void>;
  /** Stops the check and waits for the builds under way. */
  close(): Promise<void>;
}

/** Whether the index `name` is valid; undefined when there is none. */
async function indexIsValid(db: SqlDatabase, name: string): Promise<boolean | undefined> {
  const { rows } = await db.query<{ valid: boolean }>(
    "SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass($1)",
    [name],
  );
  return rows[0]?.valid;
}

/** An embedding space's HNSW index: its space, its name, and the vector type and operators it indexes with. */
interface SpaceIndex {
  model: string;
  dimension: number;
  name: string;
  ann: { type: "vector" | "halfvec"; ops: string };
}

/**
 * Builds `index` unless it is valid already (replacing an invalid leftover of a failed concurrent build), calls
 * `markReady` once it can serve, then tells `onIndexBuilt`.
 */
async function buildSpaceIndex(
  options: HnswIndexBuildOptions,
  index: SpaceIndex,
  markReady: () => void,
): Promise<void> {
  const { db, logger, settings, onIndexBuilt } = options;
  const { model, dimension, name, ann } = index;
  const valid = await indexIsValid(db, name);
  if (valid === true) {
    markReady();
    return;
  }
  const concurrently = db.kind === "postgres" ? "CONCURRENTLY" : "";
  // PostgreSQL quotes the name and the model itself (%I, %L): nothing a caller wrote is spliced into the DDL.
  const { rows } = await db.query<{ create: string; drop: string }>(
    `SELECT format('CREATE INDEX %s IF NOT EXISTS %I ON chunks USING hnsw ((embedding::%s(%s)) %s) WITH (m = %s, ef_construction = %s) WHERE embedding_model = %L AND vector_dims(embedding) = %s',
                  $1::text, $2::text, $3::text, $4::integer, $5::text, $6::integer, $7::integer, $8::text, $4::integer) AS create,
                format('DROP INDEX %s IF EXISTS %I', $1::text, $2::text) AS drop`,
    [concurrently, name, ann.type, dimension, ann.ops, settings.hnswM, settings.hnswEfConstruction, model],
  );
  const ddl = rows[0];
  if (ddl === undefined) throw new Error("format() returned no row");
  // A concurrent build that failed leaves an invalid index behind; IF NOT EXISTS would keep it forever.
  if (valid === false) await db.query(ddl.drop);
  const started = performance.now();
  logger.info({ model, dimension, index: name }, "building the HNSW index of an embedding space");
  if (db.kind === "postgres") {
    await db.query(ddl.create);
  } else {
    await db.transaction(async (tx) => {
      await tx.query("SELECT set_config('maintenance_work_mem', $1, true)", [`${settings.buildMemoryMb}MB`]);
      await tx.query(ddl.create);
    });
  }
  markReady();
  logger.info({ model, dimension, index: name, ms: Math.round(performance.now() - started) }, "HNSW index ready");
  await onIndexBuilt?.().catch((error: unknown) =>
    logger.warn({ err: error }, "refreshing planner statistics after an index build failed"),
  );
}

/**
 * Whether indexes are worth building: the store holds `exactBelowChunks`
 * chunks (counted at most every `countTtlMs`, and at most that many rows
 * each time). Once it has, it is taken to stay so.
 */
function createSizeCheck(db: SqlDatabase, settings: PostgresVectorIndexSettings): () => Promise<boolean> {
  /** Whether the store has held enough chunks for a search to use an index, and when that was last counted. */
  let largeEnough = false;
  let largeEnoughCountedAt = Number.NEGATIVE_INFINITY;
  return async () => {
    if (largeEnough || Date.now() - largeEnoughCountedAt < countTtlMs) return largeEnough;
    largeEnoughCountedAt = Date.now();
    const cap = settings.exactBelowChunks;
    largeEnough = (await countAtMost(db, "SELECT 1 FROM chunks LIMIT $1", [cap])) >= cap;
    return largeEnough;
  };
}

/** The HNSW index builds of pgvector's embedding spaces over `options.db` (see the top of this file). */
export function createHnswIndexBuilds(options: HnswIndexBuildOptions): HnswIndexBuilds {
  const { db, logger, settings } = options;
  const ready = new Set<string>();
  const builds = new Map<string, Promise<void>>();
  let spaceWatch: NodeJS.Timeout | undefined;

  const spaceKey = (model: string, dimension: number) => `${model}\u0000${dimension}`;

  const worthIndexing = createSizeCheck(db, settings);

  function buildIndex(model: string, dimension: number): Promise<void> {
    const ann = annTypeOf(dimension);
    if (db.vectorType !== "pgvector" || ann === undefined) return Promise.resolve();
    const key = spaceKey(model, dimension);
    if (ready.has(key)) return Promise.resolve();
    const running = builds.get(key);
    if (running !== undefined) return running;
    const name = hnswIndexName(model, dimension);
    const build = buildSpaceIndex(options, { model, dimension, name, ann }, () => ready.add(key)).finally(() =>
      builds.delete(key),
    );
    builds.set(key, build);
    return build;
  }

  const logBuildFailure = (error: unknown) =>
    logger.warn({ err: error }, "building an HNSW index failed; semantic search stays exact for that space");

  /** Builds the index of every registered embedding space that has none, one after another, once indexes are worth it. */
  async function buildMissing(): Promise<void> {
    if (!(await worthIndexing())) return;
    const { rows } = await db.query<{ embedding_model: string; dimension: number }>(
      "SELECT embedding_model, dimension FROM embedding_spaces ORDER BY first_seen_at",
    );
    for (const space of rows) {
      if (!ready.has(spaceKey(space.embedding_model, space.dimension)))
        await buildIndex(space.embedding_model, space.dimension);
    }
  }

  async function annReady(model: string, dimension: number): Promise<boolean> {
    const key = spaceKey(model, dimension);
    if (ready.has(key)) return true;
    if ((await indexIsValid(db, hnswIndexName(model, dimension))) === true) {
      ready.add(key);
      return true;
    }
    if (settings.buildIndexes && !builds.has(key) && (await worthIndexing())) {
      buildIndex(model, dimension).catch((error: unknown) =>
        logger.warn(
          { err: error, model, dimension },
          "building an HNSW index failed; semantic search stays exact for this space",
        ),
      );
    }
    return false;
  }

  return {
    buildIndex,
    annReady,

    async start() {
      // PGlite has one connection: build before serving. A server builds concurrently while the store serves (exactly, meanwhile).
      if (db.kind === "pglite") await buildMissing();
      else buildMissing().catch(logBuildFailure);
      // A model first used after start-up gets its index while its space is still small, not at the first search a year later.
      spaceWatch = setInterval(() => buildMissing().catch(logBuildFailure), spaceWatchMs);
      spaceWatch.unref();
    },

    async close() {
      clearInterval(spaceWatch);
      await Promise.allSettled([...builds.values()]);
    },
  };
}
