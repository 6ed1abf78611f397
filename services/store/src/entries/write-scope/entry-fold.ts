/**
 * Folding a retransmit into the entry it duplicates: the stored row takes
 * the write's tags, metadata, images, valid time, kind, title, prompt arguments and links (as a
 * retransmit may correct them), and a new version only
 * when any of them changed. A prompt's name changes only when the write
 * names one: a retransmit without a name keeps the stored one (unless it is
 * no longer a prompt, which has none).
 */
import { createSqlParams } from "../../db/sql-database.js";
import type { EntryWrite } from "../../model/entry-model.js";
import type { Principal } from "../../model/principal.js";
import type { Trust, TrustState } from "../../model/trust.js";
import type { FoldResult } from "../entry-ports.js";
import { replaceArtifactLinks, storedArtifactLinks } from "./entry-artifact-links.js";
import { replaceImages, storedImageKeys, toImageKeys } from "./entry-images.js";
import { keepVersion } from "./versions-and-tombstones.js";
import { ackColumns, toAck, toTimestampParam, type AckRow, type WriteContext } from "./write-context.js";
import { promptKind, toPromptArgumentsJson } from "../../model/prompt-arguments.js";
import { promptNameTaken } from "../../model/prompt-name.js";
import { guardPromptName } from "./prompt-name-guard.js";

/** The fold's target as locked, with what the write would change in it. */
interface FoldTarget {
  id: string;
  version: number;
  trust_state: TrustState;
  trust_reasons: string[];
  content_changed: boolean;
  images_changed: boolean;
  links_changed: boolean;
  /** The prompt name the entry has once folded. */
  prompt_name: string | null;
  /** Another of the owner's prompts that has that name already. */
  name_holder: string | null;
}

/** Locks entry `id` while it still has the write's content hash and the caller's ownership, and compares it with the write. */
async function lockFoldTarget(
  context: WriteContext,
  principal: Principal,
  id: string,
  write: EntryWrite,
): Promise<FoldTarget | undefined> {
  const params = createSqlParams();
  const tags = params.add(write.tags);
  const metadata = params.add(JSON.stringify(write.metadata));
  const keys = params.add(toImageKeys(write.images));
  const validFrom = `${params.add(toTimestampParam(write.validity.validFrom))}::timestamptz`;
  const validTo = `${params.add(toTimestampParam(write.validity.validTo))}::timestamptz`;
  const kind = `${params.add(write.kind)}::text`;
  const title = `${params.add(write.title ?? null)}::text`;
  const promptArguments = `${params.add(toPromptArgumentsJson(write.promptArguments))}::jsonb`;
  const links = `${params.add(write.artifacts)}::text[]`;
  const promptName =
    write.kind === promptKind ? `coalesce(${params.add(write.promptName ?? null)}::text, e.prompt_name)` : "NULL::text";
  const nameHolder = `(SELECT h.id FROM entries h WHERE h.tenant = e.tenant AND h.owner = e.owner AND h.prompt_name = ${promptName} AND h.id <> e.id LIMIT 1)`;
  const { rows } = await context.tx.query<FoldTarget>(
    `SELECT e.id, e.version, e.trust_state, e.trust_reasons,
           (e.tags IS DISTINCT FROM ${tags}::text[] OR e.metadata IS DISTINCT FROM ${metadata}::jsonb OR ${storedImageKeys} IS DISTINCT FROM ${keys}::text[]
             OR e.valid_from IS DISTINCT FROM ${validFrom} OR e.valid_to IS DISTINCT FROM ${validTo}
             OR e.kind IS DISTINCT FROM ${kind} OR e.title IS DISTINCT FROM ${title}
             OR e.prompt_arguments IS DISTINCT FROM ${promptArguments} OR ${storedArtifactLinks} IS DISTINCT FROM ${links}
             OR e.prompt_name IS DISTINCT FROM ${promptName}) AS content_changed,
           ${promptName} AS prompt_name, ${nameHolder} AS name_holder,
           ${storedImageKeys} IS DISTINCT FROM ${keys}::text[] AS images_changed,
           ${storedArtifactLinks} IS DISTINCT FROM ${links} AS links_changed
         FROM entries e
         WHERE e.id = ${params.add(id)} AND e.content_hash = ${params.add(write.contentHash)} AND e.owner = ${params.add(principal.subject)}
           AND e.tenant = ${params.add(principal.tenant)}
         FOR UPDATE`,
    params.values,
  );
  return rows[0];
}

/**
 * Folds a retransmit into entry `id` (see `EntryWriteScope.fold`): undefined
 * when the entry no longer has the write's content hash or owner.
 */
export async function foldEntry(
  context: WriteContext,
  principal: Principal,
  id: string,
  write: EntryWrite,
  decideTrust: (current: Trust) => Trust,
): Promise<FoldResult | undefined> {
  const { tx } = context;
  // Lock the row first: the replaced version is kept before the update, and nothing may change it in between.
  const current = await lockFoldTarget(context, principal, id, write);
  if (current === undefined) return undefined;
  if (current.name_holder !== null && current.prompt_name !== null)
    throw promptNameTaken(current.prompt_name, current.name_holder);
  const trust = decideTrust({ state: current.trust_state, reasons: current.trust_reasons });
  if (current.content_changed) await keepVersion(tx, current.id, current.version, principal.subject);
  const update = createSqlParams();
  const versionSets = current.content_changed
    ? `, version = e.version + 1, updated_by = ${update.add(principal.subject)}, change_kind = 'fold', restored_from = NULL`
    : "";
  const reviewReset =
    trust.state === current.trust_state ? "" : ", reviewed_by = NULL, reviewed_at = NULL, review_note = NULL";
  const statement = tx.query<AckRow>(
    `UPDATE entries e SET
           tags = ${update.add(write.tags)}::text[],
           metadata = ${update.add(JSON.stringify(write.metadata))}::jsonb,
           content_type = ${update.add(write.contentType)},
           valid_from = ${update.add(toTimestampParam(write.validity.validFrom))}::timestamptz,
           valid_to = ${update.add(toTimestampParam(write.validity.validTo))}::timestamptz,
           kind = ${update.add(write.kind)},
           title = ${update.add(write.title ?? null)}::text,
           prompt_arguments = ${update.add(toPromptArgumentsJson(write.promptArguments))}::jsonb,
           prompt_name = ${update.add(current.prompt_name)}::text,
           trust_state = ${update.add(trust.state)},
           trust_reasons = ${update.add(trust.reasons)}::text[],
           updated_at = now()${versionSets}${reviewReset}
         WHERE e.id = ${update.add(current.id)} AND e.version = ${update.add(current.version)}
         RETURNING ${ackColumns}`,
    update.values,
  );
  const { rows } = await guardPromptName(statement, current.prompt_name);
  const row = rows[0];
  if (row === undefined) throw new Error("a locked row did not match its own version");
  if (current.images_changed) await replaceImages(tx, row.id, write.images);
  if (current.links_changed) await replaceArtifactLinks(tx, principal.tenant, row.id, write.artifacts);
  return { ack: toAck(row, true), versionChanged: current.content_changed };
}
