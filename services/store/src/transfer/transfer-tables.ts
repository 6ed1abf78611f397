/**
 * What an export carries, table by table, and the SQL that moves a row
 * between a table and its JSON form. A row's JSON is built and read by
 * PostgreSQL itself (`jsonb_build_object` out, `jsonb_array_elements` in),
 * so PGlite and a PostgreSQL server write byte-identical values whatever
 * their drivers make of timestamps, bigints, bytea or vectors. Columns are
 * read from the catalogue, so a column a later migration adds travels
 * without a change here; a column of a type this file has no form for stops
 * the export instead of being dropped silently.
 */
import type { SqlExecutor, VectorType } from "../db/sql-database.js";

/** One exported table: the tag of its lines, its key and how the filters of an export apply to it. */
export interface TransferTable {
  /** The `kind` of its lines. */
  kind: string;
  table: string;
  /** The primary key: keyset pagination on export, identity on import. */
  keys: readonly string[];
  /** Condition (on alias `t`) keeping one tenant's rows; `$p` is the tenant's placeholder. */
  tenantCondition(p: string): string;
  /** Condition keeping rows written or changed at or after an instant (`$p`, a timestamptz). */
  sinceCondition(p: string): string;
  /** Bytes that dominate a row's size, so a page of large rows is cut short. */
  size: string;
  /** Columns left out of the file because they are derived; the expression (over the imported row `r.v`) refills them, or nothing leaves them to their trigger. */
  derived: Readonly<Record<string, string | undefined>>;
}

const ownTenant = (p: string) => `t.tenant = ${p}`;
const referencedSince = (blob: string, p: string) =>
  `EXISTS (SELECT 1 FROM artifacts a WHERE a.tenant = ${blob}.tenant AND a.sha256 = ${blob}.sha256 AND a.updated_at >= ${p})`;
const ofEntry = (condition: string) => `EXISTS (SELECT 1 FROM entries e WHERE e.id = t.entry_id AND ${condition})`;
/** Written or changed at or after `p` (`at`), or reviewed then: a review moves only the trust state and `reviewed_at`. */
const changedOrReviewed = (at: string, p: string) => `(t.${at} >= ${p} OR t.reviewed_at >= ${p})`;

/**
 * The exported tables, in the order an import must write them (entries
 * before the rows that reference them). Left out, as configuration or
 * derived state rather than data: `search_settings` (the target keeps its
 * own), `embedding_spaces` (a trigger registers each space as chunks
 * arrive), `vector_outbox` (the relay's queue), `artifact_uploads` and
 * their parts (uploads in progress, which expire), `resource_subscriptions`
 * (live MCP sessions' state, which the gateway's sessions do not outlive)
 * and `schema_migrations` (the header names the schema version).
 */
