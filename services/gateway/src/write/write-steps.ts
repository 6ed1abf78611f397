/** The steps the write operations share: pre-checks, commits that may fold or replay, and generation for some entries. */
import { isContextHubError } from "@context-hub/common";
import type { Generated } from "../clients/generation-client.js";
import type { WriteStoreClient } from "../clients/write-store-client.js";
import type { Idempotency } from "../idempotency.js";
import type { Principal } from "../principal.js";
import type { Generate } from "./generation.js";
import { timeStage } from "./stage-timing.js";
import type { NewEntryInput, WriteAck } from "../write-types.js";

/** What every write operation works with. */
export interface WriteDeps {
  store: WriteStoreClient;
  generate: Generate;
}

export const isDuplicateVanished = (error: unknown) => isContextHubError(error) && error.code === "DUPLICATE_VANISHED";

/** Commits one entry, timed as the commit stage. */
export function commit(
  deps: WriteDeps,
  principal: Principal,
  entry: NewEntryInput,
  generated: Generated | undefined,
  idempotency: Idempotency | undefined,
): Promise<WriteAck> {
  return timeStage("commit", () => deps.store.commit(principal, entry, generated, idempotency));
}

/**
 * The caller's likely retransmits among `entries`: for each, the id of the
 * entry it would fold into, or "" (one joined store call for them all).
 */
export function findDuplicates(
  deps: WriteDeps,
  principal: Principal,
  entries: readonly NewEntryInput[],
): Promise<string[]> {
  return timeStage("dedup_check", () =>
    Promise.all(entries.map((entry) => deps.store.findDuplicate(principal, entry))),
  );
}

/**
 * Commits `entry` without generation: the store answers an idempotent
 * replay with its first result, or folds the entry into the duplicate its
 * pre-check found. Undefined when there is neither any more (the record
 * expired, the duplicate was deleted or changed): the store stored nothing,
 * and the entry must be generated for and inserted after all.
 */
export async function commitWithoutGeneration(
  deps: WriteDeps,
  principal: Principal,
  entry: NewEntryInput,
  idempotency: Idempotency | undefined,
): Promise<WriteAck | undefined> {
  try {
    return await commit(deps, principal, entry, undefined, idempotency);
  } catch (error) {
    if (isDuplicateVanished(error)) return undefined;
    throw error;
  }
}

/** Folds `entry` into the entry it likely retransmits, if the pre-check finds one and it is still there; else undefined. */
export async function foldIntoDuplicate(
  deps: WriteDeps,
  principal: Principal,
  entry: NewEntryInput,
  idempotency: Idempotency | undefined,
): Promise<WriteAck | undefined> {
  const [duplicateOf] = await findDuplicates(deps, principal, [entry]);
  return duplicateOf === "" ? undefined : commitWithoutGeneration(deps, principal, entry, idempotency);
}

/**
 * Generation for the entries `wanted` picks, in one batch: each entry's
 * generated data, or undefined for an entry not picked.
 */
export async function generateFor(
  deps: WriteDeps,
  entries: readonly NewEntryInput[],
  wanted: (index: number) => boolean,
): Promise<(Generated | undefined)[]> {
  const picked = entries.flatMap((_, index) => (wanted(index) ? [index] : []));
  const generated = await deps.generate(picked.map((index) => entries[index]!));
  const byEntry: (Generated | undefined)[] = entries.map(() => undefined);
  picked.forEach((index, position) => (byEntry[index] = generated[position]));
  return byEntry;
}
