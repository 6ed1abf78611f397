/**
 * Changing and deleting stored entries: how an id is resolved, which caller
 * may change what, and the compare-and-set on versions. Each function runs
 * inside one transaction's scope. No transport or SQL here.
 */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { EntryAck, EntryChange, ScreenedChange } from "../model/entry-model.js";
import type { EntryChangeWrite, EntryRepository, EntryWriteScope, KeptVersion } from "./entry-ports.js";
import type { LockedEntry } from "../model/entry-model.js";
import type { IdQuery } from "../model/id-query.js";
import { toItemError, type ItemResult } from "../model/items.js";
import { isAdmin, type Principal } from "../model/principal.js";
import { trustAfterChange } from "../model/trust.js";
import { checkPromptShape, isSamePromptArguments, promptKind, type PromptArgument } from "../model/prompt-arguments.js";
import { changedArtifactLinks } from "../model/artifact-links.js";
import { checkPromptNameShape } from "../model/prompt-name.js";
import { changedFields, changedPromptName, isSameValidity, rescreen } from "./entry-change-fields.js";

/** What a DeleteEntries call deletes. */
export type DeleteTarget = { kind: "ids"; queries: IdQuery[] } | { kind: "thread"; threadId: string };

/** An id as the caller wrote it and the entry it names. */
export interface ResolvedId {
  input: string;
  id: string;
}

/** How many visible matches of an ambiguous prefix the error lists. */
export const ambiguousCandidatesShown = 5;

/** AMBIGUOUS_ID_PREFIX for a prefix matching several entries the caller may see (never more than that: hidden entries make nothing ambiguous). */
export function ambiguousPrefix(query: IdQuery, candidates: readonly string[]): ContextHubError {
  return new ContextHubError(
    "AMBIGUOUS_ID_PREFIX",
    `id prefix ${JSON.stringify(query.input)} matches more than one entry`,
    {
      remedy: "give more characters of the id, or the full id",
      details: { prefix: query.input, candidates },
    },
  );
}

/**
 * ENTRY_NOT_FOUND for an id that matches nothing the caller may see. The
 * text depends only on what the caller typed: an entry the caller may not
 * see and one that never existed are reported identically (invariant I-2).
 */
export function entryNotFound(input: string): ContextHubError {
  return new ContextHubError("ENTRY_NOT_FOUND", `no entry matches id ${JSON.stringify(input)}`, {
    details: { id: input },
  });
}

/** PERMISSION_DENIED for an entry the caller may read but not change. */
function notWritable(id: string): ContextHubError {
  return new ContextHubError("PERMISSION_DENIED", `you may read entry ${id} but not change it`, {
    remedy: "ask its owner for a write grant (it must also not be private), or an admin to make the change",
  });
}

function ownerOnly(id: string, what: string): ContextHubError {
  return new ContextHubError("PERMISSION_DENIED", `only the owner of entry ${id} or a tenant admin may ${what}`);
}

/** PERMISSION_DENIED unless the caller owns the entry or administers its tenant. */
export function requireOwner(caller: Principal, entry: LockedEntry, what: string): void {
  if (entry.owner !== caller.subject && !isAdmin(caller)) throw ownerOnly(entry.id, what);
}

/**
 * The one entry `query` names among those the caller may see. ENTRY_NOT_FOUND
 * when there is none, AMBIGUOUS_ID_PREFIX (naming only visible candidates)
 * when there are several.
 */
export async function resolveOne(
  executor: Pick<EntryWriteScope, "resolveIds">,
  caller: Principal,
  query: IdQuery,
): Promise<string> {
  const [matches = []] = await executor.resolveIds(caller, [query], ambiguousCandidatesShown);
  if (matches.length > 1) throw ambiguousPrefix(query, matches);
  const [id] = matches;
  if (id === undefined) throw entryNotFound(query.input);
  return id;
}

/** Resolves every query at once; atomic calls fail on the first that does not resolve, others get per-item failures. */
export async function resolveAll(
  executor: Pick<EntryWriteScope | EntryRepository, "resolveIds">,
  caller: Principal,
  queries: readonly IdQuery[],
  atomic: boolean,
): Promise<ItemResult<ResolvedId>[]> {
  const matches = await executor.resolveIds(caller, queries, ambiguousCandidatesShown);
  return queries.map((query, index) => {
    const found = matches[index] ?? [];
    const [id] = found;
    const error =
      found.length > 1 ? ambiguousPrefix(query, found) : id === undefined ? entryNotFound(query.input) : undefined;
    if (error === undefined && id !== undefined) return { ok: true, value: { input: query.input, id } };
    const failure = error ?? entryNotFound(query.input);
    if (atomic) throw failure;
    return { ok: false, error: toItemError(failure) };
  });
}

