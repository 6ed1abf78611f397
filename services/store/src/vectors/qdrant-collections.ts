/**
 * The Qdrant side of the vector index: one collection per embedding space
 * (model, dimension), named `<prefix>_<dimension>d_<hash>`, cosine distance,
 * one point per chunk whose id is the chunk's id and whose payload carries
 * what the access predicate and the search filters need. Shared by the
 * outbox relay, the reindex command and the search adapter. Documented in
 * docs/vector-backends.md.
 */
import { createHash } from "node:crypto";
import { QdrantClient } from "@qdrant/js-client-rest";
import type { Logger } from "@context-hub/common";
import type { SqlExecutor } from "../db/sql-database.js";
import type { QdrantSettings } from "./qdrant-config.js";

/** What a point carries besides its vector. Times are epoch milliseconds, so a range filter compares numbers. */
export interface ChunkPayload {
  entry_id: string;
  tenant: string;
  thread_id: string;
  owner: string;
  visibility: string;
  source: string;
  content_type: string;
  trust_state: string;
  tags: string[];
  /** `subject:<name>` and `group:<name>` of every grant the owner made on the entry, its thread or a collection holding it (read or write: both open reading). */
  readers: string[];
  embedding_model: string;
  dimension: number;
  created_at: number;
  ordinal: number;
  start: number;
  end: number;
}

export interface ChunkPoint {
  id: string;
  vector: number[];
  payload: ChunkPayload;
}

/** Keyword fields indexed in every collection; `tenant` is marked as the tenant key so Qdrant co-locates a tenant's points. */
const keywordFields = [
  "entry_id",
  "thread_id",
  "owner",
  "visibility",
  "source",
  "content_type",
  "trust_state",
  "tags",
  "readers",
  "embedding_model",
] as const;

/** The collection of an embedding space: readable (prefix and dimension) and unambiguous (a hash of model and dimension). */
export function collectionName(prefix: string, model: string, dimension: number): string {
  return `${prefix}_${dimension}d_${createHash("sha256").update(`${model}\u0000${dimension}`).digest("hex").slice(0, 16)}`;
}

/** Readers' keys as the payload stores them. */
export const subjectKey = (subject: string) => `subject:${subject}`;
export const groupKey = (group: string) => `group:${group}`;

interface ChunkRow {
  id: string;
  entry_id: string;
  ordinal: number;
  start_offset: number;
  end_offset: number;
  embedding_model: string;
  embedding: number[] | string;
  tenant: string;
  thread_id: string;
  owner: string;
  visibility: string;
  source: string;
  content_type: string;
  trust_state: string;
  tags: string[];
  readers: string[];
  created_at: Date | string;
}

/**
 * The chunks (with their entries' payload fields) matching `where`, a
 * condition over `c` (chunks) and `e` (entries) whose values are `values`.
 * Grants count only when their grantor owns the entry, as in the access
 * predicate.
 */
export async function readChunkPoints(
  tx: SqlExecutor,
  where: string,
  values: unknown[],
  suffix = "",
): Promise<ChunkPoint[]> {
  const { rows } = await tx.query<ChunkRow>(
    `SELECT c.id, c.entry_id, c.ordinal, c.start_offset, c.end_offset, c.embedding_model, c.embedding::real[] AS embedding,
            e.tenant, e.thread_id, e.owner, e.visibility, e.source, e.content_type, e.trust_state, e.tags, e.created_at,
            ARRAY(SELECT r.reader FROM (
                    SELECT g.grantee_kind || ':' || g.grantee AS reader FROM grants g WHERE g.entry_id = e.id AND g.tenant = e.tenant AND g.grantor = e.owner
                    UNION
                    SELECT g.grantee_kind || ':' || g.grantee FROM grants g WHERE g.tenant = e.tenant AND g.thread_id = e.thread_id AND g.grantor = e.owner
                    UNION
                    SELECT g.grantee_kind || ':' || g.grantee FROM collection_members m JOIN grants g ON g.collection_id = m.collection_id
                     WHERE m.entry_id = e.id AND g.tenant = e.tenant AND g.grantor = e.owner
                  ) r ORDER BY r.reader) AS readers
       FROM chunks c JOIN entries e ON e.id = c.entry_id
      WHERE ${where}${suffix}`,
    values,
  );
  return rows.map(toPoint);
}

function parseVector(value: number[] | string): number[] {
  if (Array.isArray(value)) return value.map(Number);
  return value
    .replace(/^[[{]|[\]}]$/g, "")
    .split(",")
    .map(Number);
}

