import { accessPredicate } from "../filters/access-predicate.js";
import { currentRequestId } from "../audit/audit.js";
import { createAuditStatements } from "../audit/audit-repository.js";
import { lockClasses, lockInOrder, toAdvisoryKey } from "../db/advisory-locks.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor, type SqlParams } from "../db/sql-database.js";
import type { DuplicateKey, EntryAck, EntryWrite, GeneratedWrite, ImageWrite, JsonObject, Source, TextWrite, Visibility } from "../model/entry-model.js";
import type { EntryRepository, EntryWriteScope } from "./entry-ports.js";
import { entryColumns, resolveIds, toStoredEntry, type EntryRow } from "./entry-rows.js";
import { createGrantStatements } from "./grant-repository.js";

import { createIdempotencyStatements, findRecordedCall } from "../idempotency/idempotency-repository.js";
import { createUuidV7 } from "../model/ids.js";

import type { Principal } from "../model/principal.js";
import { entrySource, previewSourceColumn, searchFilterConditions } from "../filters/search-filter-sql.js";
import { createReviewStatements } from "./review-repository.js";
import { createDatabaseSearchVectors, type SearchVectors } from "./search-vectors.js";
import { trustFilter } from "../filters/trust-filter.js";
import type { Trust, TrustState } from "../model/trust.js";
import type { CommittedChunk } from "../vectors/vector-index.js";
import { toVectorsParam } from "../vectors/vector-literal.js";

const opposite: Record<Source, Source> = { user: "agent", agent: "user" };

interface AckRow {
  id: string;
  version: number;
  content_hash: string;
  created_at: Date;
  updated_at: Date;
  trust_state: TrustState;
  trust_reasons: string[];
}

const ackColumns = "e.id, e.version, e.content_hash, e.created_at, e.updated_at, e.trust_state, e.trust_reasons";

function toAck(row: AckRow, deduplicated: boolean): EntryAck {
  return {
    id: row.id,
    version: row.version,
    contentHash: row.content_hash,
    deduplicated,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    previouslyDeleted: false,
    trust: { state: row.trust_state, reasons: row.trust_reasons },
  };
}

/** An entry row (selected with `entryColumns`, and on a by-id fetch its text and what hangs off it) as a reader sees it. */

/**
 * The duplicate rule as one statement: the caller's latest entry in the
 * thread with this source, provided its hash matches and no entry of the
 * other source that the caller may see came after it (ties on created_at are
 * broken by id, which is time-ordered).
 */
async function findDuplicate(executor: SqlExecutor, principal: Principal, key: DuplicateKey): Promise<string | undefined> {
  const params = createSqlParams();
  const { rows } = await executor.query<{ id: string }>(duplicateQuery(params, principal, key), params.values);
  return rows[0]?.id;
}

/** The statement of `findDuplicate`, selecting the duplicate's `id` (no row when there is none), for use alone or inside another statement. */
function duplicateQuery(params: SqlParams, principal: Principal, key: DuplicateKey): string {
  const tenant = params.add(principal.tenant);
  const threadId = params.add(key.threadId);
  // The candidate is the caller's own entry in the caller's tenant, which the predicate always admits;
  // only the later entries of the other source need it.
  const laterAccess = accessPredicate(principal, "o", params);
  return `SELECT candidate.id FROM (
       SELECT e.id, e.content_hash, e.created_at FROM entries e
       WHERE e.tenant = ${tenant} AND e.thread_id = ${threadId} AND e.source = ${params.add(key.source)}
         AND e.owner = ${params.add(principal.subject)}
       ORDER BY e.created_at DESC, e.id DESC
       LIMIT 1
     ) candidate
     WHERE candidate.content_hash = ${params.add(key.contentHash)}
       AND NOT EXISTS (
         SELECT 1 FROM entries o
         WHERE o.tenant = ${tenant} AND o.thread_id = ${threadId} AND o.source = ${params.add(opposite[key.source])}
           AND (o.created_at, o.id) > (candidate.created_at, candidate.id) AND ${laterAccess})`;
}

function toImageKeys(images: readonly ImageWrite[]): string[] {
  return images.map((image) => `${image.mimeType} ${image.sha256}`);
}

async function insertImages(tx: SqlExecutor, entryId: string, images: readonly ImageWrite[]): Promise<void> {
  // One statement per image: each may be megabytes, and batching them would only build one huge parameter.
  for (const [ordinal, image] of images.entries()) {
    await tx.query("INSERT INTO entry_images (entry_id, ordinal, mime_type, byte_size, sha256, data) VALUES ($1, $2, $3, $4, $5, $6)", [
      entryId,
      ordinal,
      image.mimeType,
      image.byteSize,
      image.sha256,
      image.data,
    ]);
  }
}

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
}