/** Locks the entry the caller may see, or ENTRY_NOT_FOUND (gone meanwhile, or never visible). */
export async function lockVisible(
  scope: EntryWriteScope,
  caller: Principal,
  id: string,
  input: string,
): Promise<LockedEntry> {
  const entry = await scope.lockEntry(caller, id);
  if (entry === undefined) throw entryNotFound(input);
  return entry;
}

function toAck(entry: LockedEntry): EntryAck {
  return {
    id: entry.id,
    version: entry.version,
    contentHash: entry.contentHash,
    deduplicated: false,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    previouslyDeleted: false,
    trust: entry.trust,
  };
}

/**
 * A restore must restore: `version` is an earlier, kept version of the
 * entry, and the content the change leaves (its new text, or the stored
 * one) is that version's text. Returns the valid-time interval, kind, title,
 * prompt arguments, links and prompt name the change leaves: the ones that version had. The store reads them
 * from the kept version itself, so every client restores them; a change
 * that names others is refused rather than half-restoring the version.
 */
async function checkRestore(
  scope: EntryWriteScope,
  entry: LockedEntry,
  change: EntryChange,
  version: number,
): Promise<KeptVersion> {
  if (version >= entry.version)
    throw invalidArgument(
      `${change.field}.restored_from_version must be earlier than the current version ${entry.version} (got ${version})`,
    );
  const kept = await scope.keptVersion(entry.id, version);
  if (kept === undefined) {
    throw invalidArgument(
      `version ${version} of entry ${entry.id} is not kept`,
      "list the kept versions with the entry's history (versions written before history was kept are not)",
    );
  }
  const resultingHash = change.text?.contentHash ?? entry.contentHash;
  if (resultingHash !== kept.contentHash)
    throw invalidArgument(
      `${change.field}.text is not the text of version ${version}: a restore must restore that version's text`,
    );
  if (change.validity !== undefined && !isSameValidity(change.validity, kept.validity)) {
    throw invalidArgument(
      `${change.field}.validity is not the valid-time interval of version ${version}: a restore restores that version's interval`,
      "leave validity out of the restore (the store restores the version's interval), then change the interval with an update",
    );
  }
  const keptTitle = kept.title ?? null;
  if (
    (change.kind !== undefined && change.kind !== kept.kind) ||
    (change.promptName !== undefined && change.promptName !== (kept.promptName ?? null)) ||
    (change.title !== undefined && change.title !== keptTitle) ||
    (change.promptArguments !== undefined && !isSamePromptArguments(change.promptArguments, kept.promptArguments)) ||
    (change.artifacts !== undefined && changedArtifactLinks(change.artifacts, kept.artifacts) !== undefined)
  ) {
    throw invalidArgument(
      `${change.field}: the kind, title, prompt arguments, artifacts or prompt name are not version ${version}'s: a restore restores that version's`,
      "leave kind, title, prompt_arguments, artifacts and prompt_name out of the restore (the store restores the version's), then change them with an update",
    );
  }
  return kept;
}

/**
 * Whether the entry a change leaves is a well-formed prompt (or, if not a
 * prompt, declares no arguments): checked whenever the change touches its
 * kind, text or arguments, against the stored ones it leaves as they are.
 * The stored text is read only when a prompt's arguments or kind change
 * without a new text.
 */
async function checkChangedPrompt(
  scope: EntryWriteScope,
  entry: LockedEntry,
  change: ScreenedChange,
  kind: string,
  promptArguments: PromptArgument[] | undefined,
): Promise<void> {
  const touched = kind !== entry.kind || promptArguments !== undefined || change.text !== undefined;
  if (!touched) return;
  const declared = promptArguments ?? entry.promptArguments;
  const needsText = kind === promptKind;
  const text = !needsText ? "" : (change.text?.text ?? (await scope.storedText(entry.id)));
  checkPromptShape(
    { kind, text, promptArguments: declared },
    { kind: `${change.field}.kind`, text: `${change.field}.text`, promptArguments: `${change.field}.prompt_arguments` },
  );
}

/**
 * Applies one update in `scope`'s transaction:
 * 1. resolve the id among entries the caller may see, and lock the row;
 * 2. the caller must be allowed to change it (the write predicate on the
 *    locked row), and to change its visibility or prompt name only as owner or admin;
 * 3. `expected_version`, when given, must be the stored version
 *    (VERSION_CONFLICT otherwise, naming the current one);
 * 4. a text that differs from the stored one needs generation output for it;
 * 5. a restore (`restoredFrom`) must leave exactly the restored version's
 *    text, and brings back that version's valid-time interval;
 * 6. only what differs is written, with version + 1, as a compare-and-set on
 *    the locked version that re-checks write access; the replaced version is
 *    kept in the entry's history and the trust state follows the change
 *    (see `trustAfterChange`). An update that changes nothing succeeds
 *    without a new version. The audit record goes with it.
 */
