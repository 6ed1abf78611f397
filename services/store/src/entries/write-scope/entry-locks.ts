/**
 * The row and advisory locks a write takes before it changes anything,
 * always in one global order (threads by key, entries by id) so that
 * concurrent writes queue instead of deadlocking.
 */
import { lockClasses, lockInOrder, toAdvisoryKey } from "../../db/advisory-locks.js";
import { createSqlParams, type SqlExecutor, type SqlParams } from "../../db/sql-database.js";
import { accessPredicate } from "../../filters/access-predicate.js";
import type { JsonObject, LockedEntry, Source, Visibility } from "../../model/entry-model.js";
import type { Principal } from "../../model/principal.js";
import type { TrustState } from "../../model/trust.js";
import { memoryMirrorRefused } from "../memory-mirror.js";
import { storedArtifactLinks } from "./entry-artifact-links.js";
import { storedImageKeys } from "./entry-images.js";
import { fromPromptArgumentsJson } from "../../model/prompt-arguments.js";

interface LockedRow {
  id: string;
  thread_id: string;
  owner: string;
  visibility: Visibility;
  version: number;
  content_hash: string;
  tags: string[];
  metadata: JsonObject;
  image_keys: string[];
  created_at: Date;
  updated_at: Date;
  writable: boolean;
  source: Source;
  trust_state: TrustState;
  trust_reasons: string[];
  updated_by: string;
  valid_from: Date | null;
  valid_to: Date | null;
  kind: string;
  title: string | null;
  prompt_arguments: unknown;
  prompt_name: string | null;
  artifacts: string[];
  memory_id: string | null;
}

/** Holds the write locks of the threads (in the caller's tenant) until the transaction ends. */
export function lockThreads(tx: SqlExecutor, principal: Principal, threadIds: readonly string[]): Promise<void> {
  return lockInOrder(
    tx,
    lockClasses.thread,
    threadIds.map((threadId) => toAdvisoryKey([principal.tenant, threadId])),
  );
}

/** Locks the visible entries among `ids` in id order. */
export async function lockEntries(tx: SqlExecutor, principal: Principal, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const params = createSqlParams();
  await tx.query(
    `SELECT e.id FROM entries e WHERE e.id = ANY(${params.add([...new Set(ids)])}::uuid[]) AND ${accessPredicate(principal, "e", params)}
         ORDER BY e.id FOR UPDATE`,
    params.values,
  );
}

/** The columns of a locked entry, and whether the caller may change it. */
function lockedColumns(principal: Principal, params: SqlParams): string {
  return `e.id, e.thread_id, e.owner, e.visibility, e.version, e.content_hash, e.tags, e.metadata, e.created_at, e.updated_at,
           e.source, e.trust_state, e.trust_reasons, coalesce(e.updated_by, e.owner) AS updated_by, e.valid_from, e.valid_to,
           e.kind, e.title, e.prompt_arguments, e.prompt_name, e.memory_id, ${storedImageKeys} AS image_keys, ${storedArtifactLinks} AS artifacts,
           ${accessPredicate(principal, "e", params, "write")} AS writable`;
}

/**
 * Locks entry `id` if the caller may see it, and reads it as it is once
 * locked; undefined if it is gone or invisible. Every entry-side change of an
 * entry takes this lock, so it refuses a memory's mirror entry here
 * (PERMISSION_DENIED naming the memory): only the memory's put and delete
 * change a mirror.
 */
export async function lockEntry(tx: SqlExecutor, principal: Principal, id: string): Promise<LockedEntry | undefined> {
  const lockParams = createSqlParams();
  const locked = await tx.query(
    `SELECT e.id FROM entries e WHERE e.id = ${lockParams.add(id)} AND ${accessPredicate(principal, "e", lockParams)} FOR UPDATE`,
    lockParams.values,
  );
  if (locked.rows.length === 0) return undefined;
  // Read once the lock is held: this statement's snapshot includes whatever the previous holder committed (images, grants).
  const params = createSqlParams();
  const { rows } = await tx.query<LockedRow>(
    `SELECT ${lockedColumns(principal, params)}
         FROM entries e WHERE e.id = ${params.add(id)} AND ${accessPredicate(principal, "e", params)}`,
    params.values,
  );
  const row = rows[0];
  if (row?.memory_id != null) throw memoryMirrorRefused(row.id, row.metadata);
  return row === undefined ? undefined : toLockedEntry(row);
}

/**
 * Locks the mirror entry of memory `memoryId` if the caller may see it, for
 * the memory's own put or delete (the one path that changes a mirror);
 * undefined when the memory has none (it was stored before mirrors existed).
 */
export async function lockMirror(
  tx: SqlExecutor,
  principal: Principal,
  memoryId: string,
): Promise<LockedEntry | undefined> {
  const params = createSqlParams();
  const { rows } = await tx.query<LockedRow>(
    `SELECT ${lockedColumns(principal, params)}
         FROM entries e WHERE e.memory_id = ${params.add(memoryId)}::uuid AND ${accessPredicate(principal, "e", params)}
         FOR UPDATE`,
    params.values,
  );
  const row = rows[0];
  return row === undefined ? undefined : toLockedEntry(row);
}

function toLockedEntry(row: LockedRow): LockedEntry {
  return {
    id: row.id,
    threadId: row.thread_id,
    owner: row.owner,
    visibility: row.visibility,
    version: row.version,
    contentHash: row.content_hash,
    tags: row.tags,
    metadata: row.metadata,
    imageKeys: row.image_keys,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    writable: row.writable,
    source: row.source,
    trust: { state: row.trust_state, reasons: row.trust_reasons },
    updatedBy: row.updated_by,
    validity: { validFrom: row.valid_from ?? undefined, validTo: row.valid_to ?? undefined },
    kind: row.kind,
    title: row.title ?? undefined,
    promptArguments: fromPromptArgumentsJson(row.prompt_arguments),
    artifacts: row.artifacts,
    promptName: row.prompt_name ?? undefined,
  };
}
