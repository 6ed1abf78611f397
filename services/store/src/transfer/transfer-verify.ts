/**
 * The first pass of an import: reads the whole file and checks it before
 * anything is written. Every line must parse; kinds come in export order;
 * every text matches its content hash and every image its SHA-256 and
 * size; every audit chain links record to record, each record's hash
 * matches its content, and a chain that continues one already stored joins
 * its head; the trailer closes the file with the counts it holds. Holds
 * one chain head per tenant, never the file.
 */
import { createHash } from "node:crypto";
import { auditHash, genesisHash, type AuditRecord } from "../audit/audit.js";
import { latestSchemaVersion } from "../db/migrations/index.js";
import type { SqlExecutor } from "../db/sql-database.js";
import {
  parseBodyLine,
  parseHeader,
  TransferFileError,
  type TransferCounts,
  type TransferHeader,
} from "./transfer-format.js";
import { transferTables } from "./transfer-tables.js";

/** Lines of an export file, without their line ends, in order. */
export type LineSource = () => AsyncIterable<string>;

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

function checkContent(kind: string, row: Record<string, unknown>, line: number): void {
  if (kind === "entry" || kind === "entry_version") {
    if (typeof row.text !== "string" || row.content_hash !== sha256(row.text))
      throw new TransferFileError(line, `the ${kind}'s text does not match its content_hash`);
  } else if (kind === "entry_image") {
    const data = typeof row.data === "string" ? Buffer.from(row.data, "base64") : undefined;
    if (data === undefined || row.sha256 !== sha256(data) || row.byte_size !== data.length)
      throw new TransferFileError(line, "the image's data does not match its sha256 and byte_size");
  }
}

function toAuditRecord(row: Record<string, unknown>, line: number): AuditRecord {
  const at = new Date(String(row.at));
  if (Number.isNaN(at.getTime())) throw new TransferFileError(line, "the audit record's at is not a time");
  return {
    tenant: String(row.tenant),
    seq: Number(row.seq),
    id: String(row.id),
    at,
    actor: String(row.actor),
    action: row.action as AuditRecord["action"],
    outcome: row.outcome as AuditRecord["outcome"],
    targetIds: row.target_ids as string[],
    beforeHashes: row.before_hashes as string[],
    afterHashes: row.after_hashes as string[],
    requestId: String(row.request_id),
    details: row.details as AuditRecord["details"],
    previousHash: String(row.previous_hash),
    hash: String(row.hash),
  };
}

interface ChainStart {
  seq: number;
  previousHash: string;
  line: number;
}

/** Checks audit records as they pass, tenant by tenant, and remembers where each chain in the file starts. */
function createChainChecker() {
  const heads = new Map<string, { seq: number; hash: string }>();
  const starts = new Map<string, ChainStart>();
  return {
    starts,
    check(row: Record<string, unknown>, line: number) {
      const record = toAuditRecord(row, line);
      const head = heads.get(record.tenant);
      if (head === undefined) {
        if (record.seq === 1 && record.previousHash !== genesisHash)
          throw new TransferFileError(
            line,
            `audit record 1 of tenant ${record.tenant} does not start from the genesis hash`,
          );
        starts.set(record.tenant, { seq: record.seq, previousHash: record.previousHash, line });
      } else if (record.seq !== head.seq + 1) {
        throw new TransferFileError(
          line,
          `audit record ${record.seq} of tenant ${record.tenant} follows record ${head.seq}: records are missing or out of order`,
        );
      } else if (record.previousHash !== head.hash) {
        throw new TransferFileError(
          line,
          `audit record ${record.seq} of tenant ${record.tenant}: its previous_hash is not the hash of record ${head.seq}`,
        );
      }
      if (auditHash(record) !== record.hash)
        throw new TransferFileError(
          line,
          `audit record ${record.seq} of tenant ${record.tenant}: its content does not match its hash (the record was changed)`,
        );
      heads.set(record.tenant, { seq: record.seq, hash: record.hash });
    },
  };
}

