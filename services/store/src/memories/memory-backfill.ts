/**
 * Mirror entries for memories stored before mirrors existed (schema 20):
 * what `context-hub backfill-memories` does. Such a memory's current value
 * is not found by search until a put writes its mirror; the backfill writes
 * it instead, exactly as that put would: the entry the memory's revision is
 * mirrored as (its namespace, owner, visibility, tags, trust and value),
 * with the chunks, embeddings and summary generated for its value, inserted
 * through the memory write scope in one transaction with an audit record.
 *
 * Generation runs first, for a whole batch, outside any transaction; the
 * batch then commits in one transaction in which each memory is locked and
 * written only if it is still live, still at the version its value was
 * generated for, and still unmirrored. So a mirror is never stored without
 * its chunks and embeddings (nothing finds it half-written), a memory put or
 * deleted meanwhile is left to that put or delete, and a second run finds
 * nothing to do. An interrupted run leaves whole batches, and a rerun goes
 * on with the memories still unmirrored.
 */
import type { SqlDatabase } from "../db/sql-database.js";
import { validateGenerated } from "../entries/entry-validation.js";
import type { GeneratedInput, GeneratedWrite } from "../model/entry-model.js";
import type { Principal } from "../model/principal.js";
import { mirrorIn } from "./memory-mirroring.js";
import { createMemoryRepository, type MemoryWriteScope, type UnmirroredMemory } from "./memory-repository.js";
import { memoryColumns, toMemoryRecord, unmirrored, type MemoryRow } from "./memory-rows.js";

const firstId = "00000000-0000-0000-0000-000000000000";

/**
 * Up to `limit` live memories without a mirror entry, of every tenant, after
 * memory id `after` in id order: the backfill answers no caller, so no access
 * predicate applies; each mirror is written for its memory's owner.
 */
async function unmirroredAfter(db: SqlDatabase, after: string, limit: number): Promise<UnmirroredMemory[]> {
  const { rows } = await db.query<MemoryRow & { tenant: string }>(
    `SELECT ${memoryColumns}, m.tenant FROM memories m
     WHERE m.id > $1::uuid AND m.deleted_at IS NULL AND ${unmirrored}
     ORDER BY m.id LIMIT $2`,
    [after, limit],
  );
  return rows.map((row) => ({ ...toMemoryRecord(row), tenant: row.tenant }));
}

export interface MemoryBackfillOptions {
  /**
   * What a put's generation would give for each text (a memory's value as
   * stored), in order: chunks with their embeddings, the summary and node
   * summaries, and each text's `textHash`.
   */
  generate(texts: string[]): Promise<GeneratedInput[]>;
  /** Memories per generation call and per transaction. */
  batchSize: number;
  /** Called after each committed batch with the number of mirrors it wrote. */
  onBatch?(mirrored: number): void;
  /** Stops after the batch in flight commits. */
  signal?: AbortSignal;
}

export interface MemoryBackfillResult {
  /** Mirror entries this run wrote. */
  mirrored: number;
  /** Memories put or deleted (or mirrored) by someone else between generation and commit: their put or delete decided. */
  skipped: number;
  batches: number;
  /** Whether the run stopped early on `signal`. */
  interrupted: boolean;
}

/** How many live memories have no mirror entry. */
export async function countUnmirroredMemories(db: SqlDatabase): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::integer AS count FROM memories m WHERE m.deleted_at IS NULL AND ${unmirrored}`,
  );
  return rows[0]?.count ?? 0;
}

/** The memory's owner as the principal its mirror is written for: the mirror is the owner's, in the memory's tenant. */
function ownerOf(memory: UnmirroredMemory): Principal {
  return { tenant: memory.tenant, subject: memory.owner, groups: [], scopes: [] };
}

/** Writes the mirror of each memory still unmirrored at the version it was generated for; returns how many. */
async function mirrorBatch(
  scope: MemoryWriteScope,
  batch: readonly { memory: UnmirroredMemory; generated: GeneratedWrite }[],
): Promise<number> {
  let mirrored = 0;
  for (const { memory, generated } of batch) {
    const locked = await scope.lockUnmirrored(memory.id, memory.version);
    if (locked === undefined || locked.contentHash !== memory.contentHash) continue;
    await mirrorIn(scope, ownerOf(locked), locked, generated);
    scope.audit.record(locked.tenant, {
      actor: "operator",
      action: "memory.mirror",
      outcome: "ok",
      targetIds: [locked.id],
      beforeHashes: [],
      afterHashes: [locked.contentHash],
      details: { namespace: locked.namespace, key: locked.key, owner: locked.owner, version: locked.version },
    });
    mirrored += 1;
  }
  return mirrored;
}

/**
 * Gives every live memory without a mirror entry its mirror, in batches of
 * `batchSize` memories (one generation call and one transaction each), in
 * memory id order.
 */
export async function backfillMemoryMirrors(
  db: SqlDatabase,
  options: MemoryBackfillOptions,
): Promise<MemoryBackfillResult> {
  const { batchSize } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new Error(`batch size must be a positive whole number (got ${batchSize})`);
  const repository = createMemoryRepository(db);
  const result: MemoryBackfillResult = { mirrored: 0, skipped: 0, batches: 0, interrupted: false };
  let after = firstId;
  for (;;) {
    if (options.signal?.aborted === true) {
      result.interrupted = true;
      break;
    }
    const memories = await unmirroredAfter(db, after, batchSize);
    if (memories.length === 0) break;
    after = memories[memories.length - 1]!.id;
    const generated = await options.generate(memories.map((memory) => memory.value));
    if (generated.length !== memories.length)
      throw new Error(`generation returned ${generated.length} results for ${memories.length} memory values`);
    // Checked as a put checks its generation output: for this very value, spans inside it, vectors whole.
    const batch = memories.map((memory, index) => ({
      memory,
      generated: validateGenerated(generated[index]!, memory.value, `memory ${memory.id}: generated`, true),
    }));
    const mirrored = await repository.transaction((scope) => mirrorBatch(scope, batch));
    result.mirrored += mirrored;
    result.skipped += memories.length - mirrored;
    result.batches += 1;
    options.onBatch?.(mirrored);
  }
  return result;
}
