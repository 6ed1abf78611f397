import type { Migration } from "./migration.js";

/**
 * Valid time: when an entry's stated fact holds, beside transaction time
 * (when the store held it, which `created_at`, `entry_versions` and
 * `tombstones` already record).
 *
 * - `entries` and `entry_versions` gain `valid_from` / `valid_to`
 *   (valid_from <= t < valid_to; NULL is an open end), so a kept version
 *   keeps the interval it had. Existing rows are open at both ends: valid
 *   always.
 * - `entry_versions` gains `content_type`, so a search of what the store held
 *   at an earlier instant (`as_of`) can filter a deleted entry by it; versions
 *   kept before this migration read it from their entry.
 * - A GiST index on the interval as a range serves `valid_at`
 *   (`tstzrange(valid_from, valid_to) @> t`, the same half-open rule).
 */
export const validTime: Migration = {
  version: 5,
  name: "valid time",
  async up(tx) {
    await tx.query(`
ALTER TABLE entries
  ADD COLUMN valid_from timestamptz(3),
  ADD COLUMN valid_to timestamptz(3),
  ADD CONSTRAINT entries_valid_time_check CHECK (valid_from < valid_to)`);
    await tx.query(`
ALTER TABLE entry_versions
  ADD COLUMN valid_from timestamptz(3),
  ADD COLUMN valid_to timestamptz(3),
  ADD COLUMN content_type text,
  ADD CONSTRAINT entry_versions_valid_time_check CHECK (valid_from < valid_to)`);
    await tx.query("CREATE INDEX entries_valid_time_idx ON entries USING gist (tstzrange(valid_from, valid_to))");
    // as_of looks up, per entry, the first kept version superseded after an instant.
    await tx.query("CREATE INDEX entry_versions_superseded_idx ON entry_versions (entry_id, superseded_at)");
  },
};
