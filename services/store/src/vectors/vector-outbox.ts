/**
 * The outbox that feeds Qdrant, and its relay. PostgreSQL stays the source of
 * truth: triggers on `chunks`, `entries`, `grants` and `collection_members` (installed only while
 * the outbox is on) add rows to `vector_outbox` inside the writing
 * transaction, and the relay, running in the store process, delivers them in
 * batches: for every row it reads the current state in PostgreSQL and makes
 * Qdrant match it (upsert the chunk with its entry's payload, or delete the
 * point when the chunk is gone), then deletes exactly the rows it delivered.
 * Delivering a row twice, or rows out of order, therefore changes nothing,
 * and a Qdrant outage only delays delivery: writes never wait for Qdrant.
 * Documented in docs/vector-backends.md.
 */
import { gauge, type Logger } from "@context-hub/common";
import type { SqlDatabase, SqlExecutor } from "../db/sql-database.js";
import { readChunkPoints, type QdrantCollections } from "./qdrant-collections.js";

const pendingGauge = gauge(
  "contexthub_vector_outbox_pending",
  "Vector outbox rows not yet delivered to the external vector index.",
  [],
);
const lagGauge = gauge(
  "contexthub_vector_outbox_lag_seconds",
  "Age of the oldest vector outbox row not yet delivered, in seconds (0 when the outbox is empty).",
  [],
);

/** The triggers that fill the outbox; their functions come from migrations 6 and 18. */
const triggers = [
  {
    table: "chunks",
    name: "chunks_vector_outbox_insert",
    ddl: "AFTER INSERT ON chunks REFERENCING NEW TABLE AS vector_outbox_new_chunks FOR EACH STATEMENT EXECUTE FUNCTION vector_outbox_chunks()",
  },
  {
    table: "chunks",
    name: "chunks_vector_outbox_delete",
    ddl: "AFTER DELETE ON chunks REFERENCING OLD TABLE AS vector_outbox_old_chunks FOR EACH STATEMENT EXECUTE FUNCTION vector_outbox_chunks()",
  },
  {
    table: "chunks",
    name: "chunks_vector_outbox_update",
    ddl: "AFTER UPDATE ON chunks REFERENCING OLD TABLE AS vector_outbox_old_chunks NEW TABLE AS vector_outbox_new_chunks FOR EACH STATEMENT EXECUTE FUNCTION vector_outbox_chunk_updates()",
  },
  {
    table: "entries",
    name: "entries_vector_outbox_update",
    ddl: "AFTER UPDATE ON entries REFERENCING OLD TABLE AS vector_outbox_old_entries NEW TABLE AS vector_outbox_new_entries FOR EACH STATEMENT EXECUTE FUNCTION vector_outbox_entries()",
  },
  {
    table: "grants",
    name: "grants_vector_outbox_insert",
    ddl: "AFTER INSERT ON grants REFERENCING NEW TABLE AS vector_outbox_new_grants FOR EACH STATEMENT EXECUTE FUNCTION vector_outbox_grants()",
  },
  {
    table: "grants",
    name: "grants_vector_outbox_delete",
    ddl: "AFTER DELETE ON grants REFERENCING OLD TABLE AS vector_outbox_old_grants FOR EACH STATEMENT EXECUTE FUNCTION vector_outbox_grants()",
  },
  {
    table: "collection_members",
    name: "collection_members_vector_outbox_insert",
    ddl: "AFTER INSERT ON collection_members REFERENCING NEW TABLE AS vector_outbox_new_members FOR EACH STATEMENT EXECUTE FUNCTION vector_outbox_collection_members()",
  },
  {
    table: "collection_members",
    name: "collection_members_vector_outbox_delete",
    ddl: "AFTER DELETE ON collection_members REFERENCING OLD TABLE AS vector_outbox_old_members FOR EACH STATEMENT EXECUTE FUNCTION vector_outbox_collection_members()",
  },
] as const;

