/** Storing many entries in one commit: replay, pre-check, generation and the recovery of vanished fold targets, as the write plan says. */
import type { Generated } from "../clients/generation-client.js";
import type { Idempotency } from "../idempotency.js";
import type { Principal } from "../principal.js";
import { timeStage } from "./stage-timing.js";
import { findDuplicates, generateFor, isDuplicateVanished, type WriteDeps } from "./write-steps.js";
import type { WritePlan } from "./write-decisions.js";
import type { ItemOutcome, NewEntryInput, ResolvedIdempotency, WriteAck } from "../write-types.js";

/** One CommitBatch call, timed as the commit stage; `generated[i]` undefined commits entry i without generation (a fold, or a replay). */
function commitBatch(
  deps: WriteDeps,
  principal: Principal,
  entries: readonly NewEntryInput[],
  generated: readonly (Generated | undefined)[],
  atomic: boolean,
  idempotency: Idempotency | undefined,
): Promise<ItemOutcome<WriteAck>[]> {
  return timeStage("commit", () => deps.store.commitBatch(principal, entries, generated, atomic, idempotency));
}

/** The replay of a batch: the store's first result, or undefined when a fold target it needs vanished (then the batch is written anew). */
async function replayBatch(
  deps: WriteDeps,
  principal: Principal,
  entries: readonly NewEntryInput[],
  atomic: boolean,
  idempotency: Idempotency | undefined,
) {
  try {
    return await commitBatch(
      deps,
      principal,
      entries,
      entries.map(() => undefined),
      atomic,
      idempotency,
    );
  } catch (error) {
    if (!isDuplicateVanished(error)) throw error;
    return undefined;
  }
}

/** An atomic batch refused whole because a fold target vanished (it stored nothing) generates for the retransmits too and commits again. */
async function commitAtomic(
  deps: WriteDeps,
  principal: Principal,
  entries: readonly NewEntryInput[],
  generated: (Generated | undefined)[],
  isRetransmit: (index: number) => boolean,
  idempotency: Idempotency | undefined,
): Promise<ItemOutcome<WriteAck>[]> {
  try {
    return await commitBatch(deps, principal, entries, generated, true, idempotency);
  } catch (error) {
    if (!isDuplicateVanished(error)) throw error;
    const rest = await generateFor(deps, entries, isRetransmit);
    return commitBatch(
      deps,
      principal,
      entries,
      generated.map((done, index) => done ?? rest[index]),
      true,
      idempotency,
    );
  }
}

/** A non-atomic batch's items whose fold target vanished are generated for and stored in a second call, without the key. */
async function commitEach(
  deps: WriteDeps,
  principal: Principal,
  entries: readonly NewEntryInput[],
  generated: (Generated | undefined)[],
  isRetransmit: (index: number) => boolean,
  idempotency: Idempotency | undefined,
): Promise<ItemOutcome<WriteAck>[]> {
  const results = await commitBatch(deps, principal, entries, generated, false, idempotency);
  const vanished = results.flatMap((result, index) =>
    !result.ok && result.error.code === "DUPLICATE_VANISHED" && isRetransmit(index) ? [index] : [],
  );
  if (vanished.length === 0) return results;
  const again = vanished.map((index) => entries[index]!);
  const stored = await commitBatch(deps, principal, again, await deps.generate(again), false, undefined);
  vanished.forEach((index, position) => (results[index] = stored[position]!));
  return results;
}

/**
 * Stores many entries, embedding all their chunks in one batch. With a
 * pre-check, entries that are likely retransmits generate nothing and the
 * store folds them; how a vanished fold target is recovered is the plan's
 * `onVanished`.
 */
export async function storeBatch(
  deps: WriteDeps,
  plan: WritePlan,
  principal: Principal,
  entries: NewEntryInput[],
  atomic: boolean,
  idempotency: ResolvedIdempotency | undefined,
): Promise<ItemOutcome<WriteAck>[]> {
  if (plan.replayFirst) {
    const replayed = await replayBatch(deps, principal, entries, atomic, idempotency);
    if (replayed !== undefined) return replayed;
  }
  const duplicates = plan.precheck === "none" ? entries.map(() => "") : await findDuplicates(deps, principal, entries);
  const isRetransmit = (index: number) => duplicates[index] !== "";
  const generated = await generateFor(
    deps,
    entries,
    (index) => plan.generate === "every-entry" || !isRetransmit(index),
  );
  return plan.onVanished === "regenerate-whole-batch"
    ? commitAtomic(deps, principal, entries, generated, isRetransmit, idempotency)
    : commitEach(deps, principal, entries, generated, isRetransmit, idempotency);
}
