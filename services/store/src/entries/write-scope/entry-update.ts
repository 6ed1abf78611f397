/**
 * An update of a locked entry: a compare-and-set on its version that keeps
 * the replaced version and replaces whatever the change names (text with its
 * generated rows, metadata, tags, images, visibility, valid time, kind, title, prompt arguments,
 * linked artifacts, prompt name).
 */
import { createSqlParams, type SqlParams } from "../../db/sql-database.js";
import { accessPredicate } from "../../filters/access-predicate.js";
import type { EntryAck, LockedEntry } from "../../model/entry-model.js";
import type { Principal } from "../../model/principal.js";
import type { EntryChangeWrite, VersionMeta } from "../entry-ports.js";
import { replaceArtifactLinks } from "./entry-artifact-links.js";
import { replaceImages } from "./entry-images.js";
import { replaceGenerated } from "./generated-rows.js";
import { keepVersion } from "./versions-and-tombstones.js";
import {
  ackColumns,
  searchVectorOf,
  toAck,
  toTimestampParam,
  type AckRow,
  type WriteContext,
} from "./write-context.js";
import { toPromptArgumentsJson } from "../../model/prompt-arguments.js";
import { promptNameTaken } from "../../model/prompt-name.js";
import { guardPromptName, promptNameHolder } from "./prompt-name-guard.js";

/** The SET list of the update: a new version by `principal` with `meta`, and each field `change` names. */
function updateSets(
  params: SqlParams,
  principal: Principal,
  entry: LockedEntry,
  change: EntryChangeWrite,
  meta: VersionMeta,
): string[] {
  const sets = [
    "version = e.version + 1",
    "updated_at = now()",
    `updated_by = ${params.add(principal.subject)}`,
    `trust_state = ${params.add(meta.trust.state)}`,
    `trust_reasons = ${params.add(meta.trust.reasons)}::text[]`,
    `change_kind = ${params.add(meta.changeKind)}`,
    `restored_from = ${params.add(meta.restoredFrom ?? null)}::integer`,
  ];
  // A review judged the content it saw; a change that moves the state makes it stale.
  if (meta.trust.state !== entry.trust.state)
    sets.push("reviewed_by = NULL", "reviewed_at = NULL", "review_note = NULL");
  const { text } = change;
  if (text !== undefined) {
    sets.push(
      `text = ${params.add(text.text)}`,
      `text_length = ${params.add(text.textLength)}`,
      `preview = ${params.add(text.preview)}`,
      `content_hash = ${params.add(text.contentHash)}`,
      `summary = ${params.add(text.generated.summary)}`,
    );
    // Without one computed before the transaction, the trigger parses the new text (the vector is left as it was here).
    if (text.searchVector !== undefined) sets.push(`search_vector = ${searchVectorOf(params, text)}`);
  }
  if (change.metadata !== undefined) sets.push(`metadata = ${params.add(JSON.stringify(change.metadata))}::jsonb`);
  if (change.tags !== undefined) sets.push(`tags = ${params.add(change.tags)}::text[]`);
  if (change.visibility !== undefined) sets.push(`visibility = ${params.add(change.visibility)}`);
  if (change.validity !== undefined) {
    sets.push(
      `valid_from = ${params.add(toTimestampParam(change.validity.validFrom))}::timestamptz`,
      `valid_to = ${params.add(toTimestampParam(change.validity.validTo))}::timestamptz`,
    );
  }
  if (change.kind !== undefined) sets.push(`kind = ${params.add(change.kind)}`);
  if (change.title !== undefined) sets.push(`title = ${params.add(change.title)}::text`);
  if (change.promptArguments !== undefined)
    sets.push(`prompt_arguments = ${params.add(toPromptArgumentsJson(change.promptArguments))}::jsonb`);
  if (change.promptName !== undefined) sets.push(`prompt_name = ${params.add(change.promptName)}::text`);
  if (change.images !== undefined)
    sets.push(`content_type = ${params.add(change.images.length > 0 ? "multimodal" : "text")}`);
  return sets;
}

/** Refuses `name` when another of the owner's prompts has it, naming that prompt (see `promptNameTaken`). */
async function refuseTakenName(
  context: WriteContext,
  principal: Principal,
  entry: LockedEntry,
  name: string,
): Promise<void> {
  const params = createSqlParams();
  const holder = promptNameHolder(
    params,
    `${params.add(principal.tenant)}::text`,
    `${params.add(entry.owner)}::text`,
    name,
    entry.id,
  );
  const { rows } = await context.tx.query<{ id: string }>(holder, params.values);
  if (rows[0] !== undefined) throw promptNameTaken(name, rows[0].id);
}

/**
 * Writes `change` to the locked entry (see `EntryWriteScope.update`);
 * undefined when the row no longer matches its locked version or the
 * caller may no longer change it.
 */
export async function updateEntry(
  context: WriteContext,
  principal: Principal,
  entry: LockedEntry,
  change: EntryChangeWrite,
  meta: VersionMeta,
): Promise<EntryAck | undefined> {
  const { tx } = context;
  if (typeof change.promptName === "string") await refuseTakenName(context, principal, entry, change.promptName);
  const params = createSqlParams();
  const sets = updateSets(params, principal, entry, change, meta);
  await keepVersion(tx, entry.id, entry.version, principal.subject);
  const statement = tx.query<AckRow>(
    `UPDATE entries e SET ${sets.join(", ")}
         WHERE e.id = ${params.add(entry.id)} AND e.version = ${params.add(entry.version)} AND ${accessPredicate(principal, "e", params, "write")}
         RETURNING ${ackColumns}`,
    params.values,
  );
  const { rows } = await guardPromptName(statement, change.promptName);
  const row = rows[0];
  if (row === undefined) return undefined;
  // Everything derived from the old text goes with it, in this transaction: no read can pair the new text with old vectors.
  if (change.text !== undefined) await replaceGenerated(context, entry.id, principal.tenant, change.text.generated);
  if (change.images !== undefined) await replaceImages(tx, entry.id, change.images);
  if (change.artifacts !== undefined) await replaceArtifactLinks(tx, principal.tenant, entry.id, change.artifacts);
  return toAck(row, false);
}