export async function updateEntry(
  scope: EntryWriteScope,
  caller: Principal,
  change: ScreenedChange,
): Promise<EntryAck> {
  const id = await resolveOne(scope, caller, change.query);
  const entry = await lockVisible(scope, caller, id, change.query.input);
  if (!entry.writable) throw notWritable(entry.id);
  const visibility =
    change.visibility !== undefined && change.visibility !== entry.visibility ? change.visibility : undefined;
  if (visibility !== undefined) requireOwner(caller, entry, "change its visibility");
  if (change.expectedVersion !== undefined && change.expectedVersion !== entry.version) {
    throw new ContextHubError(
      "VERSION_CONFLICT",
      `entry ${entry.id} is at version ${entry.version}, not the expected ${change.expectedVersion}`,
      {
        remedy: `retry with expected_version ${entry.version}`,
        details: { id: entry.id, current_version: entry.version },
      },
    );
  }
  const textChanges = change.text !== undefined && change.text.contentHash !== entry.contentHash;
  if (textChanges && change.generated === undefined) {
    throw invalidArgument(
      `${change.field}.generated is required: the text changes, so it needs embeddings and summaries generated for the new text`,
    );
  }
  // A restore brings back the interval, kind and title the restored version had, checked and read in this transaction.
  const restored =
    change.restoredFrom === undefined ? undefined : await checkRestore(scope, entry, change, change.restoredFrom);
  const validity = restored === undefined ? change.validity : restored.validity;
  const kind = restored === undefined ? change.kind : restored.kind;
  const title = restored === undefined ? change.title : (restored.title ?? null);
  const promptArguments = restored === undefined ? change.promptArguments : restored.promptArguments;
  const artifacts = restored === undefined ? change.artifacts : restored.artifacts;
  const promptName = restored === undefined ? change.promptName : (restored.promptName ?? null);
  // A prompt's name is its owner's to choose, as its visibility is: a writer with a grant may change the rest.
  if (changedPromptName(promptName, entry) !== undefined) requireOwner(caller, entry, "change its prompt_name");
  await checkChangedPrompt(scope, entry, change, kind ?? entry.kind, promptArguments);
  checkPromptNameShape(
    { kind: kind ?? entry.kind, promptName: promptName === undefined ? entry.promptName : (promptName ?? undefined) },
    { kind: `${change.field}.kind`, promptName: `${change.field}.prompt_name` },
    promptName === undefined && kind !== undefined && kind !== entry.kind,
  );
  const write = changedFields(entry, change, {
    textChanges,
    visibility,
    validity,
    kind,
    title,
    promptArguments,
    artifacts,
    promptName,
  });
  if (Object.values(write).every((value) => value === undefined)) return toAck(entry);
  const trust = trustAfterChange(
    entry.trust,
    entry.source,
    caller,
    rescreen(write, change.screens),
    write.text !== undefined,
  );
  const ack = await scope.update(caller, entry, write, {
    trust,
    changeKind: change.restoredFrom === undefined ? "update" : "restore",
    restoredFrom: change.restoredFrom,
  });
  // The row is locked, so its version cannot have moved: no match means write access was withdrawn meanwhile.
  if (ack === undefined) throw notWritable(entry.id);
  recordUpdate(scope, caller, entry, change, write, ack);
  return ack;
}

/** Audits an update or restore that wrote a new version. */
function recordUpdate(
  scope: EntryWriteScope,
  caller: Principal,
  entry: LockedEntry,
  change: ScreenedChange,
  write: EntryChangeWrite,
  ack: EntryAck,
): void {
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: change.restoredFrom === undefined ? "entry.update" : "entry.restore",
    outcome: "ok",
    targetIds: [entry.id],
    beforeHashes: [entry.contentHash],
    afterHashes: [ack.contentHash],
    details: {
      previous_version: entry.version,
      version: ack.version,
      fields: Object.entries(write).flatMap(([field, value]) => (value === undefined ? [] : [field])),
      trust_state: ack.trust.state,
      ...(change.restoredFrom === undefined ? {} : { restored_from: change.restoredFrom }),
    },
  });
}

/**
 * Deletes one resolved entry in `scope`'s transaction, if the caller may
 * change it (checked on the locked row, and again by the DELETE), leaving a
 * tombstone with `reason` and the audit record.
 */
export async function deleteEntry(
  scope: EntryWriteScope,
  caller: Principal,
  { id, input }: ResolvedId,
  reason: string,
): Promise<void> {
  const entry = await lockVisible(scope, caller, id, input);
  if (!entry.writable || !(await scope.delete(caller, entry.id, reason))) throw notWritable(entry.id);
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "entry.delete",
    outcome: "ok",
    targetIds: [entry.id],
    beforeHashes: [entry.contentHash],
    afterHashes: [],
    details: { thread_id: entry.threadId, version: entry.version, reason },
  });
}