/** A timestamp parameter for a possibly open end of a valid-time interval. */
const toTimestampParam = (date: Date | undefined): string | null => date?.toISOString() ?? null;

/**
 * Keeps the current version of entry `id` (at `version`) in the history,
 * as replaced by `supersededBy` now, with the entry's full-text vector (the
 * same text's, so `as_of` search finds the version by index without parsing
 * it again). Runs just before the statement that replaces or deletes it, in
 * the same transaction.
 */
async function keepVersion(tx: SqlExecutor, id: string, version: number, supersededBy: string): Promise<void> {
  await tx.query(
    `INSERT INTO entry_versions (entry_id, version, tenant, thread_id, source, owner, visibility, text, content_hash, metadata, tags, summary, trust_state,
       written_by, written_at, superseded_by, change_kind, restored_from, valid_from, valid_to, content_type, search_vector)
     SELECT e.id, e.version, e.tenant, e.thread_id, e.source, e.owner, e.visibility, e.text, e.content_hash, e.metadata, e.tags, e.summary, e.trust_state,
       coalesce(e.updated_by, e.owner), e.updated_at, $3, e.change_kind, e.restored_from, e.valid_from, e.valid_to, e.content_type, e.search_vector
     FROM entries e WHERE e.id = $1 AND e.version = $2`,
    [id, version, supersededBy],
  );
}

/**
 * Deletes the entries among `ids` that `principal` may change, in one
 * statement whose other parts keep each one's last version in the history
 * and leave its tombstone. Returns what was deleted.
 */
