/** Storing one entry: replay, fold or insert, as the write plan says. */
import type { Principal } from "../principal.js";
import { commit, commitWithoutGeneration, foldIntoDuplicate, type WriteDeps } from "./write-steps.js";
import type { WritePlan } from "./write-decisions.js";
import type { NewEntryInput, ResolvedIdempotency, WriteAck } from "../write-types.js";

/**
 * A new entry's generation started beside its pre-check, so it does not
 * wait for the pre-check's round trip; a likely retransmit folds into its
 * duplicate and the running generation is cancelled.
 */
async function storeGeneratingEarly(
  deps: WriteDeps,
  principal: Principal,
  entry: NewEntryInput,
  idempotency: ResolvedIdempotency | undefined,
): Promise<WriteAck> {
  const cancel = new AbortController();
  let generating = true;
  const generation = deps.generate([entry], cancel.signal);
  // Awaited only if the entry is inserted; until then (or if it never is) a failed leg must not surface as an unhandled rejection.
  generation.then(
    () => (generating = false),
    () => (generating = false),
  );
  try {
    const folded = await foldIntoDuplicate(deps, principal, entry, idempotency);
    if (folded !== undefined) return folded;
    // I-4: a failed mandatory leg throws here, naming the leg, before anything is committed.
    const [generated] = await generation;
    return await commit(deps, principal, entry, generated, idempotency);
  } finally {
    // A fold or a failure leaves the generation unwanted; after an insert the calls have ended and there is nothing to cancel.
    if (generating) cancel.abort();
  }
}

/** The pre-check first: a likely retransmit folds into its duplicate and generates nothing; a new entry generates, then commits. */
async function storeAfterCheck(
  deps: WriteDeps,
  principal: Principal,
  entry: NewEntryInput,
  idempotency: ResolvedIdempotency | undefined,
): Promise<WriteAck> {
  const folded = await foldIntoDuplicate(deps, principal, entry, idempotency);
  if (folded !== undefined) return folded;
  // I-4: a failed mandatory leg throws here, naming the leg, before anything is committed.
  const [generated] = await deps.generate([entry]);
  return commit(deps, principal, entry, generated, idempotency);
}

/**
 * Stores one entry: an idempotent replay commits nothing new and returns
 * the first result; a likely retransmit folds into its duplicate; a new
 * entry is generated for, then committed. A fold target or replay record
 * that vanished makes it a new entry after all.
 */
export async function storeEntry(
  deps: WriteDeps,
  plan: WritePlan,
  principal: Principal,
  entry: NewEntryInput,
  idempotency: ResolvedIdempotency | undefined,
): Promise<WriteAck> {
  if (plan.replayFirst) {
    // The store answers with the first result; if the record expired since it was checked, this is a fold or a new entry after all.
    const replayed = await commitWithoutGeneration(deps, principal, entry, idempotency);
    if (replayed !== undefined) return replayed;
  }
  return plan.precheck === "beside-generation"
    ? storeGeneratingEarly(deps, principal, entry, idempotency)
    : storeAfterCheck(deps, principal, entry, idempotency);
}
