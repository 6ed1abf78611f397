import { fromSql, toSql } from "pgvector";
import type { VectorType } from "../db/sql-database.js";
import { encodeFloat4Array, encodeVectorArray, type BinaryParam } from "../db/bind-message.js";

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
 * Vectors of one dimension as one array parameter: a `vector[]` (element `k`, from 1, is vector `k`) where the column
 * is pgvector's, else one flat `real[]` (vector `k` is the slice `[(k - 1) * dimensions + 1 : k * dimensions]`).
 */
export interface VectorsParam {
  /** The vectors, sent in binary (their text form is kept for PGlite's unprepared `query`). */
  value: BinaryParam;
  /** Each vector's length. */
  dimensions: number;
  /** The parameter's SQL type. */
  arrayType: "vector[]" | "real[]";
}

/**
 * `vectors` as one array parameter of the column type `type`, sent as
 * 32-bit floats in PostgreSQL's binary array format to PGlite and to a
 * server alike: PGlite's one thread copies them instead of parsing text (for
 * a megabyte write's vectors, text took PGlite about half a second), and the
 * store's thread need not print them (printing a megabyte write's 770 × 256
 * numbers as text held it about 40 ms). As a `vector[]`, each vector is one
 * element read in one call, where a flat `real[]` costs a call per number
 * and then a slice per row, about three times as long on PGlite
 * (`bench/vector-param.js`). Text and binary store the same 32-bit floats.
 * Throws on vectors of different lengths and on a value that is not a
 * finite number.
 */
export function toVectorsParam(type: VectorType, vectors: readonly ArrayLike<number>[]): VectorsParam {
  const dimensions = vectors[0]?.length ?? 0;
  const flat = new Float32Array(vectors.length * dimensions);
  vectors.forEach((vector, row) => {
    if (vector.length !== dimensions)
      throw new Error(`vector ${row} has ${vector.length} dimensions; vector 0 has ${dimensions}`);
    for (let index = 0; index < dimensions; index++) {
      const value = vector[index]!;
      flat[row * dimensions + index] = value;
      // A finite double beyond a 32-bit float's range becomes infinite here, as PostgreSQL would refuse it.
      if (!Number.isFinite(flat[row * dimensions + index]))
        throw new Error(`vector ${row} value ${index} is ${value}, not a finite 32-bit float`);
    }
  });
  /** The numbers of `flat` from `from` up to `to`, each to nine significant digits, comma-separated. */
  const numbers = (from: number, to: number): string => {
    const parts = new Array<string>(to - from);
    for (let index = from; index < to; index++) parts[index - from] = String(Number(flat[index]!.toPrecision(9)));
    return parts.join(",");
  };
  if (type === "pgvector")
    return {
      dimensions,
      arrayType: "vector[]",
      value: {
        elementType: "vector",
        toPostgresBinary: (element) => encodeVectorArray(flat, dimensions, element),
        // Each element is pgvector's `[…]`, quoted: its commas would otherwise separate the array's elements.
        toPostgres: () =>
          `{${vectors.map((_, row) => `"[${numbers(row * dimensions, (row + 1) * dimensions)}]"`).join(",")}}`,
      },
    };
  return {
    dimensions,
    arrayType: "real[]",
    value: {
      elementType: "float4",
      toPostgresBinary: (element) => encodeFloat4Array(flat, element),
      toPostgres: () => `{${numbers(0, flat.length)}}`,
    },
  };
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
