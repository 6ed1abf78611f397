/**
 * The export file: JSON Lines. The first line is the header, the last the
 * trailer; every line between is one row, `{"kind": …, "row": {…}}`, with the
 * rows of one kind together and kinds in the order of `transferTables`.
 */
import { transferTableOf } from "./transfer-tables.js";

/** The `format` of the header: what identifies the file. */
export const transferFormat = "context-hub-export";
/** The version of the line layout itself (independent of the schema version, which names the columns). */
export const transferFormatVersion = 1;

/** Rows per kind. */
export type TransferCounts = Record<string, number>;

export interface TransferHeader {
  format: typeof transferFormat;
  format_version: number;
  /** The store's migration level when the file was written: the columns the rows carry. */
  schema_version: number;
  exported_at: string;
  /** The tenant the export was limited to; null for every tenant. */
  tenant: string | null;
  /** Rows written or changed at or after this instant only; null for everything. */
  since: string | null;
  /** Rows of each kind the export found when it began (in the same snapshot it read). */
  counts: TransferCounts;
}

export interface TransferTrailer {
  kind: "end";
  counts: TransferCounts;
}

export interface TransferRow {
  kind: string;
  row: Record<string, unknown>;
}

/** A line of an import file that cannot be used, named by its number (1-based). */
export class TransferFileError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = "TransferFileError";
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function parseJson(text: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new TransferFileError(line, `not valid JSON (${(error as Error).message})`);
  }
}

function isCounts(value: unknown): value is TransferCounts {
  return isObject(value) && Object.values(value).every((count) => Number.isInteger(count) && (count as number) >= 0);
}

/** Reads line 1; throws naming what is wrong with it. */
export function parseHeader(text: string): TransferHeader {
  const value = parseJson(text, 1);
  if (!isObject(value) || value.format !== transferFormat)
    throw new TransferFileError(
      1,
      `not a Context Hub export (the first line must be a header with "format": "${transferFormat}")`,
    );
  if (value.format_version !== transferFormatVersion) {
    throw new TransferFileError(
      1,
      `export format version ${String(value.format_version)} is not one this release reads (it reads ${transferFormatVersion})`,
    );
  }
  if (!Number.isInteger(value.schema_version) || (value.schema_version as number) < 1)
    throw new TransferFileError(1, "the header's schema_version must be a positive whole number");
  if (typeof value.exported_at !== "string") throw new TransferFileError(1, "the header has no exported_at");
  if (value.tenant !== null && typeof value.tenant !== "string")
    throw new TransferFileError(1, "the header's tenant must be a string or null");
  if (value.since !== null && typeof value.since !== "string")
    throw new TransferFileError(1, "the header's since must be a string or null");
  if (!isCounts(value.counts))
    throw new TransferFileError(1, "the header's counts must map each kind to a whole number");
  return value as unknown as TransferHeader;
}

/** Reads a line after the header: a row or the trailer. */
export function parseBodyLine(text: string, line: number): TransferRow | TransferTrailer {
  const value = parseJson(text, line);
  if (!isObject(value) || typeof value.kind !== "string")
    throw new TransferFileError(line, 'expected an object with a "kind"');
  if (value.kind === "end") {
    if (!isCounts(value.counts))
      throw new TransferFileError(line, "the trailer's counts must map each kind to a whole number");
    return { kind: "end", counts: value.counts };
  }
  const table = transferTableOf(value.kind);
  if (table === undefined) throw new TransferFileError(line, `unknown kind "${value.kind}"`);
  if (!isObject(value.row)) throw new TransferFileError(line, `a ${value.kind} line needs a "row" object`);
  for (const key of table.keys) {
    const part = value.row[key];
    if (typeof part !== "string" && typeof part !== "number")
      throw new TransferFileError(line, `the ${value.kind} has no ${key} (part of its key)`);
  }
  return { kind: value.kind, row: value.row };
}

/** The line of a row, as the export writes it. */
export function rowLine(kind: string, rowJson: string): string {
  return `{"kind":${JSON.stringify(kind)},"row":${rowJson}}\n`;
}
