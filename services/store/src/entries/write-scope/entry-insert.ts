/**
 * A new entry in one statement: the row, its chunks and node summaries as
 * data-modifying CTEs (optionally behind the duplicate rule, and behind the
 * rule that an owner's prompt names are unique), then its images and the
 * artifacts it links.
 */
import { createSqlParams, type SqlParams } from "../../db/sql-database.js";
import { accessPredicate } from "../../filters/access-predicate.js";
import type { EntryAck, EntryWrite, GeneratedWrite } from "../../model/entry-model.js";
import { createUuidV7 } from "../../model/ids.js";
import type { Principal } from "../../model/principal.js";
import type { Trust } from "../../model/trust.js";
import { duplicateQuery } from "./duplicate-query.js";
import { insertArtifactLinks } from "./entry-artifact-links.js";
import { insertImages } from "./entry-images.js";
import { chunkInsert, chunkRows, nodeSummaryInsert, nodeSummaryRows, recordChunks } from "./generated-rows.js";
import {
  ackColumns,
  searchVectorOf,
  toAck,
  toTimestampParam,
  type AckRow,
  type WriteContext,
} from "./write-context.js";
import { toPromptArgumentsJson } from "../../model/prompt-arguments.js";
import { promptNameTaken } from "../../model/prompt-name.js";
import { guardPromptName, promptNameHolder } from "./prompt-name-guard.js";

/** The parameters the entry's CTE and the final SELECT both name, bound once (cast: INSERT … SELECT does not type them). */
interface EntryKeys {
  id: string;
  tenant: string;
  threadId: string;
  owner: string;
  contentHash: string;
  /** The memory the entry mirrors (NULL for any other entry). */
  memoryId: string | null;
}

/**
 * The CTE `e` inserting the entry row and returning its acknowledgement
 * columns; with `guarded`, only when CTE `d` (the duplicate) is empty, and
 * with a prompt name only when CTE `p` (the owner's prompt that has it) is. An
 * unspecified visibility becomes `shared` when the caller has a grant on the
 * thread, else `private`.
 */
function entryInsert(
  params: SqlParams,
  keys: EntryKeys,
  write: EntryWrite,
  generated: GeneratedWrite,
  trust: Trust,
  guarded: boolean,
): string {
  const { tenant, threadId, owner } = keys;
  const guards = [
    ...(guarded ? ["NOT EXISTS (SELECT 1 FROM d)"] : []),
    ...(write.promptName === undefined ? [] : ["NOT EXISTS (SELECT 1 FROM p)"]),
  ];
  // INSERT … SELECT, so that a duplicate can stop it; the columns do not type the parameters there, so each is cast.
  return `e AS (
         INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash, metadata, tags, summary, content_type,
           trust_state, trust_reasons, updated_by, valid_from, valid_to, kind, title, prompt_arguments, prompt_name, search_vector, memory_id)
         SELECT ${keys.id}::uuid, ${tenant}, ${threadId}, ${params.add(write.source)}::text, ${owner},
           coalesce(${params.add(write.visibility ?? null)}::text,
             CASE WHEN EXISTS (SELECT 1 FROM grants g WHERE g.tenant = ${tenant} AND g.thread_id = ${threadId} AND g.grantor = ${owner}) THEN 'shared' ELSE 'private' END),
           ${params.add(write.text)}::text, ${params.add(write.textLength)}::integer, ${params.add(write.preview)}::text, ${keys.contentHash},
           ${params.add(JSON.stringify(write.metadata))}::jsonb, ${params.add(write.tags)}::text[], ${params.add(generated.summary)}::text,
           ${params.add(write.contentType)}::text, ${params.add(trust.state)}::text, ${params.add(trust.reasons)}::text[], ${owner},
           ${params.add(toTimestampParam(write.validity.validFrom))}::timestamptz, ${params.add(toTimestampParam(write.validity.validTo))}::timestamptz,
           ${params.add(write.kind)}::text, ${params.add(write.title ?? null)}::text,
           ${params.add(toPromptArgumentsJson(write.promptArguments))}::jsonb, ${params.add(write.promptName ?? null)}::text,
           ${searchVectorOf(params, write)},
           ${params.add(keys.memoryId)}::uuid
         ${guards.length > 0 ? `WHERE ${guards.join(" AND ")}` : ""}
         RETURNING id, version, content_hash, created_at, updated_at, trust_state, trust_reasons
       )`;
}

