import { accessPredicate } from "./access-predicate.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor, type SqlParams } from "./db/sql-database.js";
import type {
  ContentType,
  DuplicateKey,
  EntryAck,
  EntryFilter,
  EntryWrite,
  GeneratedWrite,
  JsonObject,
  ListEntriesResult,
  NodeSummary,
  Source,
  StoredEntry,
  StoredImage,
  Visibility,
} from "./entries.js";
import type { IdQuery } from "./id-query.js";
import { createUuidV7 } from "./ids.js";
import type { Principal } from "./principal.js";

/** The statements a commit runs inside its one transaction. */
export interface EntryCommitScope {
  /** Holds the thread's write lock until the transaction ends. */
  lockThread(principal: Principal, threadId: string): Promise<void>;
  findDuplicate(principal: Principal, key: DuplicateKey): Promise<string | undefined>;
  /**
   * Folds a retransmit into entry `id`: new tags, metadata and images, a
   * fresh updated_at, and version + 1 only if anything changed. Matches only
   * while the row still has the write's content hash and the caller's
   * ownership; undefined when it no longer does.
   */
  fold(principal: Principal, id: string, write: EntryWrite): Promise<EntryAck | undefined>;
  /** Inserts the entry, its images, chunks with vectors and node summaries. */
  insert(principal: Principal, write: EntryWrite, generated: GeneratedWrite): Promise<EntryAck>;
}

/** Every SQL statement on entries. Each read composes the access predicate. */
export interface EntryRepository {
  findDuplicate(principal: Principal, key: DuplicateKey): Promise<string | undefined>;
  /** Runs `fn` in one transaction: everything it does through the scope commits together or not at all. */
  commit<T>(fn: (scope: EntryCommitScope) => Promise<T>): Promise<T>;
  /** For each query, up to `maxMatches` ids of visible entries in its range, in id order. */
  resolveIds(principal: Principal, queries: readonly IdQuery[], maxMatches: number): Promise<string[][]>;
  /** The visible entries among `ids`, complete (text, images, node summaries, chunk count). Any order. */
  getByIds(principal: Principal, ids: readonly string[], includeImages: boolean): Promise<StoredEntry[]>;
  /** One page of the visible entries matching `filter`, newest first, without full text. */
  list(principal: Principal, filter: EntryFilter, page: { limit: number; offset: number }): Promise<ListEntriesResult>;
}

/** Class id of the two-key advisory locks the store takes per thread (the migration lock uses the one-key space). */
const threadLockClass = 0x43480001;

const opposite: Record<Source, Source> = { user: "agent", agent: "user" };

interface AckRow {
  id: string;
  version: number;
  content_hash: string;
  created_at: Date;
  updated_at: Date;
}

interface EntryRow {
  id: string;
  thread_id: string;
  source: Source;
  owner: string;
  visibility: Visibility;
  /** Selected only by a by-id fetch. */
  text?: string;
  preview: string;
  text_length: number;
  content_hash: string;
  metadata: JsonObject;
  tags: string[];
  summary: string;
  content_type: ContentType;
  version: number;
  created_at: Date;
  updated_at: Date;
  images: { ordinal: number; mimeType: string; byteSize: number }[];
  /** Selected only by a by-id fetch (null when the entry has none). */
  node_summaries?: { nodeId: string; heading: string; level: number; start: number; end: number; summary: string }[] | null;
  chunk_count?: number;
  embedding_model?: string | null;
}

const imagesJson = `coalesce((SELECT json_agg(json_build_object('ordinal', i.ordinal, 'mimeType', i.mime_type, 'byteSize', i.byte_size) ORDER BY i.ordinal)
    FROM entry_images i WHERE i.entry_id = e.id), '[]'::json) AS images`;

const entryColumns = `e.id, e.thread_id, e.source, e.owner, e.visibility, e.preview, e.text_length, e.content_hash, e.metadata, e.tags,
  e.summary, e.content_type, e.version, e.created_at, e.updated_at, ${imagesJson}`;

