/**
 * The history a write leaves: the version it replaces, kept in
 * `entry_versions`, and for a delete the entry's tombstone.
 */
import { createSqlParams, type SqlExecutor } from "../../db/sql-database.js";
import { accessPredicate } from "../../filters/access-predicate.js";
import type { Principal } from "../../model/principal.js";
import { fromPromptArgumentsJson } from "../../model/prompt-arguments.js";
import type { KeptVersion } from "../entry-ports.js";
import { linkedArtifactsOrNull } from "./entry-artifact-links.js";

/**
 * Keeps the current version of entry `id` (at `version`) in the history,
 * as replaced by `supersededBy` now, with the entry's full-text vector (the
 * same text's, so `as_of` search finds the version by index without parsing
 * it again). Runs just before the statement that replaces or deletes it, in
 * the same transaction.
 */
export async function keepVersion(tx: SqlExecutor, id: string, version: number, supersededBy: string): Promise<void> {
  await tx.query(
    `INSERT INTO entry_versions (entry_id, version, tenant, thread_id, source, owner, visibility, text, content_hash, metadata, tags, summary, trust_state,
       written_by, written_at, superseded_by, change_kind, restored_from, valid_from, valid_to, content_type, kind, title, prompt_arguments, prompt_name, artifacts, search_vector)
     SELECT e.id, e.version, e.tenant, e.thread_id, e.source, e.owner, e.visibility, e.text, e.content_hash, e.metadata, e.tags, e.summary, e.trust_state,
       coalesce(e.updated_by, e.owner), e.updated_at, $3, e.change_kind, e.restored_from, e.valid_from, e.valid_to, e.content_type, e.kind, e.title, e.prompt_arguments, e.prompt_name, ${linkedArtifactsOrNull("e")}, e.search_vector
     FROM entries e WHERE e.id = $1 AND e.version = $2`,
    [id, version, supersededBy],
  );
}

/** The content hash, valid-time interval, kind, title, prompt arguments, links and prompt name of kept version `version` of entry `id`, if it is kept. */
export async function keptVersion(tx: SqlExecutor, id: string, version: number): Promise<KeptVersion | undefined> {
  const { rows } = await tx.query<{
    content_hash: string;
    valid_from: Date | null;
    valid_to: Date | null;
    kind: string;
    title: string | null;
    prompt_arguments: unknown;
    prompt_name: string | null;
    artifacts: string[] | null;
  }>(
    "SELECT content_hash, valid_from, valid_to, kind, title, prompt_arguments, prompt_name, artifacts FROM entry_versions WHERE entry_id = $1 AND version = $2",
    [id, version],
  );
  const [row] = rows;
  return row === undefined
    ? undefined
    : {
        contentHash: row.content_hash,
        validity: { validFrom: row.valid_from ?? undefined, validTo: row.valid_to ?? undefined },
        kind: row.kind,
        title: row.title ?? undefined,
        promptArguments: fromPromptArgumentsJson(row.prompt_arguments),
        artifacts: row.artifacts ?? [],
        promptName: row.prompt_name ?? undefined,
      };
}

/** The current text of entry `id` (which the caller has locked, so it is there). */
export async function storedText(tx: SqlExecutor, id: string): Promise<string> {
  const { rows } = await tx.query<{ text: string }>("SELECT text FROM entries WHERE id = $1", [id]);
  return rows[0]?.text ?? "";
}

/**
 * Deletes the entries among `ids` that `principal` may change, in one
 * statement whose other parts keep each one's last version in the history
 * and leave its tombstone. Returns what was deleted.
 */
export async function deleteWithTombstones(
  tx: SqlExecutor,
  principal: Principal,
  ids: readonly string[],
  reason: string,
): Promise<{ id: string; contentHash: string }[]> {
  const params = createSqlParams();
  const idList = params.add(ids);
  const writable = accessPredicate(principal, "e", params, "write");
  const deleter = params.add(principal.subject);
  const why = params.add(reason);
  const { rows } = await tx.query<{ id: string; content_hash: string }>(
    `WITH gone AS (
       DELETE FROM entries e WHERE e.id = ANY(${idList}::uuid[]) AND ${writable}
       RETURNING e.id, e.version, e.tenant, e.thread_id, e.source, e.owner, e.visibility, e.text, e.content_hash, e.metadata, e.tags, e.summary,
         e.trust_state, coalesce(e.updated_by, e.owner) AS written_by, e.updated_at, e.change_kind, e.restored_from, e.created_at,
         e.valid_from, e.valid_to, e.content_type, e.kind, e.title, e.prompt_arguments, e.prompt_name, ${linkedArtifactsOrNull("e")} AS artifacts, e.search_vector
     ), kept AS (
       INSERT INTO entry_versions (entry_id, version, tenant, thread_id, source, owner, visibility, text, content_hash, metadata, tags, summary, trust_state,
         written_by, written_at, superseded_by, change_kind, restored_from, valid_from, valid_to, content_type, kind, title, prompt_arguments, prompt_name, artifacts, search_vector)
       SELECT g.id, g.version, g.tenant, g.thread_id, g.source, g.owner, g.visibility, g.text, g.content_hash, g.metadata, g.tags, g.summary, g.trust_state,
         g.written_by, g.updated_at, ${deleter}, g.change_kind, g.restored_from, g.valid_from, g.valid_to, g.content_type, g.kind, g.title, g.prompt_arguments, g.prompt_name, g.artifacts, g.search_vector
       FROM gone g
     ), stones AS (
       INSERT INTO tombstones (id, tenant, thread_id, source, owner, visibility, content_hash, created_at, deleted_by, reason)
       SELECT g.id, g.tenant, g.thread_id, g.source, g.owner, g.visibility, g.content_hash, g.created_at, ${deleter}, ${why}
       FROM gone g
     )
     SELECT g.id, g.content_hash FROM gone g ORDER BY g.id`,
    params.values,
  );
  return rows.map((row) => ({ id: row.id, contentHash: row.content_hash }));
}

/**
 * Deletes every entry of the thread that `principal` may change, as
 * `deleteWithTombstones` does; returns them in id order. Memories' mirror
 * entries are left: delete_memory deletes them with their memories.
 */
export async function deleteThread(
  tx: SqlExecutor,
  principal: Principal,
  threadId: string,
  reason: string,
): Promise<{ id: string; contentHash: string }[]> {
  // Lock first, in id order (as every multi-entry change does), then delete what was locked.
  const params = createSqlParams();
  const { rows } = await tx.query<{ id: string }>(
    `SELECT e.id FROM entries e
         WHERE e.tenant = ${params.add(principal.tenant)} AND e.thread_id = ${params.add(threadId)} AND e.memory_id IS NULL
           AND ${accessPredicate(principal, "e", params, "write")}
         ORDER BY e.id FOR UPDATE`,
    params.values,
  );
  if (rows.length === 0) return [];
  return deleteWithTombstones(
    tx,
    principal,
    rows.map((row) => row.id),
    reason,
  );
}
