import type { Migration } from "./migration.js";

/**
 * A sample key per entry, for estimates over a caller's view: an index on
 * (tenant, the last two bytes of the id), which are random in every UUID
 * the store writes, so "the view's entries whose key is below k" is a
 * sample of about k / 65,536 of the view, read through the index and
 * chosen by nothing but the entries' own ids
 * (search/view-sample.ts). An expression index: no column to
 * fill, and the expression is the one `sampleKeySql` writes.
 */
export const entrySampleKey: Migration = {
  version: 21,
  name: "entry sample key",
  async up(tx) {
    await tx.query(
      "CREATE INDEX entries_sample_key_idx ON entries (tenant, (get_byte(uuid_send(id), 14) * 256 + get_byte(uuid_send(id), 15)))",
    );
  },
};