/** Serialises outbox switches between store replicas (an arbitrary constant: "vecoutbx"). */
const switchLockKey = 0x7665636f75746278n;

/**
 * Turns the outbox on (a Qdrant store) or off (a pgvector store), once per
 * change of state, in one transaction under an advisory lock. Turning it on
 * installs the triggers and enqueues every stored chunk, so an index that
 * missed writes while the outbox was off catches up; turning it off removes
 * the triggers and the rows nobody will deliver. Returns whether the state
 * changed.
 */
export async function setVectorOutbox(db: SqlDatabase, on: boolean): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [switchLockKey.toString()]);
    const { rows } = await tx.query<{ value: string }>("SELECT value FROM search_settings WHERE key = 'vector_outbox'");
    const current = rows[0]?.value === "on";
    if (current === on) {
      if (!on) return false;
      // On already; a store of a newer version may watch more changes, so the trigger set is completed (nothing re-enqueued).
      const { rows: installed } = await tx.query<{ count: number }>(
        "SELECT count(*)::integer AS count FROM pg_trigger WHERE tgname = ANY($1::text[]) AND NOT tgisinternal",
        [triggers.map((trigger) => trigger.name)],
      );
      if (installed[0]?.count === triggers.length) return false;
      for (const trigger of triggers) await tx.query(`DROP TRIGGER IF EXISTS ${trigger.name} ON ${trigger.table}`);
      for (const trigger of triggers) await tx.query(`CREATE TRIGGER ${trigger.name} ${trigger.ddl}`);
      return true;
    }
    await tx.query(
      `INSERT INTO search_settings (key, value) VALUES ('vector_outbox', $1)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now()`,
      [on ? "on" : "off"],
    );
    for (const trigger of triggers) await tx.query(`DROP TRIGGER IF EXISTS ${trigger.name} ON ${trigger.table}`);
    if (on) {
      for (const trigger of triggers) await tx.query(`CREATE TRIGGER ${trigger.name} ${trigger.ddl}`);
      await enqueueAllChunks(tx);
    } else {
      await tx.query("DELETE FROM vector_outbox");
    }
    return true;
  });
}

async function enqueueAllChunks(tx: SqlExecutor): Promise<void> {
  const { rows } = await tx.query<{ type: string }>(
    "SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'",
  );
  const dimensionOf = rows[0]?.type === "vector" ? "vector_dims(c.embedding)" : "cardinality(c.embedding)";
  await tx.query(
    `INSERT INTO vector_outbox (op, target, embedding_model, dimension) SELECT 'chunk_upsert', c.id, c.embedding_model, ${dimensionOf} FROM chunks c ORDER BY c.id`,
  );
}

export interface OutboxStatus {
  pending: number;
  /** Seconds since the oldest undelivered row was written; 0 when none waits. */
  lagSeconds: number;
}

/** How far the index is behind PostgreSQL, and the metrics that say so. */
export async function readOutboxStatus(db: SqlExecutor): Promise<OutboxStatus> {
  const { rows } = await db.query<{ pending: number; lag: number | null }>(
    "SELECT count(*)::integer AS pending, extract(epoch FROM clock_timestamp() - min(enqueued_at))::float8 AS lag FROM vector_outbox",
  );
  const status = { pending: rows[0]?.pending ?? 0, lagSeconds: Math.max(0, rows[0]?.lag ?? 0) };
  pendingGauge.set(status.pending);
  lagGauge.set(status.lagSeconds);
  return status;
}

interface OutboxRow {
  seq: string;
  op: "chunk_upsert" | "chunk_delete" | "entry_refresh";
  target: string;
  embedding_model: string | null;
  dimension: number | null;
}

/**
 * Delivers the oldest `limit` outbox rows: reads what PostgreSQL holds now
 * for each, writes it to Qdrant, then deletes those rows (and only those:
 * rows committed meanwhile wait for the next round). Throws when Qdrant
 * fails, leaving every row in place. Returns how many rows it delivered.
 */
