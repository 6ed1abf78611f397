/**
 * Resource publications in SQL. A publication is read only by its publisher,
 * and only while its target is readable: every statement that returns one
 * composes `targetReadable`, the access predicate and the trust filter over
 * the entry, with the image or linked file it serves, so a publication whose
 * target is gone or hidden is never listed nor resolved.
 */
import { currentRequestId } from "../audit/audit.js";
import { createAuditStatements, type AuditStatements } from "../audit/audit-repository.js";
import { readableArtifact } from "../artifacts/artifact-repository.js";
import { lockClasses, lockInOrder, toAdvisoryKey } from "../db/advisory-locks.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor, type SqlParams } from "../db/sql-database.js";
import { accessPredicate } from "../filters/access-predicate.js";
import { trustFilter } from "../filters/trust-filter.js";
import { createIdempotencyStatements, findRecordedCall } from "../idempotency/idempotency-repository.js";
import type { IdempotencyStatements, RecordedCall } from "../idempotency/idempotency.js";
import type { Principal } from "../model/principal.js";
import type { PublicationRecord, PublicationWrite } from "./publication-model.js";

interface PublicationRow {
  uri: string;
  is_template: boolean;
  entry_id: string;
  image_ordinal: number | null;
  artifact_sha256: string | null;
  description: string;
  created_at: Date;
  updated_at: Date;
}

const columns =
  "p.uri, p.is_template, p.entry_id, p.image_ordinal, p.artifact_sha256, p.description, p.created_at, p.updated_at";

