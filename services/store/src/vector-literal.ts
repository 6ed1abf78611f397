import type { VectorType } from "./db/sql-database.js";

/**
 * A vector as a text literal of its column type: `[…]` for pgvector's
 * `vector`, `{…}` for `real[]`; the cast is chosen by the schema, never by
 * input. Each number is written with nine significant digits. Both column
 * types store 32-bit floats, and every 32-bit float reads back exactly from
 * nine digits, where JavaScript's shortest form of the same number as a
 * double takes up to seventeen: about a third less text to build, to send
 * and for PostgreSQL to parse, and the same stored vector.
 */
export function toVectorLiteral(type: VectorType, vector: ArrayLike<number>): string {
  let body = "";
  for (let index = 0; index < vector.length; index++) body += (index === 0 ? "" : ",") + vector[index]!.toPrecision(9);
  return type === "pgvector" ? `[${body}]` : `{${body}}`;
}