export async function deliverOutboxBatch(
  db: SqlDatabase,
  collections: QdrantCollections,
  limit: number,
): Promise<number> {
  const { rows } = await db.query<OutboxRow>(
    "SELECT seq::text AS seq, op, target, embedding_model, dimension FROM vector_outbox ORDER BY seq LIMIT $1",
    [limit],
  );
  if (rows.length === 0) return 0;
  const chunkIds = [...new Set(rows.filter((row) => row.op !== "entry_refresh").map((row) => row.target))];
  const entryIds = [...new Set(rows.filter((row) => row.op === "entry_refresh").map((row) => row.target))];
  const points = await readChunkPoints(db, "(c.id = ANY($1::uuid[]) OR c.entry_id = ANY($2::uuid[]))", [
    chunkIds,
    entryIds,
  ]);
  const current = new Map(points.map((point) => [point.id, point.payload]));
  // A chunk row that no longer exists in that space (deleted, replaced by an update, or re-embedded into another space) must leave it, whatever the row's op said.
  const gone = new Map<string, { model: string; dimension: number; ids: Set<string> }>();
  for (const row of rows) {
    if (row.op === "entry_refresh" || row.embedding_model === null || row.dimension === null) continue;
    const now = current.get(row.target);
    if (now !== undefined && now.embedding_model === row.embedding_model && now.dimension === row.dimension) continue;
    const key = `${row.embedding_model}\u0000${row.dimension}`;
    const space = gone.get(key) ?? { model: row.embedding_model, dimension: row.dimension, ids: new Set<string>() };
    space.ids.add(row.target);
    gone.set(key, space);
  }
  await collections.upsert(points);
  for (const space of gone.values()) await collections.remove(space.model, space.dimension, [...space.ids]);
  await db.query("DELETE FROM vector_outbox WHERE seq = ANY($1::bigint[])", [rows.map((row) => row.seq)]);
  return rows.length;
}

export interface RelaySettings {
  batch: number;
  idleMs: number;
  maxBackoffMs: number;
}

export interface VectorOutboxRelay {
  /** Installs the outbox (if it was off) and starts delivering in the background. */
  start(): Promise<void>;
  /** Stops after the round in flight. */
  stop(): Promise<void>;
}

/** The first wait after a failed delivery; it doubles per failure up to the configured maximum. */
const firstBackoffMs = 250;

/**
 * The relay loop: deliver a batch; when the outbox is empty, wait `idleMs`;
 * when Qdrant fails, log, wait (exponential backoff with jitter) and try the
 * same rows again. Keeps the pending and lag gauges current every round.
 */
export function createVectorOutboxRelay(
  db: SqlDatabase,
  collections: QdrantCollections,
  logger: Logger,
  settings: RelaySettings,
): VectorOutboxRelay {
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let failures = 0;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function run(): Promise<void> {
    while (running) {
      let wait = settings.idleMs;
      try {
        const delivered = await deliverOutboxBatch(db, collections, settings.batch);
        if (failures > 0) logger.info({ failures }, "the vector index answers again; the outbox is being delivered");
        failures = 0;
        await readOutboxStatus(db);
        if (delivered === settings.batch) wait = 0;
      } catch (error) {
        failures += 1;
        wait = Math.min(settings.maxBackoffMs, firstBackoffMs * 2 ** Math.min(failures - 1, 20));
        wait = Math.round(wait * (0.75 + Math.random() * 0.5));
        logger.warn(
          { err: error, failures, retryInMs: wait },
          "delivering the vector outbox failed; writes are kept and retried",
        );
        await readOutboxStatus(db).catch(() => undefined);
      }
      if (running && wait > 0) await pause(wait);
    }
  }

  return {
    async start() {
      if (running) return;
      await setVectorOutbox(db, true);
      running = true;
      loop = run();
    },

    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