async function deleteWithTombstones(tx: SqlExecutor, principal: Principal, ids: readonly string[], reason: string): Promise<{ id: string; contentHash: string }[]> {
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
         e.valid_from, e.valid_to, e.content_type, e.search_vector
     ), kept AS (
       INSERT INTO entry_versions (entry_id, version, tenant, thread_id, source, owner, visibility, text, content_hash, metadata, tags, summary, trust_state,
         written_by, written_at, superseded_by, change_kind, restored_from, valid_from, valid_to, content_type, search_vector)
       SELECT g.id, g.version, g.tenant, g.thread_id, g.source, g.owner, g.visibility, g.text, g.content_hash, g.metadata, g.tags, g.summary, g.trust_state,
         g.written_by, g.updated_at, ${deleter}, g.change_kind, g.restored_from, g.valid_from, g.valid_to, g.content_type, g.search_vector
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
 * The write statements of one transaction. Every chunk it inserts is added to
 * `inserted` (id, model, vector), for the repository to report once the
 * transaction has committed.
 */
function createWriteScope(db: SqlDatabase, tx: SqlExecutor, inserted: CommittedChunk[]): EntryWriteScope {
  const vectorCast = db.vectorType === "pgvector" ? "vector" : "real[]";

  const insertGenerated = async (entryId: string, tenant: string, generated: GeneratedWrite) => {
    if (generated.chunks.length > 0) {
      const params = createSqlParams();
      const entry = params.add(entryId);
      const ids = generated.chunks.map(() => createUuidV7());
      await tx.query(`${chunkInsert(params, entry, params.add(tenant), generated)} FROM ${chunkRows(params, generated, ids)}`, params.values);
      recordChunks(generated, ids);
    }
    if (generated.nodeSummaries.length > 0) {
      const params = createSqlParams();
      const entry = params.add(entryId);
      await tx.query(`${nodeSummaryInsert(entry)} FROM ${nodeSummaryRows(params, generated)}`, params.values);
    }
  };

  /**
   * `INSERT INTO chunks … SELECT …` for the rows `chunkRows` names `c`; the caller adds the FROM clause. The embeddings
   * travel as one flat `real[]` (`toVectorsParam`: binary on PGlite), and row `c.k` takes its slice of it.
   */
  const chunkInsert = (params: SqlParams, entryId: string, tenant: string, generated: GeneratedWrite) => {
    const vectors = toVectorsParam(generated.chunks.map((chunk) => chunk.vector));
    const dimensions = `${params.add(vectors.dimensions)}::integer`;
    const embedding = `(${params.add(vectors.value)}::real[])[(c.k::integer - 1) * ${dimensions} + 1 : c.k::integer * ${dimensions}]`;
    return `INSERT INTO chunks (id, entry_id, tenant, ordinal, start_offset, end_offset, embedding_model, embedding)
     SELECT c.id, ${entryId}, ${tenant}, c.ordinal, c.start_offset, c.end_offset, ${params.add(generated.embeddingModel)}, ${embedding}::${vectorCast}`;
  };
  /** The chunks' rows, numbered from 1 in `c.k`, their order in `generated.chunks`. */
  const chunkRows = (params: SqlParams, generated: GeneratedWrite, ids: readonly string[]) => {
    const { chunks } = generated;
    return `unnest(${params.add(ids)}::uuid[], ${params.add(chunks.map((chunk) => chunk.ordinal))}::integer[],
      ${params.add(chunks.map((chunk) => chunk.start))}::integer[], ${params.add(chunks.map((chunk) => chunk.end))}::integer[])
      WITH ORDINALITY AS c (id, ordinal, start_offset, end_offset, k)`;
  };

  const recordChunks = (generated: GeneratedWrite, ids: readonly string[]) => {
    generated.chunks.forEach((chunk, index) => inserted.push({ id: ids[index]!, model: generated.embeddingModel, vector: chunk.vector }));
  };

  /** `INSERT INTO node_summaries … SELECT …` for the rows `nodeSummaryRows` names `n`; the caller adds the FROM clause. */
  const nodeSummaryInsert = (entryId: string) =>
    `INSERT INTO node_summaries (entry_id, node_id, ordinal, heading, level, start_offset, end_offset, summary)
     SELECT ${entryId}, n.node_id, n.ordinal - 1, n.heading, n.level, n.start_offset, n.end_offset, n.summary`;
  const nodeSummaryRows = (params: SqlParams, generated: GeneratedWrite) => {
    const nodes = generated.nodeSummaries;
    return `unnest(${params.add(nodes.map((node) => node.nodeId))}::text[], ${params.add(nodes.map((node) => node.heading))}::text[],
      ${params.add(nodes.map((node) => node.level))}::integer[], ${params.add(nodes.map((node) => node.span.start))}::integer[],
      ${params.add(nodes.map((node) => node.span.end))}::integer[], ${params.add(nodes.map((node) => node.summary))}::text[]) WITH ORDINALITY
      AS n (node_id, heading, level, start_offset, end_offset, summary, ordinal)`;
  };

  /**
   * The entry with its chunks and node summaries in one statement (data-modifying CTEs), then its images; with
   * `guarded`, the same statement first looks for the caller's duplicate and then inserts nothing. Every part runs
   * exactly once whether the final SELECT reads it or not, all on one snapshot (so the duplicate lookup does not see
   * the new row); the foreign keys to the new entry are checked at the end of the statement, and the statement-level
   * triggers on chunks (embedding spaces, the vector outbox) fire once for the chunks it inserted, as for a plain INSERT.
   */
  const insertEntry = async (principal: Principal, write: EntryWrite, generated: GeneratedWrite, trust: Trust, guarded: boolean): Promise<{ inserted: EntryAck } | { duplicateOf: string }> => {
    const id = createUuidV7();
    const params = createSqlParams();
    const parts: string[] = [];
    if (guarded) parts.push(`d AS (${duplicateQuery(params, principal, { threadId: write.threadId, source: write.source, contentHash: write.contentHash })})`);
    const tenant = `${params.add(principal.tenant)}::text`;
    const threadId = `${params.add(write.threadId)}::text`;
    const owner = `${params.add(principal.subject)}::text`;
    const contentHash = `${params.add(write.contentHash)}::text`;
    // INSERT … SELECT, so that a duplicate can stop it; the columns do not type the parameters there, so each is cast.
    parts.push(`e AS (
         INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash, metadata, tags, summary, content_type,
           trust_state, trust_reasons, updated_by, valid_from, valid_to, search_vector)
         SELECT ${params.add(id)}::uuid, ${tenant}, ${threadId}, ${params.add(write.source)}::text, ${owner},
           coalesce(${params.add(write.visibility ?? null)}::text,
             CASE WHEN EXISTS (SELECT 1 FROM grants g WHERE g.tenant = ${tenant} AND g.thread_id = ${threadId} AND g.grantor = ${owner}) THEN 'shared' ELSE 'private' END),
           ${params.add(write.text)}::text, ${params.add(write.textLength)}::integer, ${params.add(write.preview)}::text, ${contentHash},
           ${params.add(JSON.stringify(write.metadata))}::jsonb, ${params.add(write.tags)}::text[], ${params.add(generated.summary)}::text,
           ${params.add(write.contentType)}::text, ${params.add(trust.state)}::text, ${params.add(trust.reasons)}::text[], ${owner},
           ${params.add(toTimestampParam(write.validity.validFrom))}::timestamptz, ${params.add(toTimestampParam(write.validity.validTo))}::timestamptz,
           ${searchVectorOf(params, write)}
         ${guarded ? "WHERE NOT EXISTS (SELECT 1 FROM d)" : ""}
         RETURNING id, version, content_hash, created_at, updated_at, trust_state, trust_reasons
       )`);
    const chunkIds = generated.chunks.map(() => createUuidV7());
    if (generated.chunks.length > 0) parts.push(`c AS (${chunkInsert(params, "e.id", tenant, generated)} FROM e, ${chunkRows(params, generated, chunkIds)})`);
    if (generated.nodeSummaries.length > 0) parts.push(`n AS (${nodeSummaryInsert("e.id")} FROM e, ${nodeSummaryRows(params, generated)})`);
    const { rows } = await tx.query<{ [K in keyof AckRow]: AckRow[K] | null } & { duplicate_of: string | null; previously_deleted: boolean }>(
      `WITH ${parts.join(", ")}
       SELECT ${guarded ? "(SELECT d.id FROM d)" : "NULL::uuid"} AS duplicate_of, ${ackColumns},
         EXISTS (
           SELECT 1 FROM tombstones t
           WHERE t.tenant = ${tenant} AND t.thread_id = ${threadId} AND t.content_hash = ${contentHash}
             AND (t.deleted_by = ${owner} OR ${accessPredicate(principal, "t", params)})
         ) AS previously_deleted
       FROM (SELECT 1) AS one LEFT JOIN e ON true`,
      params.values,
    );
    const row = rows[0];
    if (row?.duplicate_of != null) return { duplicateOf: row.duplicate_of };
    if (row?.id == null) throw new Error("INSERT … RETURNING returned no row");
    recordChunks(generated, chunkIds);
    await insertImages(tx, id, write.images);
    return { inserted: { ...toAck(row as AckRow, false), previouslyDeleted: row.previously_deleted } };
  };

  const audit = createAuditStatements(tx);

  return {
    idempotency: createIdempotencyStatements(tx),
    grants: createGrantStatements(tx),
    audit,
    review: createReviewStatements(tx),

    async savepoint(fn) {
      await tx.query("SAVEPOINT item");
      const mark = audit.pending();
      try {
        const value = await fn();
        await tx.query("RELEASE SAVEPOINT item");
        return value;
      } catch (error) {
        await tx.query("ROLLBACK TO SAVEPOINT item");
        audit.discardAfter(mark);
        throw error;
      }
    },

    lockThreads: (principal, threadIds) =>
      lockInOrder(
        tx,
        lockClasses.thread,
        threadIds.map((threadId) => toAdvisoryKey([principal.tenant, threadId])),
      ),

    findDuplicate: (principal, key) => findDuplicate(tx, principal, key),

    async fold(principal, id, write, decideTrust) {
      const params = createSqlParams();
      const tags = params.add(write.tags);
      const metadata = params.add(JSON.stringify(write.metadata));
      const keys = params.add(toImageKeys(write.images));
      const validFrom = `${params.add(toTimestampParam(write.validity.validFrom))}::timestamptz`;
      const validTo = `${params.add(toTimestampParam(write.validity.validTo))}::timestamptz`;
      const storedKeys = `coalesce((SELECT array_agg(i.mime_type || ' ' || i.sha256 ORDER BY i.ordinal) FROM entry_images i WHERE i.entry_id = e.id), '{}'::text[])`;
      // Lock the row first: the replaced version is kept before the update, and nothing may change it in between.
      const { rows: locked } = await tx.query<{ id: string; version: number; trust_state: TrustState; trust_reasons: string[]; content_changed: boolean; images_changed: boolean }>(
        `SELECT e.id, e.version, e.trust_state, e.trust_reasons,
           (e.tags IS DISTINCT FROM ${tags}::text[] OR e.metadata IS DISTINCT FROM ${metadata}::jsonb OR ${storedKeys} IS DISTINCT FROM ${keys}::text[]
             OR e.valid_from IS DISTINCT FROM ${validFrom} OR e.valid_to IS DISTINCT FROM ${validTo}) AS content_changed,
           ${storedKeys} IS DISTINCT FROM ${keys}::text[] AS images_changed
         FROM entries e
         WHERE e.id = ${params.add(id)} AND e.content_hash = ${params.add(write.contentHash)} AND e.owner = ${params.add(principal.subject)}
           AND e.tenant = ${params.add(principal.tenant)}
         FOR UPDATE`,
        params.values,
      );
      const current = locked[0];
      if (current === undefined) return undefined;
      const trust = decideTrust({ state: current.trust_state, reasons: current.trust_reasons });
      if (current.content_changed) await keepVersion(tx, current.id, current.version, principal.subject);
      const update = createSqlParams();
      const versionSets = current.content_changed ? `, version = e.version + 1, updated_by = ${update.add(principal.subject)}, change_kind = 'fold', restored_from = NULL` : "";
      const reviewReset = trust.state === current.trust_state ? "" : ", reviewed_by = NULL, reviewed_at = NULL, review_note = NULL";
      const { rows } = await tx.query<AckRow>(
        `UPDATE entries e SET
           tags = ${update.add(write.tags)}::text[],
           metadata = ${update.add(JSON.stringify(write.metadata))}::jsonb,
           content_type = ${update.add(write.contentType)},
           valid_from = ${update.add(toTimestampParam(write.validity.validFrom))}::timestamptz,
           valid_to = ${update.add(toTimestampParam(write.validity.validTo))}::timestamptz,
           trust_state = ${update.add(trust.state)},
           trust_reasons = ${update.add(trust.reasons)}::text[],
           updated_at = now()${versionSets}${reviewReset}
         WHERE e.id = ${update.add(current.id)} AND e.version = ${update.add(current.version)}
         RETURNING ${ackColumns}`,
        update.values,
      );
      const row = rows[0];
      if (row === undefined) throw new Error("a locked row did not match its own version");
      if (current.images_changed) {
        await tx.query("DELETE FROM entry_images WHERE entry_id = $1", [row.id]);
        await insertImages(tx, row.id, write.images);
      }
      return { ack: toAck(row, true), versionChanged: current.content_changed };
    },

    async insert(principal, write, generated, trust) {
      const outcome = await insertEntry(principal, write, generated, trust, false);
      if (!("inserted" in outcome)) throw new Error("an unguarded insert found a duplicate");
      return outcome.inserted;
    },

    insertUnlessDuplicate: (principal, write, generated, trust) => insertEntry(principal, write, generated, trust, true),

    async keptVersion(id, version) {
      const { rows } = await tx.query<{ content_hash: string; valid_from: Date | null; valid_to: Date | null }>(
        "SELECT content_hash, valid_from, valid_to FROM entry_versions WHERE entry_id = $1 AND version = $2",
        [id, version],
      );
      const [row] = rows;
      return row === undefined ? undefined : { contentHash: row.content_hash, validity: { validFrom: row.valid_from ?? undefined, validTo: row.valid_to ?? undefined } };
    },

    resolveIds: (principal, queries, maxMatches) => resolveIds(tx, principal, queries, maxMatches),

    async lockEntries(principal, ids) {
      if (ids.length === 0) return;
      const params = createSqlParams();
      await tx.query(
        `SELECT e.id FROM entries e WHERE e.id = ANY(${params.add([...new Set(ids)])}::uuid[]) AND ${accessPredicate(principal, "e", params)}
         ORDER BY e.id FOR UPDATE`,
        params.values,
      );
    },

    async lockEntry(principal, id) {
      const lockParams = createSqlParams();
      const locked = await tx.query(`SELECT e.id FROM entries e WHERE e.id = ${lockParams.add(id)} AND ${accessPredicate(principal, "e", lockParams)} FOR UPDATE`, lockParams.values);
      if (locked.rows.length === 0) return undefined;
      // Read once the lock is held: this statement's snapshot includes whatever the previous holder committed (images, grants).
      const params = createSqlParams();
      const { rows } = await tx.query<LockedRow>(
        `SELECT e.id, e.thread_id, e.owner, e.visibility, e.version, e.content_hash, e.tags, e.metadata, e.created_at, e.updated_at,
           e.source, e.trust_state, e.trust_reasons, coalesce(e.updated_by, e.owner) AS updated_by, e.valid_from, e.valid_to,
           coalesce((SELECT array_agg(i.mime_type || ' ' || i.sha256 ORDER BY i.ordinal) FROM entry_images i WHERE i.entry_id = e.id), '{}'::text[]) AS image_keys,
           ${accessPredicate(principal, "e", params, "write")} AS writable
         FROM entries e WHERE e.id = ${params.add(id)} AND ${accessPredicate(principal, "e", params)}`,
        params.values,
      );
      const row = rows[0];
      if (row === undefined) return undefined;
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
      };
    },

    async update(principal, entry, change, meta) {
      const params = createSqlParams();
      const sets = [
        "version = e.version + 1",
        "updated_at = now()",
        `updated_by = ${params.add(principal.subject)}`,
        `trust_state = ${params.add(meta.trust.state)}`,
        `trust_reasons = ${params.add(meta.trust.reasons)}::text[]`,
        `change_kind = ${params.add(meta.changeKind)}`,
        `restored_from = ${params.add(meta.restoredFrom ?? null)}::integer`,
      ];
      // A review judged the content it saw; a change that moves the state makes it stale.
      if (meta.trust.state !== entry.trust.state) sets.push("reviewed_by = NULL", "reviewed_at = NULL", "review_note = NULL");
      const { text } = change;
      if (text !== undefined) {
        sets.push(
          `text = ${params.add(text.text)}`,
          `text_length = ${params.add(text.textLength)}`,
          `preview = ${params.add(text.preview)}`,
          `content_hash = ${params.add(text.contentHash)}`,
          `summary = ${params.add(text.generated.summary)}`,
        );
        // Without one computed before the transaction, the trigger parses the new text (the vector is left as it was here).
        if (text.searchVector !== undefined) sets.push(`search_vector = ${searchVectorOf(params, text)}`);
      }
      if (change.metadata !== undefined) sets.push(`metadata = ${params.add(JSON.stringify(change.metadata))}::jsonb`);
      if (change.tags !== undefined) sets.push(`tags = ${params.add(change.tags)}::text[]`);
      if (change.visibility !== undefined) sets.push(`visibility = ${params.add(change.visibility)}`);
      if (change.validity !== undefined) {
        sets.push(`valid_from = ${params.add(toTimestampParam(change.validity.validFrom))}::timestamptz`, `valid_to = ${params.add(toTimestampParam(change.validity.validTo))}::timestamptz`);
      }
      if (change.images !== undefined) sets.push(`content_type = ${params.add(change.images.length > 0 ? "multimodal" : "text")}`);
      await keepVersion(tx, entry.id, entry.version, principal.subject);
      const { rows } = await tx.query<AckRow>(
        `UPDATE entries e SET ${sets.join(", ")}
         WHERE e.id = ${params.add(entry.id)} AND e.version = ${params.add(entry.version)} AND ${accessPredicate(principal, "e", params, "write")}
         RETURNING ${ackColumns}`,
        params.values,
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      if (text !== undefined) {
        // Everything derived from the old text goes with it, in this transaction: no read can pair the new text with old vectors.
        await tx.query("DELETE FROM chunks WHERE entry_id = $1", [entry.id]);
        await tx.query("DELETE FROM node_summaries WHERE entry_id = $1", [entry.id]);
        await insertGenerated(entry.id, principal.tenant, text.generated);
      }
      if (change.images !== undefined) {
        await tx.query("DELETE FROM entry_images WHERE entry_id = $1", [entry.id]);
        await insertImages(tx, entry.id, change.images);
      }
      return toAck(row, false);
    },

    async delete(principal, id, reason) {
      return (await deleteWithTombstones(tx, principal, [id], reason)).length > 0;
    },

    async deleteThread(principal, threadId, reason) {
      // Lock first, in id order (as every multi-entry change does), then delete what was locked.
      const params = createSqlParams();
      const { rows } = await tx.query<{ id: string }>(
        `SELECT e.id FROM entries e
         WHERE e.tenant = ${params.add(principal.tenant)} AND e.thread_id = ${params.add(threadId)} AND ${accessPredicate(principal, "e", params, "write")}
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
    },
  };
}

/** Counts arrive as bigint, which the drivers hand over as strings or bigints. */
function toCount(value: unknown): number {
  return Number(value ?? 0);
}

interface ThreadRow {
  total: unknown;
  thread_id: string | null;
  entry_count: number;
  user_entries: number;
  agent_entries: number;
  first_at: Date;
  last_at: Date;
}

interface StatisticsRow {
  entries: unknown;
  threads: unknown;
  user_entries: unknown;
  agent_entries: unknown;
  multimodal_entries: unknown;
  images: unknown;
  chunks: unknown;
  text_bytes: unknown;
  owned_entries: unknown;
  oldest_at: Date | null;
  newest_at: Date | null;
}

export interface EntryRepositoryOptions {
  /** Told of the chunks a write transaction inserted, once it has committed (see VectorIndex.chunksCommitted). */
  onChunksCommitted?: ((chunks: readonly CommittedChunk[]) => void) | undefined;
  /** Where long texts' full-text vectors are computed before their transactions; by default a statement of their own on `db`. */
  searchVectors?: SearchVectors | undefined;
}

/**
 * The SQL for a written text's full-text vector: the one computed before the
 * transaction when there is one, else NULL, which the table's trigger fills
 * with `entry_search_vector` of the text (migration 10), parsing it once.
 */
function searchVectorOf(params: SqlParams, write: TextWrite): string {
  return `${write.searchVector === undefined ? "NULL" : params.add(write.searchVector)}::tsvector`;
}

/** The entry repository over a migrated database. */
export function createEntryRepository(db: SqlDatabase, options: EntryRepositoryOptions = {}): EntryRepository {
  const searchVectors = options.searchVectors ?? createDatabaseSearchVectors(db);
  return {
    findDuplicate: (principal, key) => findDuplicate(db, principal, key),

    async transaction(fn) {
      let inserted: CommittedChunk[] = [];
      const result = await db.transaction(async (tx) => {
        // Anew for every attempt, so a retried transaction reports only the chunks of the attempt that committed.
        inserted = [];
        const scope = createWriteScope(db, tx, inserted);
        const value = await fn(scope);
        // Last, so the tenant's chain lock is held only for the append and the commit.
        await scope.audit.flush(currentRequestId());
        return value;
      });
      if (inserted.length > 0) options.onChunksCommitted?.(inserted);
      return result;
    },

    findCall: (principal, key, notBefore) => findRecordedCall(db, principal, key, notBefore),

    searchVectorOf: (text) => searchVectors.vectorOf(text),

    resolveIds: (principal, queries, maxMatches) => resolveIds(db, principal, queries, maxMatches),

    async replySizes(principal, ids, includeImages, includeQuarantined = false) {
      const params = createSqlParams();
      const idList = params.add(ids);
      // octet_length reads a stored value's size from its header: no text or image is detoasted for it.
      const { rows } = await db.query<{ id: string; size: string | number }>(
        `SELECT e.id,
           octet_length(e.text) + octet_length(e.summary) + octet_length(e.metadata::text)
           + coalesce((SELECT sum(octet_length(n.summary) + octet_length(n.heading) + octet_length(n.node_id)) FROM node_summaries n WHERE n.entry_id = e.id), 0)
           + ${includeImages ? "coalesce((SELECT sum(i.byte_size) FROM entry_images i WHERE i.entry_id = e.id), 0)" : "0"} AS size
         FROM entries e
         WHERE e.id = ANY(${idList}::uuid[]) AND ${accessPredicate(principal, "e", params)} AND ${trustFilter("e", includeQuarantined)}`,
        params.values,
      );
      return new Map(rows.map((row) => [row.id, Number(row.size)]));
    },

    async getByIds(principal, ids, includeImages, includeQuarantined = false) {
      const read = async (executor: SqlExecutor) => {
        const params = createSqlParams();
        const idList = params.add(ids);
        const { rows } = await executor.query<EntryRow>(
          `SELECT ${entryColumns}, e.text,
             (SELECT count(*)::integer FROM chunks c WHERE c.entry_id = e.id) AS chunk_count,
             (SELECT c.embedding_model FROM chunks c WHERE c.entry_id = e.id ORDER BY c.ordinal LIMIT 1) AS embedding_model,
             (SELECT json_agg(json_build_object('nodeId', n.node_id, 'heading', n.heading, 'level', n.level, 'start', n.start_offset,
                                                'end', n.end_offset, 'summary', n.summary) ORDER BY n.ordinal)
                FROM node_summaries n WHERE n.entry_id = e.id) AS node_summaries
           FROM entries e
           WHERE e.id = ANY(${idList}::uuid[]) AND ${accessPredicate(principal, "e", params)} AND ${trustFilter("e", includeQuarantined)}`,
          params.values,
        );
        if (!includeImages || rows.every((row) => row.images.length === 0)) return rows.map((row) => toStoredEntry(row, undefined));
        const imageParams = createSqlParams();
        const imageIds = imageParams.add(rows.map((row) => row.id));
        const { rows: images } = await executor.query<{ entry_id: string; ordinal: number; data: Uint8Array }>(
          `SELECT i.entry_id, i.ordinal, i.data FROM entry_images i JOIN entries e ON e.id = i.entry_id
           WHERE i.entry_id = ANY(${imageIds}::uuid[]) AND ${accessPredicate(principal, "e", imageParams)} AND ${trustFilter("e", includeQuarantined)}`,
          imageParams.values,
        );
        const data = new Map(images.map((image) => [`${image.entry_id}/${image.ordinal}`, image.data]));
        return rows.map((row) => toStoredEntry(row, data));
      };
      if (!includeImages) return read(db);
      // Image bytes come from a second statement; one snapshot keeps them consistent with the rows.
      return db.transaction(async (tx) => {
        await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        return read(tx);
      });
    },

    async withheldStates(principal, ids) {
      const params = createSqlParams();
      const { rows } = await db.query<{ id: string; trust_state: TrustState }>(
        `SELECT e.id, e.trust_state FROM entries e
         WHERE e.id = ANY(${params.add(ids)}::uuid[]) AND ${accessPredicate(principal, "e", params)} AND NOT (${trustFilter("e", false)})
         ORDER BY e.id`,
        params.values,
      );
      return rows.map((row) => ({ id: row.id, state: row.trust_state }));
    },

    async list(principal, filter, page) {
      const params = createSqlParams();
      const conditions = [accessPredicate(principal, "e", params), ...searchFilterConditions(filter, "e", params)];
      const { rows } = await db.query<EntryRow>(
        `SELECT ${entryColumns}, ${previewSourceColumn(filter, "e")} FROM ${entrySource(principal, filter, params)} e
         WHERE ${conditions.join(" AND ")}
         ORDER BY e.created_at DESC, e.id DESC
         LIMIT ${params.add(page.limit + 1)} OFFSET ${params.add(page.offset)}`,
        params.values,
      );
      const hasMore = rows.length > page.limit;
      return { entries: rows.slice(0, page.limit).map((row) => toStoredEntry(row, undefined)), hasMore };
    },

    async listThreads(principal, page) {
      const params = createSqlParams();
      // One row always (the page joined to it may be empty), so the total is known even past the last page.
      const { rows } = await db.query<ThreadRow>(
        `WITH threads AS (
           SELECT e.thread_id, count(*)::integer AS entry_count,
             count(*) FILTER (WHERE e.source = 'user')::integer AS user_entries,
             count(*) FILTER (WHERE e.source = 'agent')::integer AS agent_entries,
             min(e.created_at) AS first_at, max(e.updated_at) AS last_at
           FROM entries e WHERE ${accessPredicate(principal, "e", params)}
           GROUP BY e.thread_id
         )
         SELECT (SELECT count(*) FROM threads) AS total, p.*
         FROM (SELECT 1) AS one
         LEFT JOIN LATERAL (
           SELECT * FROM threads ORDER BY last_at DESC, thread_id LIMIT ${params.add(page.limit + 1)} OFFSET ${params.add(page.offset)}
         ) p ON true`,
        params.values,
      );
      const threads = rows.flatMap((row) =>
        row.thread_id === null
          ? []
          : [{ threadId: row.thread_id, entryCount: row.entry_count, userEntries: row.user_entries, agentEntries: row.agent_entries, firstAt: row.first_at, lastAt: row.last_at }],
      );
      return { threads: threads.slice(0, page.limit), hasMore: threads.length > page.limit, total: toCount(rows[0]?.total) };
    },

    async statistics(principal, threadId) {
      const params = createSqlParams();
      const conditions = [accessPredicate(principal, "e", params)];
      if (threadId !== undefined) conditions.push(`e.thread_id = ${params.add(threadId)}`);
      // octet_length reads the stored size of a text without detoasting it.
      const { rows } = await db.query<StatisticsRow>(
        `WITH visible AS (
           SELECT e.id, e.thread_id, e.source, e.owner, e.content_type, e.created_at, octet_length(e.text) AS text_bytes
           FROM entries e WHERE ${conditions.join(" AND ")}
         )
         SELECT count(*) AS entries, count(DISTINCT v.thread_id) AS threads,
           count(*) FILTER (WHERE v.source = 'user') AS user_entries,
           count(*) FILTER (WHERE v.source = 'agent') AS agent_entries,
           count(*) FILTER (WHERE v.content_type = 'multimodal') AS multimodal_entries,
           (SELECT count(*) FROM entry_images i WHERE i.entry_id IN (SELECT id FROM visible)) AS images,
           (SELECT count(*) FROM chunks c WHERE c.entry_id IN (SELECT id FROM visible)) AS chunks,
           coalesce(sum(v.text_bytes), 0) AS text_bytes,
           count(*) FILTER (WHERE v.owner = ${params.add(principal.subject)}) AS owned_entries,
           min(v.created_at) AS oldest_at, max(v.created_at) AS newest_at
         FROM visible v`,
        params.values,
      );
      const row = rows[0];
      return {
        entries: toCount(row?.entries),
        threads: toCount(row?.threads),
        userEntries: toCount(row?.user_entries),
        agentEntries: toCount(row?.agent_entries),
        multimodalEntries: toCount(row?.multimodal_entries),
        images: toCount(row?.images),
        chunks: toCount(row?.chunks),
        textBytes: toCount(row?.text_bytes),
        ownedEntries: toCount(row?.owned_entries),
        oldestAt: row?.oldest_at ?? undefined,
        newestAt: row?.newest_at ?? undefined,
      };
    },
  };
}