/**
 * The entry with its chunks and node summaries in one statement (data-modifying CTEs), then its images; with
 * `guarded`, the same statement first looks for the caller's duplicate and then inserts nothing. Every part runs
 * exactly once whether the final SELECT reads it or not, all on one snapshot (so the duplicate lookup does not see
 * the new row); the foreign keys to the new entry are checked at the end of the statement, and the statement-level
 * triggers on chunks (embedding spaces, the vector outbox) fire once for the chunks it inserted, as for a plain INSERT.
 */
export async function insertEntry(
  context: WriteContext,
  principal: Principal,
  write: EntryWrite,
  generated: GeneratedWrite,
  trust: Trust,
  guarded: boolean,
  memoryId: string | null = null,
): Promise<{ inserted: EntryAck } | { duplicateOf: string }> {
  const id = createUuidV7();
  const params = createSqlParams();
  const parts: string[] = [];
  if (guarded)
    parts.push(
      `d AS (${duplicateQuery(params, principal, { threadId: write.threadId, source: write.source, contentHash: write.contentHash })})`,
    );
  const keys: EntryKeys = {
    id: params.add(id),
    tenant: `${params.add(principal.tenant)}::text`,
    threadId: `${params.add(write.threadId)}::text`,
    owner: `${params.add(principal.subject)}::text`,
    contentHash: `${params.add(write.contentHash)}::text`,
    memoryId,
  };
  if (write.promptName !== undefined)
    parts.push(`p AS (${promptNameHolder(params, keys.tenant, keys.owner, write.promptName, undefined)})`);
  parts.push(entryInsert(params, keys, write, generated, trust, guarded));
  const chunkIds = generated.chunks.map(() => createUuidV7());
  if (generated.chunks.length > 0)
    parts.push(
      `c AS (${chunkInsert(context, params, "e.id", keys.tenant, generated)} FROM e, ${chunkRows(context, params, generated, chunkIds)})`,
    );
  if (generated.nodeSummaries.length > 0)
    parts.push(`n AS (${nodeSummaryInsert("e.id")} FROM e, ${nodeSummaryRows(params, generated)})`);
  const query = context.tx.query<
    { [K in keyof AckRow]: AckRow[K] | null } & {
      duplicate_of: string | null;
      name_holder: string | null;
      previously_deleted: boolean;
    }
  >(
    `WITH ${parts.join(", ")}
       SELECT ${guarded ? "(SELECT d.id FROM d)" : "NULL::uuid"} AS duplicate_of,
         ${write.promptName === undefined ? "NULL::uuid" : "(SELECT p.id FROM p)"} AS name_holder, ${ackColumns},
         EXISTS (
           SELECT 1 FROM tombstones t
           WHERE t.tenant = ${keys.tenant} AND t.thread_id = ${keys.threadId} AND t.content_hash = ${keys.contentHash}
             AND (t.deleted_by = ${keys.owner} OR ${accessPredicate(principal, "t", params)})
         ) AS previously_deleted
       FROM (SELECT 1) AS one LEFT JOIN e ON true`,
    params.values,
  );
  const { rows } = await guardPromptName(query, write.promptName);
  const row = rows[0];
  // A duplicate is folded into (the fold checks the name again, its own holding it aside); else a holder refuses it.
  if (row?.duplicate_of != null) return { duplicateOf: row.duplicate_of };
  if (row?.name_holder != null && write.promptName !== undefined)
    throw promptNameTaken(write.promptName, row.name_holder);
  if (row?.id == null) throw new Error("INSERT … RETURNING returned no row");
  recordChunks(context, generated, chunkIds);
  await insertImages(context.tx, id, write.images);
  await insertArtifactLinks(context.tx, principal.tenant, id, write.artifacts);
  return { inserted: { ...toAck(row as AckRow, false), previouslyDeleted: row.previously_deleted } };
}