export const transferTables: readonly TransferTable[] = [
  {
    kind: "entry",
    table: "entries",
    keys: ["id"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => changedOrReviewed("updated_at", p),
    size: "octet_length(t.text)",
    // The insert trigger computes it in the target's text-search language.
    derived: { search_vector: undefined },
  },
  {
    kind: "entry_image",
    table: "entry_images",
    keys: ["entry_id", "ordinal"],
    tenantCondition: (p) => ofEntry(`e.tenant = ${p}`),
    sinceCondition: (p) => ofEntry(`(e.updated_at >= ${p} OR e.reviewed_at >= ${p})`),
    size: "octet_length(t.data)",
    derived: {},
  },
  {
    kind: "entry_artifact_link",
    table: "entry_artifact_links",
    keys: ["entry_id", "sha256"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => ofEntry(`(e.updated_at >= ${p} OR e.reviewed_at >= ${p})`),
    size: "0",
    derived: {},
  },
  {
    kind: "node_summary",
    table: "node_summaries",
    keys: ["entry_id", "node_id"],
    tenantCondition: (p) => ofEntry(`e.tenant = ${p}`),
    sinceCondition: (p) => ofEntry(`(e.updated_at >= ${p} OR e.reviewed_at >= ${p})`),
    size: "octet_length(t.summary)",
    derived: {},
  },
  {
    kind: "chunk",
    table: "chunks",
    keys: ["id"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => ofEntry(`(e.updated_at >= ${p} OR e.reviewed_at >= ${p})`),
    size: "0",
    derived: {},
  },
  {
    kind: "entry_version",
    table: "entry_versions",
    keys: ["entry_id", "version"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => `t.superseded_at >= ${p}`,
    size: "octet_length(t.text)",
    derived: { search_vector: "entry_search_vector(r.v->>'text')" },
  },
  {
    kind: "tombstone",
    table: "tombstones",
    keys: ["id"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => `t.deleted_at >= ${p}`,
    size: "0",
    derived: {},
  },
  {
    kind: "memory",
    table: "memories",
    keys: ["id"],
    tenantCondition: ownTenant,
    // A review sets the memory's trust and records itself on the revision it judged.
    sinceCondition: (p) =>
      `(t.updated_at >= ${p} OR EXISTS (SELECT 1 FROM memory_versions v WHERE v.memory_id = t.id AND v.reviewed_at >= ${p}))`,
    size: "octet_length(t.value)",
    derived: {},
  },
  {
    kind: "memory_version",
    table: "memory_versions",
    keys: ["memory_id", "version"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => changedOrReviewed("written_at", p),
    size: "octet_length(t.value)",
    derived: {},
  },
  {
    kind: "handoff",
    table: "handoffs",
    keys: ["id"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => changedOrReviewed("updated_at", p),
    size: "octet_length(t.summary)",
    derived: {},
  },
  {
    kind: "session",
    table: "sessions",
    keys: ["id"],
    tenantCondition: ownTenant,
    // An append moves updated_at, so a session with new events travels with them.
    sinceCondition: (p) => `t.updated_at >= ${p}`,
    size: "octet_length(t.summary)",
    derived: {},
  },
  {
    kind: "session_event",
    table: "session_events",
    keys: ["session_id", "seq"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => changedOrReviewed("written_at", p),
    size: "octet_length(t.payload)",
    derived: {},
  },
  {
    kind: "artifact_blob",
    table: "artifact_blobs",
    keys: ["tenant", "sha256"],
    tenantCondition: ownTenant,
    // A reference changed since then brings its bytes along, so an incremental import never lacks them.
    sinceCondition: (p) => `(t.created_at >= ${p} OR ${referencedSince("t", p)})`,
    size: "0",
    derived: {},
  },
  {
    kind: "artifact_chunk",
    table: "artifact_chunks",
    keys: ["tenant", "sha256", "ordinal"],
    tenantCondition: ownTenant,
    sinceCondition: (p) =>
      `EXISTS (SELECT 1 FROM artifact_blobs b WHERE b.tenant = t.tenant AND b.sha256 = t.sha256 AND (b.created_at >= ${p} OR ${referencedSince("b", p)}))`,
    size: "octet_length(t.data)",
    derived: {},
  },
  {
    kind: "artifact",
    table: "artifacts",
    keys: ["id"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => `t.updated_at >= ${p}`,
    size: "0",
    derived: {},
  },
  {
    kind: "collection",
    table: "collections",
    keys: ["id"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => `t.updated_at >= ${p}`,
    size: "0",
    derived: {},
  },
  {
    kind: "collection_member",
    table: "collection_members",
    keys: ["collection_id", "entry_id"],
    tenantCondition: (p) => `EXISTS (SELECT 1 FROM collections c WHERE c.id = t.collection_id AND c.tenant = ${p})`,
    // Every change of members (an add, a removal, a reorder) moves its collection's updated_at.
    sinceCondition: (p) => `EXISTS (SELECT 1 FROM collections c WHERE c.id = t.collection_id AND c.updated_at >= ${p})`,
    size: "0",
    derived: {},
  },
  {
    kind: "resource_publication",
    table: "resource_publications",
    keys: ["tenant", "publisher", "uri"],
    tenantCondition: ownTenant,
    // A publish again (to a new target) moves updated_at.
    sinceCondition: (p) => `t.updated_at >= ${p}`,
    size: "0",
    derived: {},
  },
  {
    kind: "grant",
    table: "grants",
    keys: ["id"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => `t.created_at >= ${p}`,
    size: "0",
    derived: {},
  },
  {
    kind: "api_key",
    table: "api_keys",
    keys: ["id"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => `(t.created_at >= ${p} OR t.revoked_at >= ${p})`,
    size: "0",
    derived: {},
  },
  {
    kind: "idempotency_key",
    table: "idempotency_keys",
    keys: ["tenant", "subject", "key"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => `t.created_at >= ${p}`,
    size: "octet_length(t.response)",
    derived: {},
  },
  {
    kind: "audit_record",
    table: "audit_log",
    keys: ["tenant", "seq"],
    tenantCondition: ownTenant,
    sinceCondition: (p) => `t.at >= ${p}`,
    size: "0",
    derived: {},
  },
];

/** The table whose lines carry `kind`, if any. */
export function transferTableOf(kind: string): TransferTable | undefined {
  return transferTables.find((table) => table.kind === kind);
}

type ColumnForm = "scalar" | "json" | "time" | "text_array" | "vector" | "bytes";

/** A column as the file carries it. */
export interface TransferColumn {
  name: string;
  /** The column's SQL type, as `format_type` spells it (the cast on import). */
  type: string;
  form: ColumnForm;
  /** The column's default expression, if it has one: what a row of an older file, exported before the column existed, gets. */
  defaultValue?: string | undefined;
}

/** The SQL of one table on one database: its row as JSON, and its rows from JSON. */
export interface TableCodec {
  table: TransferTable;
  columns: readonly TransferColumn[];
  /** A `jsonb` expression over alias `t`: the row as the file carries it. */
  rowJson: string;
  /** The column list and, in the same order, the expressions over `r.v` (one element of a JSON array) that rebuild a row. */
  insertColumns: string;
  insertValues: string;
  /** `(t.k1, t.k2)` and the matching typed values over `r.v`. */
  keyTuple: string;
  keyValues: string;
  /** The key columns' casts, for keyset parameters. */
  keyTypes: readonly string[];
}

const scalarTypes = new Set(["uuid", "text", "integer", "bigint", "smallint", "boolean"]);

function formOf(table: string, column: string, type: string): ColumnForm {
  if (scalarTypes.has(type)) return "scalar";
  if (type === "jsonb") return "json";
  if (type.startsWith("timestamp")) return "time";
  if (type === "text[]") return "text_array";
  if (type === "bytea") return "bytes";
  if (type === "vector" || type.startsWith("vector(") || type === "real[]") return "vector";
  throw new Error(`${table}.${column} is of type ${type}, which the export format has no form for`);
}

function exportExpression(column: TransferColumn): string {
  const c = `t.${column.name}`;
  switch (column.form) {
    case "time":
      // Fixed UTC with milliseconds (the columns keep milliseconds), whatever the session's time zone.
      return `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    case "bytes":
      return `translate(encode(${c}, 'base64'), E'\\n', '')`;
    case "vector":
      // pgvector's type and real[] both travel as an array of float4s, so either store reads the other's file.
      return column.type === "real[]" ? c : `${c}::real[]`;
    case "scalar":
    case "json":
    case "text_array":
      return c;
  }
}

/**
 * The expression rebuilding `column` from a file's row: its value, or, when
 * the row has no such key (a file exported at an older schema version), the
 * column's default, as the migration that added it filled existing rows.
 */
function importExpression(column: TransferColumn, vectorType: VectorType): string {
  const value = valueExpression(column, vectorType);
  return column.defaultValue === undefined
    ? value
    : `CASE WHEN r.v->'${column.name}' IS NULL THEN ${column.defaultValue} ELSE ${value} END`;
}

function valueExpression(column: TransferColumn, vectorType: VectorType): string {
  const v = `r.v->'${column.name}'`;
  const text = `r.v->>'${column.name}'`;
  const elements = (cast: string) =>
    `ARRAY(SELECT a.x${cast} FROM jsonb_array_elements_text(${v}) WITH ORDINALITY AS a (x, n) ORDER BY a.n)`;
  const ifArray = (expression: string) => `CASE WHEN jsonb_typeof(${v}) = 'array' THEN ${expression} END`;
  switch (column.form) {
    case "scalar":
    case "time":
      return `(${text})::${column.type}`;
    case "json":
      return `nullif(${v}, 'null'::jsonb)`;
    case "text_array":
      return ifArray(elements(""));
    case "bytes":
      return `decode(${text}, 'base64')`;
    case "vector":
      return ifArray(vectorType === "pgvector" ? `(${v})::text::vector` : elements("::real"));
  }
}

/** Builds the codec of `table` from the database's catalogue. */
export async function loadTableCodec(
  db: SqlExecutor,
  table: TransferTable,
  vectorType: VectorType,
): Promise<TableCodec> {
  const { rows } = await db.query<{ name: string; type: string; generated: boolean; default_value: string | null }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attgenerated <> '' AS generated,
       pg_get_expr(d.adbin, d.adrelid) AS default_value
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [table.table],
  );
  const columns: TransferColumn[] = rows
    .filter((row) => !row.generated && !(row.name in table.derived))
    .map((row) => ({
      name: row.name,
      type: row.type,
      form: formOf(table.table, row.name, row.type),
      ...(row.default_value === null ? {} : { defaultValue: row.default_value }),
    }));
  const typeOf = (name: string) => {
    const column = columns.find((candidate) => candidate.name === name);
    if (column === undefined) throw new Error(`${table.table} has no key column ${name}`);
    return column.type;
  };
  const derived = Object.entries(table.derived).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return {
    table,
    columns,
    rowJson: `jsonb_build_object(${columns.map((column) => `'${column.name}', ${exportExpression(column)}`).join(", ")})`,
    insertColumns: [...columns.map((column) => column.name), ...derived.map(([name]) => name)].join(", "),
    insertValues: [
      ...columns.map((column) => importExpression(column, vectorType)),
      ...derived.map(([, expression]) => expression),
    ].join(", "),
    keyTuple: `(${table.keys.map((key) => `t.${key}`).join(", ")})`,
    keyValues: table.keys.map((key) => `(r.v->>'${key}')::${typeOf(key)}`).join(", "),
    keyTypes: table.keys.map(typeOf),
  };
}
