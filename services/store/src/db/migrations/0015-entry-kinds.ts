import type { Migration } from "./migration.js";

/**
 * Typed entries: what an entry is (`kind`: note, document, prompt, plan,
 * report, or a kind the store's configuration adds) and an optional `title`.
 *
 * - `entries` and `entry_versions` both gain them, so a kept version keeps
 *   the kind and title it had and a restore brings them back. Existing rows
 *   become notes without a title (the column default fills them; no rewrite
 *   of the text is needed).
 * - The allowed kinds are configuration, not a CHECK: a store started with
 *   more kinds must be able to read rows another configuration wrote. The
 *   constraint only keeps a kind a plain lowercase name.
 * - An index on (tenant, kind) serves the kind filter of listings, which
 *   read a tenant's entries newest first.
 */
export const entryKinds: Migration = {
  version: 15,
  name: "entry kinds",
  async up(tx) {
    await tx.query(`
ALTER TABLE entries
  ADD COLUMN kind text NOT NULL DEFAULT 'note' CONSTRAINT entries_kind_check CHECK (kind ~ '^[a-z][a-z0-9_-]{0,31}$'),
  ADD COLUMN title text`);
    await tx.query(`
ALTER TABLE entry_versions
  ADD COLUMN kind text NOT NULL DEFAULT 'note' CONSTRAINT entry_versions_kind_check CHECK (kind ~ '^[a-z][a-z0-9_-]{0,31}$'),
  ADD COLUMN title text`);
    await tx.query("CREATE INDEX entries_tenant_kind_idx ON entries (tenant, kind, created_at DESC, id DESC)");
  },
};