function toRecord(row: PublicationRow): PublicationRecord {
  return {
    uri: row.uri,
    template: row.is_template,
    entryId: row.entry_id,
    imageOrdinal: row.image_ordinal ?? undefined,
    artifactSha256: row.artifact_sha256 ?? "",
    description: row.description,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The caller's own publications: the row aliased `p` is the caller's, in its tenant. */
function ownedBy(principal: Principal, params: SqlParams): string {
  return `p.tenant = ${params.add(principal.tenant)} AND p.publisher = ${params.add(principal.subject)}`;
}

/**
 * A SQL boolean over the publication aliased `p`: the caller may read the
 * entry it names (access predicate, default trust filter), the entry still
 * has the image it serves, and still links the file it serves, which the
 * caller may read by the artifact predicate.
 */
function targetReadable(principal: Principal, params: SqlParams): string {
  return `EXISTS (SELECT 1 FROM entries pe WHERE pe.id = p.entry_id AND ${accessPredicate(principal, "pe", params)} AND ${trustFilter("pe", false)}
    AND (p.image_ordinal IS NULL OR EXISTS (SELECT 1 FROM entry_images pi WHERE pi.entry_id = pe.id AND pi.ordinal = p.image_ordinal))
    AND (p.artifact_sha256 IS NULL OR (EXISTS (SELECT 1 FROM entry_artifact_links pl WHERE pl.entry_id = pe.id AND pl.sha256 = p.artifact_sha256)
      AND ${readableArtifact(principal, params, "pe.tenant", "p.artifact_sha256")})))`;
}

/** What a publish finds of its target: nothing when the caller may not read the entry. */
export interface PublishTarget {
  imageCount: number;
  /** Whether the entry has the image asked for (true when none is). */
  hasImage: boolean;
  /** Whether the entry links the file asked for and the caller may read it (true when none is). */
  hasFile: boolean;
}

/** How many publications the caller holds, and the one at the URI about to be published, if any. */
export interface PublisherCounts {
  publications: number;
  templates: number;
  existing: { template: boolean } | undefined;
}

/** The statements of one publication write transaction. */
export interface PublicationWriteScope {
  idempotency: IdempotencyStatements;
  audit: AuditStatements;
  /** Holds the caller's publisher lock until the transaction ends: publishes of one principal queue here. */
  lockPublisher(principal: Principal): Promise<void>;
  /**
   * The entry `entryId` if the caller may read it (access predicate, default
   * trust filter), locked against a delete until the transaction ends, with
   * whether it has the image and links the readable file asked for.
   */
  target(
    principal: Principal,
    entryId: string,
    imageOrdinal: number | undefined,
    artifactSha256: string,
  ): Promise<PublishTarget | undefined>;
  counts(principal: Principal, uri: string): Promise<PublisherCounts>;
  /** Creates or moves the caller's publication at the URI. */
  upsert(principal: Principal, write: PublicationWrite): Promise<{ publication: PublicationRecord; replaced: boolean }>;
  /** Removes the caller's publication at exactly `uri`; undefined when there is none. */
  remove(principal: Principal, uri: string): Promise<PublicationRecord | undefined>;
}

function createWriteScope(tx: SqlExecutor): PublicationWriteScope {
  return {
    idempotency: createIdempotencyStatements(tx),
    audit: createAuditStatements(tx),

    lockPublisher: (principal) =>
      lockInOrder(tx, lockClasses.publisher, [toAdvisoryKey([principal.tenant, principal.subject])]),

    async target(principal, entryId, imageOrdinal, artifactSha256) {
      const params = createSqlParams();
      const image =
        imageOrdinal === undefined
          ? "TRUE"
          : `EXISTS (SELECT 1 FROM entry_images ti WHERE ti.entry_id = e.id AND ti.ordinal = ${params.add(imageOrdinal)}::integer)`;
      let file = "TRUE";
      if (artifactSha256 !== "") {
        const sha256 = `${params.add(artifactSha256)}::text`;
        file = `(EXISTS (SELECT 1 FROM entry_artifact_links tl WHERE tl.entry_id = e.id AND tl.sha256 = ${sha256})
          AND ${readableArtifact(principal, params, "e.tenant", sha256)})`;
      }
      const { rows } = await tx.query<{ image_count: number; has_image: boolean; has_file: boolean }>(
        `SELECT (SELECT count(*)::integer FROM entry_images ci WHERE ci.entry_id = e.id) AS image_count,
           ${image} AS has_image, ${file} AS has_file
         FROM entries e
         WHERE e.id = ${params.add(entryId)}::uuid AND ${accessPredicate(principal, "e", params)} AND ${trustFilter("e", false)}
         FOR SHARE OF e`,
        params.values,
      );
      const row = rows[0];
      return row === undefined
        ? undefined
        : { imageCount: row.image_count, hasImage: row.has_image, hasFile: row.has_file };
    },

    async counts(principal, uri) {
      const { rows } = await tx.query<{ publications: number; templates: number; existing: boolean | null }>(
        `SELECT count(*)::integer AS publications, (count(*) FILTER (WHERE p.is_template))::integer AS templates,
           bool_or(p.is_template) FILTER (WHERE p.uri = $3) AS existing
         FROM resource_publications p WHERE p.tenant = $1 AND p.publisher = $2`,
        [principal.tenant, principal.subject, uri],
      );
      const row = rows[0];
      return {
        publications: row?.publications ?? 0,
        templates: row?.templates ?? 0,
        existing: row?.existing === null || row?.existing === undefined ? undefined : { template: row.existing },
      };
    },

    async upsert(principal, write) {
      const { rows } = await tx.query<PublicationRow & { inserted: boolean }>(
        `INSERT INTO resource_publications AS p (tenant, publisher, uri, is_template, literal_chars, entry_id, image_ordinal,
           artifact_sha256, description, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), now())
         ON CONFLICT (tenant, publisher, uri) DO UPDATE
           SET is_template = EXCLUDED.is_template, literal_chars = EXCLUDED.literal_chars, entry_id = EXCLUDED.entry_id,
             image_ordinal = EXCLUDED.image_ordinal, artifact_sha256 = EXCLUDED.artifact_sha256,
             description = EXCLUDED.description, updated_at = now()
         RETURNING ${columns}, (xmax = 0) AS inserted`,
        [
          principal.tenant,
          principal.subject,
          write.parsed.uri,
          write.parsed.variables.length > 0,
          write.parsed.literalChars,
          write.entryId,
          write.imageOrdinal ?? null,
          write.artifactSha256 === "" ? null : write.artifactSha256,
          write.description,
        ],
      );
      const row = rows[0]!;
      return { publication: toRecord(row), replaced: !row.inserted };
    },

    async remove(principal, uri) {
      const { rows } = await tx.query<PublicationRow>(
        `DELETE FROM resource_publications p WHERE p.tenant = $1 AND p.publisher = $2 AND p.uri = $3 RETURNING ${columns}`,
        [principal.tenant, principal.subject, uri],
      );
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },
  };
}

/** The publication repository over a database. */
export function createPublicationRepository(db: SqlDatabase) {
  return {
    findCall: (principal: Principal, key: string, notBefore: Date): Promise<RecordedCall | undefined> =>
      findRecordedCall(db, principal, key, notBefore),

    transaction<T>(fn: (scope: PublicationWriteScope) => Promise<T>): Promise<T> {
      return db.transaction(async (tx) => {
        const scope = createWriteScope(tx);
        const value = await fn(scope);
        // Last, so the tenant's chain lock is held only for the append and the commit.
        await scope.audit.flush(currentRequestId());
        return value;
      });
    },

    /** One page of the caller's publications whose target it may read, by URI, after `after`; one more than `limit`. */
    async list(
      principal: Principal,
      templatesOnly: boolean,
      after: string | undefined,
      limit: number,
    ): Promise<PublicationRecord[]> {
      const params = createSqlParams();
      const conditions = [ownedBy(principal, params)];
      if (templatesOnly) conditions.push("p.is_template");
      if (after !== undefined) conditions.push(`p.uri > ${params.add(after)}::text COLLATE "C"`);
      conditions.push(targetReadable(principal, params));
      const { rows } = await db.query<PublicationRow>(
        `SELECT ${columns} FROM resource_publications p WHERE ${conditions.join(" AND ")}
         ORDER BY p.uri LIMIT ${params.add(limit + 1)}`,
        params.values,
      );
      return rows.map(toRecord);
    },

    /** The caller's publication at exactly `uri` that is no template, if its target is readable. */
    async exact(principal: Principal, uri: string): Promise<PublicationRecord | undefined> {
      const params = createSqlParams();
      const { rows } = await db.query<PublicationRow>(
        `SELECT ${columns} FROM resource_publications p
         WHERE ${ownedBy(principal, params)} AND p.uri = ${params.add(uri)} AND NOT p.is_template
           AND ${targetReadable(principal, params)}`,
        params.values,
      );
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },

    /** The caller's publications at any of `uris` that are no template, whose target is readable. */
    async exactAny(principal: Principal, uris: readonly string[]): Promise<PublicationRecord[]> {
      if (uris.length === 0) return [];
      const params = createSqlParams();
      const { rows } = await db.query<PublicationRow>(
        `SELECT ${columns} FROM resource_publications p
         WHERE ${ownedBy(principal, params)} AND p.uri = ANY(${params.add(uris)}::text[]) AND NOT p.is_template
           AND ${targetReadable(principal, params)}`,
        params.values,
      );
      return rows.map(toRecord);
    },

    /** The entries the caller's publications name, readable or not (what a change of which may change a resolve). */
    async publishedEntryIds(principal: Principal): Promise<string[]> {
      const { rows } = await db.query<{ entry_id: string }>(
        "SELECT DISTINCT p.entry_id::text AS entry_id FROM resource_publications p WHERE p.tenant = $1 AND p.publisher = $2",
        [principal.tenant, principal.subject],
      );
      return rows.map((row) => row.entry_id);
    },

    /** The caller's templates (at most 100) whose target it may read, most literal characters first, then by URI. */
    async templates(principal: Principal): Promise<PublicationRecord[]> {
      const params = createSqlParams();
      const { rows } = await db.query<PublicationRow>(
        `SELECT ${columns} FROM resource_publications p
         WHERE ${ownedBy(principal, params)} AND p.is_template AND ${targetReadable(principal, params)}
         ORDER BY p.literal_chars DESC, p.uri`,
        params.values,
      );
      return rows.map(toRecord);
    },
  };
}

export type PublicationRepository = ReturnType<typeof createPublicationRepository>;
