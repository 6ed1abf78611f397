/**
 * A memory's kept revisions in SQL: one by number or by time, and a page of
 * them, newest first. The caller has already found that it may read the
 * memory.
 */
import type { SqlDatabase } from "../db/sql-database.js";
import type { Visibility } from "../model/entry-values.js";
import type { TrustState } from "../model/trust.js";
import type { MemoryRevision, MemoryValueType } from "./memory-model.js";

interface RevisionRow {
  version: number;
  change: "put" | "delete";
  visibility: Visibility;
  kind: string;
  tags: string[];
  value_type: MemoryValueType;
  value: string;
  content_hash: string;
  written_by: string;
  written_at: Date;
  reason: string;
  trust: TrustState;
  trust_reasons: string[];
  reviewed_by: string | null;
  reviewed_at: Date | null;
  review_note: string | null;
}

function toRevision(row: RevisionRow): MemoryRevision {
  return {
    version: row.version,
    change: row.change,
    visibility: row.visibility,
    kind: row.kind,
    tags: row.tags,
    valueType: row.value_type,
    value: row.value,
    contentHash: row.content_hash,
    writtenBy: row.written_by,
    writtenAt: row.written_at,
    reason: row.reason,
    redacted: false,
    trust: { state: row.trust, reasons: row.trust_reasons },
    review:
      row.reviewed_by === null || row.reviewed_at === null
        ? null
        : { by: row.reviewed_by, at: row.reviewed_at, note: row.review_note ?? "" },
  };
}

const revisionColumns =
  "v.version, v.change, v.visibility, v.kind, v.tags, v.value_type, v.value, v.content_hash, v.written_by, v.written_at, v.reason, v.trust, v.trust_reasons, v.reviewed_by, v.reviewed_at, v.review_note";

/** The revision of a memory: by number, or the one current at `asOf`. */
export async function readRevision(
  db: SqlDatabase,
  memoryId: string,
  at: { version: number } | { asOf: Date },
): Promise<MemoryRevision | undefined> {
  const { rows } =
    "version" in at
      ? await db.query<RevisionRow>(
          `SELECT ${revisionColumns} FROM memory_versions v WHERE v.memory_id = $1 AND v.version = $2`,
          [memoryId, at.version],
        )
      : await db.query<RevisionRow>(
          `SELECT ${revisionColumns} FROM memory_versions v WHERE v.memory_id = $1 AND v.written_at <= $2::timestamptz ORDER BY v.version DESC LIMIT 1`,
          [memoryId, at.asOf.toISOString()],
        );
  return rows[0] === undefined ? undefined : toRevision(rows[0]);
}

/** A page of a memory's revisions, newest first, one more than `limit` to tell whether more follow. */
export async function readRevisions(
  db: SqlDatabase,
  memoryId: string,
  limit: number,
  offset: number,
): Promise<MemoryRevision[]> {
  const { rows } = await db.query<RevisionRow>(
    `SELECT ${revisionColumns} FROM memory_versions v WHERE v.memory_id = $1 ORDER BY v.version DESC LIMIT $2 OFFSET $3`,
    [memoryId, limit + 1, offset],
  );
  return rows.map(toRevision);
}
