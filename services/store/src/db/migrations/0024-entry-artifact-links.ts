import type { Migration } from "./migration.js";

/**
 * The artifacts an entry links (`store_context { artifacts: [sha256, …] }`):
 * whoever may see the entry may read the files its owner holds a reference
 * to among them (see `artifactPredicate`).
 *
 * - A child table, not a column: the artifact predicate asks, per reference,
 *   "which entries link this hash?", which `(tenant, sha256)` answers by index.
 * - ON DELETE CASCADE: a deleted entry's links go with its row, in the same
 *   statement, so a tombstone opens nothing.
 * - `entry_versions.artifacts` keeps the links a replaced version had (NULL
 *   for none, what every existing row has: no rewrite), so a restore brings
 *   them back; a kept version opens nothing itself.
 */
export const entryArtifactLinks: Migration = {
  version: 24,
  name: "entry artifact links",
  async up(tx) {
    await tx.query(`
CREATE TABLE entry_artifact_links (
  tenant text NOT NULL,
  entry_id uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
  sha256 text NOT NULL CONSTRAINT entry_artifact_links_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  PRIMARY KEY (entry_id, sha256)
)`);
    await tx.query("CREATE INDEX entry_artifact_links_sha256_idx ON entry_artifact_links (tenant, sha256, entry_id)");
    await tx.query("ALTER TABLE entry_versions ADD COLUMN artifacts text[]");
  },
};
