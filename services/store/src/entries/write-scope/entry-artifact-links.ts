/**
 * The artifacts an entry links (`entry_artifact_links`): written in the
 * entry's own write transaction, replaced whole by a change that names them,
 * and gone with the entry's row (ON DELETE CASCADE). Who may read a linked
 * file is the artifact predicate's to say (artifacts/artifact-repository.ts).
 */
import type { SqlExecutor } from "../../db/sql-database.js";

/** The links of the entry aliased `alias`, sorted, as a `text[]`; NULL without any (a kept version's form). */
export const linkedArtifactsOrNull = (alias: string) =>
  `(SELECT array_agg(l.sha256 ORDER BY l.sha256 COLLATE "C") FROM entry_artifact_links l WHERE l.entry_id = ${alias}.id)`;

/** The links of the entry aliased `e`, sorted, as a `text[]` (empty without any). */
export const storedArtifactLinks = `coalesce(${linkedArtifactsOrNull("e")}, '{}'::text[])`;

/** Links entry `entryId` of `tenant` to `links` (distinct digests). */
export async function insertArtifactLinks(
  tx: SqlExecutor,
  tenant: string,
  entryId: string,
  links: readonly string[],
): Promise<void> {
  if (links.length === 0) return;
  await tx.query(
    "INSERT INTO entry_artifact_links (tenant, entry_id, sha256) SELECT $1, $2, unnest($3::text[]) ON CONFLICT DO NOTHING",
    [tenant, entryId, links],
  );
}

/** Replaces every link of entry `entryId` with `links`. */
export async function replaceArtifactLinks(
  tx: SqlExecutor,
  tenant: string,
  entryId: string,
  links: readonly string[],
): Promise<void> {
  await tx.query("DELETE FROM entry_artifact_links WHERE entry_id = $1", [entryId]);
  await insertArtifactLinks(tx, tenant, entryId, links);
}