function toAck(row: AckRow, deduplicated: boolean): EntryAck {
  return { id: row.id, version: row.version, contentHash: row.content_hash, deduplicated, createdAt: row.created_at, updatedAt: row.updated_at };
}

function toStoredEntry(row: EntryRow, imageData: Map<string, Uint8Array> | undefined): StoredEntry {
  const images: StoredImage[] = row.images.map((image) => ({
    ordinal: image.ordinal,
    mimeType: image.mimeType,
    byteSize: image.byteSize,
    data: imageData?.get(`${row.id}/${image.ordinal}`),
  }));
  const nodeSummaries: NodeSummary[] = (row.node_summaries ?? []).map((node) => ({
    nodeId: node.nodeId,
    heading: node.heading,
    level: node.level,
    span: { start: node.start, end: node.end },
    summary: node.summary,
  }));
  return {
    id: row.id,
    threadId: row.thread_id,
    source: row.source,
    owner: row.owner,
    visibility: row.visibility,
    text: row.text ?? "",
    preview: row.preview,
    textLength: row.text_length,
    contentHash: row.content_hash,
    metadata: row.metadata,
    tags: row.tags,
    summary: row.summary,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    images,
    contentType: row.content_type,
    nodeSummaries,
    embeddingModel: row.embedding_model ?? "",
    chunkCount: row.chunk_count ?? 0,
  };
}

/**
 * The duplicate rule as one statement: the caller's latest entry in the
 * thread with this source, provided its hash matches and no entry of the
 * other source that the caller may see came after it (ties on created_at are
 * broken by id, which is time-ordered).
 */
async function findDuplicate(executor: SqlExecutor, principal: Principal, key: DuplicateKey): Promise<string | undefined> {
  const params = createSqlParams();
  const tenant = params.add(principal.tenant);
  const threadId = params.add(key.threadId);
  const candidateAccess = accessPredicate(principal, "e", params);
  const laterAccess = accessPredicate(principal, "o", params);
  const { rows } = await executor.query<{ id: string }>(
    `SELECT candidate.id FROM (
       SELECT e.id, e.content_hash, e.created_at FROM entries e
       WHERE e.tenant = ${tenant} AND e.thread_id = ${threadId} AND e.source = ${params.add(key.source)}
         AND e.owner = ${params.add(principal.subject)} AND ${candidateAccess}
       ORDER BY e.created_at DESC, e.id DESC
       LIMIT 1
     ) candidate
     WHERE candidate.content_hash = ${params.add(key.contentHash)}
       AND NOT EXISTS (
         SELECT 1 FROM entries o
         WHERE o.tenant = ${tenant} AND o.thread_id = ${threadId} AND o.source = ${params.add(opposite[key.source])}
           AND (o.created_at, o.id) > (candidate.created_at, candidate.id) AND ${laterAccess})`,
    params.values,
  );
  return rows[0]?.id;
}

function imageKeys(write: EntryWrite): string[] {
  return write.images.map((image) => `${image.mimeType} ${image.sha256}`);
}

