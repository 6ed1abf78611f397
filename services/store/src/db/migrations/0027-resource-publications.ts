import type { Migration } from "./migration.js";

/**
 * Published resources: a URI (or URI template) a principal chooses for an
 * entry it may read, for one of the entry's images or for one file it links.
 *
 * - One row per (tenant, publisher, uri): a URI is its publisher's own, and
 *   publishing it again moves it. `publisher` is the principal's subject, as
 *   `entries.owner` records owners. `uri` compares byte by byte (COLLATE
 *   "C"), so pages run in one order on every database and the key serves it.
 * - `is_template` and `literal_chars` are what `parseResourceUri` found, kept
 *   so a resolve reads only the publisher's templates and ranks them without
 *   parsing every row. A template serves the entry's text only.
 * - Deleting an entry removes its row from `entries` (a tombstone keeps what
 *   is left of it elsewhere), and its publications with it (ON DELETE
 *   CASCADE, served by `resource_publications_entry_idx`).
 * - Whether the publisher may still read the target is never stored: every
 *   read checks it again against the access predicate.
 */
export const resourcePublications: Migration = {
  version: 27,
  name: "resource publications",
  async up(tx) {
    await tx.query(`
CREATE TABLE resource_publications (
  tenant text NOT NULL,
  publisher text NOT NULL,
  uri text COLLATE "C" NOT NULL,
  is_template boolean NOT NULL,
  literal_chars integer NOT NULL CONSTRAINT resource_publications_literal_chars_check CHECK (literal_chars >= 0),
  entry_id uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
  image_ordinal integer CONSTRAINT resource_publications_image_ordinal_check CHECK (image_ordinal >= 0),
  artifact_sha256 text CONSTRAINT resource_publications_artifact_sha256_check CHECK (artifact_sha256 ~ '^[0-9a-f]{64}$'),
  description text NOT NULL DEFAULT '',
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  PRIMARY KEY (tenant, publisher, uri),
  CONSTRAINT resource_publications_target_check CHECK (
    (image_ordinal IS NULL OR artifact_sha256 IS NULL)
    AND (NOT is_template OR (image_ordinal IS NULL AND artifact_sha256 IS NULL))
  )
)`);
    await tx.query(
      "CREATE INDEX resource_publications_templates_idx ON resource_publications (tenant, publisher, uri) WHERE is_template",
    );
    await tx.query("CREATE INDEX resource_publications_entry_idx ON resource_publications (entry_id)");
  },
};