function toPoint(row: ChunkRow): ChunkPoint {
  const vector = parseVector(row.embedding);
  return {
    id: row.id,
    vector,
    payload: {
      entry_id: row.entry_id,
      tenant: row.tenant,
      thread_id: row.thread_id,
      owner: row.owner,
      visibility: row.visibility,
      source: row.source,
      content_type: row.content_type,
      trust_state: row.trust_state,
      tags: row.tags,
      readers: row.readers,
      embedding_model: row.embedding_model,
      dimension: vector.length,
      created_at: new Date(row.created_at).getTime(),
      ordinal: row.ordinal,
      start: row.start_offset,
      end: row.end_offset,
    },
  };
}

/** The store's handle on Qdrant: collections made on first use, points written and removed per embedding space. */
export interface QdrantCollections {
  readonly client: QdrantClient;
  readonly prefix: string;
  /** The space's collection name, creating it and its payload indexes if missing. */
  ensure(model: string, dimension: number): Promise<string>;
  /** Whether the space's collection exists (without creating it). */
  exists(model: string, dimension: number): Promise<boolean>;
  /** Writes points (any spaces), waiting until Qdrant has applied them. */
  upsert(points: readonly ChunkPoint[]): Promise<void>;
  /** Removes points of one space by id; a missing collection has nothing to remove. */
  remove(model: string, dimension: number, ids: readonly string[]): Promise<void>;
  /** Drops a space's collection (reindex --recreate). */
  drop(model: string, dimension: number): Promise<void>;
}

export function createQdrantClient(settings: QdrantSettings): QdrantClient {
  return new QdrantClient({
    url: settings.url,
    ...(settings.apiKey === "" ? {} : { apiKey: settings.apiKey }),
    timeout: settings.timeoutMs,
    // The version probe runs unawaited at construction and only logs to the console; start-up checks the collections instead.
    checkCompatibility: false,
  });
}

export function createQdrantCollections(
  settings: QdrantSettings,
  logger: Logger,
  client: QdrantClient = createQdrantClient(settings),
): QdrantCollections {
  const ensured = new Map<string, Promise<string>>();

  async function create(name: string, model: string, dimension: number): Promise<string> {
    const { exists } = await client.collectionExists(name);
    if (!exists) {
      try {
        await client.createCollection(name, { vectors: { size: dimension, distance: "Cosine" } });
        logger.info({ collection: name, model, dimension }, "created the Qdrant collection of an embedding space");
      } catch (error) {
        // Another store replica may have created it between the check and the create.
        if (!(await client.collectionExists(name)).exists) throw error;
      }
    }
    await client.createPayloadIndex(name, {
      field_name: "tenant",
      field_schema: { type: "keyword", is_tenant: true },
      wait: true,
    });
    for (const field of keywordFields)
      await client.createPayloadIndex(name, { field_name: field, field_schema: "keyword", wait: true });
    await client.createPayloadIndex(name, { field_name: "created_at", field_schema: "integer", wait: true });
    return name;
  }

  const collections: QdrantCollections = {
    client,
    prefix: settings.collection,

    ensure(model, dimension) {
      const name = collectionName(settings.collection, model, dimension);
      let pending = ensured.get(name);
      if (pending === undefined) {
        pending = create(name, model, dimension);
        ensured.set(name, pending);
        // A failure (Qdrant down) is retried by the next caller.
        pending.catch(() => ensured.delete(name));
      }
      return pending;
    },

    async exists(model, dimension) {
      return (await client.collectionExists(collectionName(settings.collection, model, dimension))).exists;
    },

    async upsert(points) {
      const bySpace = new Map<string, ChunkPoint[]>();
      for (const point of points) {
        const key = `${point.payload.embedding_model}\u0000${point.payload.dimension}`;
        const group = bySpace.get(key) ?? [];
        group.push(point);
        bySpace.set(key, group);
      }
      for (const group of bySpace.values()) {
        const first = group[0];
        if (first === undefined) continue;
        const name = await collections.ensure(first.payload.embedding_model, first.payload.dimension);
        await client.upsert(name, {
          wait: true,
          points: group.map((point) => ({ id: point.id, vector: point.vector, payload: { ...point.payload } })),
        });
      }
    },

    async remove(model, dimension, ids) {
      if (ids.length === 0) return;
      const name = collectionName(settings.collection, model, dimension);
      if (!(await client.collectionExists(name)).exists) return;
      await client.delete(name, { wait: true, points: [...ids] });
    },

    async drop(model, dimension) {
      const name = collectionName(settings.collection, model, dimension);
      ensured.delete(name);
      if ((await client.collectionExists(name)).exists) await client.deleteCollection(name);
    },
  };
  return collections;
}