async function insertImages(tx: SqlExecutor, entryId: string, write: EntryWrite): Promise<void> {
  // One statement per image: each may be megabytes, and batching them would only build one huge parameter.
  for (const [ordinal, image] of write.images.entries()) {
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

function createCommitScope(db: SqlDatabase, tx: SqlExecutor): EntryCommitScope {
  // Vectors travel as text literals in the column type's own syntax; the cast is chosen by the schema, never by input.
  const toVectorLiteral = db.vectorType === "pgvector" ? (vector: readonly number[]) => `[${vector.join(",")}]` : (vector: readonly number[]) => `{${vector.join(",")}}`;
  const vectorCast = db.vectorType === "pgvector" ? "vector" : "real[]";

  return {
    async lockThread(principal, threadId) {
      await tx.query("SELECT pg_advisory_xact_lock($1::integer, hashtext($2))", [threadLockClass, JSON.stringify([principal.tenant, threadId])]);
    },

    findDuplicate: (principal, key) => findDuplicate(tx, principal, key),

    async fold(principal, id, write) {
      const params = createSqlParams();
      const tags = params.add(write.tags);
      const metadata = params.add(JSON.stringify(write.metadata));
      const keys = params.add(imageKeys(write));
      const storedKeys = `coalesce((SELECT array_agg(i.mime_type || ' ' || i.sha256 ORDER BY i.ordinal) FROM entry_images i WHERE i.entry_id = e.id), '{}'::text[])`;
      const { rows } = await tx.query<AckRow & { images_changed: boolean }>(
        `UPDATE entries e SET
           tags = ${tags}::text[],
           metadata = ${metadata}::jsonb,
           content_type = ${params.add(write.contentType)},
           updated_at = now(),
           version = e.version + CASE WHEN e.tags IS DISTINCT FROM ${tags}::text[] OR e.metadata IS DISTINCT FROM ${metadata}::jsonb
                                       OR ${storedKeys} IS DISTINCT FROM ${keys}::text[] THEN 1 ELSE 0 END
         WHERE e.id = ${params.add(id)} AND e.content_hash = ${params.add(write.contentHash)} AND e.owner = ${params.add(principal.subject)}
           AND e.tenant = ${params.add(principal.tenant)}
         RETURNING e.id, e.version, e.content_hash, e.created_at, e.updated_at, ${storedKeys} IS DISTINCT FROM ${keys}::text[] AS images_changed`,
        params.values,
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      if (row.images_changed) {
        await tx.query("DELETE FROM entry_images WHERE entry_id = $1", [row.id]);
        await insertImages(tx, row.id, write);
      }
      return toAck(row, true);
    },

    async insert(principal, write, generated) {
      const id = createUuidV7();
      const { rows } = await tx.query<AckRow>(
        `INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash, metadata, tags, summary, content_type)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::text[], $13, $14)
         RETURNING id, version, content_hash, created_at, updated_at`,
        [
          id,
          principal.tenant,
          write.threadId,
          write.source,
          principal.subject,
          write.visibility,
          write.text,
          write.textLength,
          write.preview,
          write.contentHash,
          JSON.stringify(write.metadata),
          write.tags,
          generated.summary,
          write.contentType,
        ],
      );
      await insertImages(tx, id, write);
      if (generated.chunks.length > 0) {
        await tx.query(
          `INSERT INTO chunks (id, entry_id, tenant, ordinal, start_offset, end_offset, embedding_model, embedding)
           SELECT c.id, $1, $2, c.ordinal, c.start_offset, c.end_offset, $3, c.embedding::${vectorCast}
           FROM unnest($4::uuid[], $5::integer[], $6::integer[], $7::integer[], $8::text[]) AS c (id, ordinal, start_offset, end_offset, embedding)`,
          [
            id,
            principal.tenant,
            generated.embeddingModel,
            generated.chunks.map(() => createUuidV7()),
            generated.chunks.map((chunk) => chunk.ordinal),
            generated.chunks.map((chunk) => chunk.start),
            generated.chunks.map((chunk) => chunk.end),
            generated.chunks.map((chunk) => toVectorLiteral(chunk.vector)),
          ],
        );
      }
      if (generated.nodeSummaries.length > 0) {
        const nodes = generated.nodeSummaries;
        await tx.query(
          `INSERT INTO node_summaries (entry_id, node_id, ordinal, heading, level, start_offset, end_offset, summary)
           SELECT $1, n.node_id, n.ordinal - 1, n.heading, n.level, n.start_offset, n.end_offset, n.summary
           FROM unnest($2::text[], $3::text[], $4::integer[], $5::integer[], $6::integer[], $7::text[]) WITH ORDINALITY
             AS n (node_id, heading, level, start_offset, end_offset, summary, ordinal)`,
          [
            id,
            nodes.map((node) => node.nodeId),
            nodes.map((node) => node.heading),
            nodes.map((node) => node.level),
            nodes.map((node) => node.span.start),
            nodes.map((node) => node.span.end),
            nodes.map((node) => node.summary),
          ],
        );
      }
      const row = rows[0];
      if (row === undefined) throw new Error("INSERT … RETURNING returned no row");
      return toAck(row, false);
    },
  };
}

function filterConditions(filter: EntryFilter, params: SqlParams): string[] {
  const conditions: string[] = [];
  if (filter.threadId !== undefined) conditions.push(`e.thread_id = ${params.add(filter.threadId)}`);
  if (filter.source !== undefined) conditions.push(`e.source = ${params.add(filter.source)}`);
  if (filter.tags.length > 0) conditions.push(`e.tags && ${params.add(filter.tags)}::text[]`);
  for (const condition of filter.metadata) {
    const key = params.add(condition.key);
    const value = params.add(JSON.stringify(condition.value));
    // Containment lets the jsonb_path_ops index find candidates; the second test makes arrays and objects match exactly, not by containment.
    conditions.push(`e.metadata @> jsonb_build_object(${key}::text, ${value}::jsonb) AND e.metadata -> ${key}::text = ${value}::jsonb`);
  }
  if (filter.createdFrom !== undefined) conditions.push(`e.created_at >= ${params.add(filter.createdFrom.toISOString())}::timestamptz`);
  if (filter.createdTo !== undefined) conditions.push(`e.created_at < ${params.add(filter.createdTo.toISOString())}::timestamptz`);
  if (filter.contentType !== undefined) conditions.push(`e.content_type = ${params.add(filter.contentType)}`);
  return conditions;
}

/** The entry repository over a migrated database. */
export function createEntryRepository(db: SqlDatabase): EntryRepository {
  return {
    findDuplicate: (principal, key) => findDuplicate(db, principal, key),

    commit: (fn) => db.transaction((tx) => fn(createCommitScope(db, tx))),

    async resolveIds(principal, queries, maxMatches) {
      const params = createSqlParams();
      const lower = params.add(queries.map((query) => query.lower));
      const upper = params.add(queries.map((query) => query.upper));
      const limit = params.add(maxMatches);
      const { rows } = await db.query<{ position: number; id: string }>(
        `SELECT q.position::integer AS position, m.id
         FROM unnest(${lower}::uuid[], ${upper}::uuid[]) WITH ORDINALITY AS q (lower_id, upper_id, position)
         CROSS JOIN LATERAL (
           SELECT e.id FROM entries e
           WHERE e.id BETWEEN q.lower_id AND q.upper_id AND ${accessPredicate(principal, "e", params)}
           ORDER BY e.id
           LIMIT ${limit}
         ) m
         ORDER BY q.position, m.id`,
        params.values,
      );
      const matches: string[][] = queries.map(() => []);
      for (const row of rows) matches[row.position - 1]?.push(row.id);
      return matches;
    },

    async getByIds(principal, ids, includeImages) {
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
           WHERE e.id = ANY(${idList}::uuid[]) AND ${accessPredicate(principal, "e", params)}`,
          params.values,
        );
        if (!includeImages || rows.every((row) => row.images.length === 0)) return rows.map((row) => toStoredEntry(row, undefined));
        const imageParams = createSqlParams();
        const imageIds = imageParams.add(rows.map((row) => row.id));
        const { rows: images } = await executor.query<{ entry_id: string; ordinal: number; data: Uint8Array }>(
          `SELECT i.entry_id, i.ordinal, i.data FROM entry_images i JOIN entries e ON e.id = i.entry_id
           WHERE i.entry_id = ANY(${imageIds}::uuid[]) AND ${accessPredicate(principal, "e", imageParams)}`,
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

    async list(principal, filter, page) {
      const params = createSqlParams();
      const conditions = [accessPredicate(principal, "e", params), ...filterConditions(filter, params)];
      const { rows } = await db.query<EntryRow>(
        `SELECT ${entryColumns} FROM entries e
         WHERE ${conditions.join(" AND ")}
         ORDER BY e.created_at DESC, e.id DESC
         LIMIT ${params.add(page.limit + 1)} OFFSET ${params.add(page.offset)}`,
        params.values,
      );
      const hasMore = rows.length > page.limit;
      return { entries: rows.slice(0, page.limit).map((row) => toStoredEntry(row, undefined)), hasMore };
    },
  };
}
