import { fromSql, toSql } from "pgvector";
import type { VectorType } from "../db/sql-database.js";

/**
 * A vector as a text literal of its column type, written by pgvector's
 * `toSql`: `[…]` for pgvector's `vector`, and the same numbers in `{…}` for
 * `real[]`; the cast is chosen by the schema, never by input. Each number is
 * first rounded to nine significant digits: both column types store 32-bit
 * floats, and every 32-bit float reads back exactly from nine digits, where
 * JavaScript's shortest form of the same number as a double takes up to
 * seventeen: about a third less text to build, to send and for PostgreSQL to
 * parse, and the same stored vector. Throws on a value that is not a finite
 * number, which neither column type may hold (pgvector's text would carry it
 * as `null`).
 */
export function toVectorLiteral(type: VectorType, vector: ArrayLike<number>): string {
  const values = new Array<number>(vector.length);
  for (let index = 0; index < vector.length; index++) {
    const value = vector[index]!;
    if (!Number.isFinite(value)) throw new Error(`vector value ${index} is ${value}, not a finite number`);
    values[index] = Number(value.toPrecision(9));
  }
  const literal = toSql(values) as string;
  return type === "pgvector" ? literal : `{${literal.slice(1, -1)}}`;
}

/**
 * A `vector` column's value as read: pgvector's `fromSql` parses the text
 * form (PGlite hands it over as text); the type parser that pgvector's
 * `registerTypes` installs on a PostgreSQL server's connections has already
 * made it an array.
 */
export function fromVectorColumn(value: string | readonly number[]): Float32Array {
  return Float32Array.from(typeof value === "string" ? (fromSql(value) as number[]) : value);
}
