/**
 * A `memories` row as the repository's statements select it, and the
 * record it becomes.
 */
import type { Visibility } from "../model/entry-values.js";
import type { TrustState } from "../model/trust.js";
import type { MemoryRecord, MemoryValueType } from "./memory-model.js";

export interface MemoryRow {
  id: string;
  namespace: string;
  key: string;
  owner: string;
  visibility: Visibility;
  kind: string;
  tags: string[];
  value_type: MemoryValueType;
  value: string;
  content_hash: string;
  version: number;
  created_at: Date;
  updated_at: Date;
  updated_by: string;
  deleted_at: Date | null;
  delete_reason: string;
  trust: TrustState;
  trust_reasons: string[];
}

/** The columns of a `MemoryRow`, of the `memories` row aliased `m`. */
export const memoryColumns =
  "m.id, m.namespace, m.key, m.owner, m.visibility, m.kind, m.tags, m.value_type, m.value, m.content_hash, m.version, m.created_at, m.updated_at, m.updated_by, m.deleted_at, m.delete_reason, m.trust, m.trust_reasons";

/** The record a row is. */
export function toMemoryRecord(row: MemoryRow): MemoryRecord {
  return {
    id: row.id,
    namespace: row.namespace,
    key: row.key,
    owner: row.owner,
    visibility: row.visibility,
    kind: row.kind,
    tags: row.tags,
    valueType: row.value_type,
    value: row.value,
    contentHash: row.content_hash,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
    trust: { state: row.trust, reasons: row.trust_reasons },
  };
}

/**
 * Whether no entry mirrors memory `m`. Not the access predicate: a memory
 * has at most one mirror whoever may see it (a unique index), and only the
 * backfill, which answers no caller, asks.
 */
export const unmirrored = "NOT EXISTS (SELECT 1 FROM entries e WHERE e.memory_id = m.id)";