/** A chain in the file that starts after record 1 must continue the target's chain: record seq-1 stored there with the hash it names. */
async function checkChainJoins(db: SqlExecutor, starts: Map<string, ChainStart>): Promise<void> {
  for (const [tenant, start] of starts) {
    if (start.seq === 1) continue;
    const { rows } = await db.query<{ hash: string }>("SELECT hash FROM audit_log WHERE tenant = $1 AND seq = $2", [
      tenant,
      start.seq - 1,
    ]);
    if (rows[0]?.hash !== start.previousHash) {
      throw new TransferFileError(
        start.line,
        `the audit chain of tenant ${tenant} starts at record ${start.seq}, but this store ${rows[0] === undefined ? `has no record ${start.seq - 1}` : `holds a different record ${start.seq - 1}`} to continue from (import the earlier export first)`,
      );
    }
  }
}

/** What the first pass found. */
export interface VerifiedFile {
  header: TransferHeader;
  counts: TransferCounts;
  lines: number;
  /** SHA-256 over every line read, so the writing pass can tell the file did not change after it was checked. */
  digest: string;
}

/**
 * Reads every line of `source` and checks it (see the module comment);
 * `db` is only read, for the heads of chains the file continues. Throws a
 * `TransferFileError` naming the first line that fails, or an error naming
 * both schema versions when the file is newer than this store.
 */
export async function verifyExportFile(
  db: SqlExecutor,
  source: LineSource,
  onLine?: (line: number) => void,
): Promise<VerifiedFile> {
  const order = transferTables.map((table) => table.kind);
  const counts: TransferCounts = Object.fromEntries(order.map((kind) => [kind, 0]));
  const chains = createChainChecker();
  let header: TransferHeader | undefined;
  let trailer: TransferCounts | undefined;
  let lastKind = 0;
  let line = 0;
  const digest = createHash("sha256");
  for await (const text of source()) {
    line += 1;
    digest.update(text).update("\n");
    if (line === 1) {
      header = parseHeader(text);
      if (header.schema_version > latestSchemaVersion) {
        throw new Error(
          `the file was exported at schema version ${header.schema_version}, newer than this store's ${latestSchemaVersion}; import it with a Context Hub release whose store includes migration ${header.schema_version}`,
        );
      }
      continue;
    }
    if (trailer !== undefined) throw new TransferFileError(line, "a line after the trailer");
    if (text.trim() === "") throw new TransferFileError(line, "an empty line");
    const parsed = parseBodyLine(text, line);
    if (parsed.kind === "end") {
      trailer = (parsed as { counts: TransferCounts }).counts;
      continue;
    }
    const { kind, row } = parsed as { kind: string; row: Record<string, unknown> };
    const position = order.indexOf(kind);
    if (position < lastKind)
      throw new TransferFileError(line, `a ${kind} after the ${order[lastKind]} rows: the file is out of order`);
    lastKind = position;
    checkContent(kind, row, line);
    if (kind === "audit_record") chains.check(row, line);
    counts[kind] = (counts[kind] ?? 0) + 1;
    onLine?.(line);
  }
  if (header === undefined) throw new TransferFileError(1, "the file is empty");
  if (trailer === undefined)
    throw new TransferFileError(line + 1, 'the file ends without its trailer ({"kind":"end",…}): it was cut short');
  for (const kind of new Set([...Object.keys(trailer), ...order])) {
    if ((trailer[kind] ?? 0) !== (counts[kind] ?? 0))
      throw new TransferFileError(
        line,
        `the trailer counts ${trailer[kind] ?? 0} ${kind} row(s), the file holds ${counts[kind] ?? 0}`,
      );
  }
  await checkChainJoins(db, chains.starts);
  return { header, counts, lines: line, digest: digest.digest("hex") };
}
