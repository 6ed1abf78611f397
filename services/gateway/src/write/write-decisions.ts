/**
 * How a write proceeds, as one decision table: for each kind of write and
 * each combination of idempotent replay, idempotency key, atomicity and early
 * generation, whether a replay is tried first, when the dedup pre-check runs,
 * which texts are generated for, and what a fold target that vanished before
 * the commit leads to.
 *
 * Every row keeps the architecture's write invariants: all generation an
 * entry needs completes before the store commits it, and a failed mandatory
 * leg stores nothing (I-4); the store commits each call in one transaction,
 * so an unacknowledged write leaves nothing behind (I-5). A commit without
 * generation is only ever a fold into an existing entry or a replay of a
 * stored result, which the store refuses with DUPLICATE_VANISHED when that
 * entry or result is gone; every row then generates before committing again.
 */

export type WriteOperation = "store" | "storeBatch" | "update";

/** What is known about a write before it starts. */
export interface WriteSituation {
  operation: WriteOperation;
  /** The idempotency key was used before with the same arguments: the store holds the first result. */
  replay: boolean;
  /** The call carries an idempotency key (a replay always does). */
  keyed: boolean;
  /** All items are stored or none (a single store always is). */
  atomic: boolean;
  /** Generation may start before the dedup pre-check answers (see clients/early-generation.ts). */
  earlyGeneration: boolean;
}

export interface WritePlan {
  /**
   * Commit once without generation first, so the store answers with the
   * first call's result. If the stored result or the entry it folded into
   * is gone (DUPLICATE_VANISHED), the rest of the plan runs as for a new write.
   */
  replayFirst: boolean;
  /**
   * The dedup pre-check: not run, run before generation (a likely
   * retransmit then generates nothing and folds), or run beside generation
   * (a fold cancels the generation still running).
   */
  precheck: "none" | "before-generation" | "beside-generation";
  /**
   * Which texts are generated for: the entries the pre-check found new,
   * every entry (the store folds retransmits itself), only changed texts
   * (updates: an identical text is not sent again), or nothing (an update
   * replay, which the store answers with its first result).
   */
  generate: "new-entries" | "every-entry" | "changed-texts" | "nothing";
  /**
   * A fold target that vanished between the pre-check and the commit: the
   * entry is generated for and committed after all; an atomic batch (which
   * then stored nothing) generates the rest and commits whole again; a
   * non-atomic batch stores the vanished items again in a second call
   * without the key (its outcomes under the key are recorded already).
   * Updates do not fold.
   */
  onVanished: "generate-and-commit" | "regenerate-whole-batch" | "store-vanished-again-unkeyed" | "not-applicable";
}

/** A row's condition on a situation field; "any" when the field does not change the plan. */
type Match<T> = T | "any";

export interface WriteRule {
  when: {
    operation: WriteOperation;
    replay: Match<boolean>;
    keyed: Match<boolean>;
    atomic: Match<boolean>;
    earlyGeneration: Match<boolean>;
  };
  then: WritePlan;
}

const storeAfterCheck = {
  precheck: "before-generation",
  generate: "new-entries",
  onVanished: "generate-and-commit",
} as const;
const storeBesideCheck = {
  precheck: "beside-generation",
  generate: "every-entry",
  onVanished: "generate-and-commit",
} as const;

/**
 * The rules, exactly one per possible situation (a test holds the table to
 * that). A non-atomic keyed batch never pre-checks: its items' outcomes are
 * recorded under the key, so an item whose fold target vanished could not be
 * stored again under it; it generates for every entry and the store folds.
 */
export const writeRules: readonly WriteRule[] = [
  {
    when: { operation: "store", replay: false, keyed: "any", atomic: "any", earlyGeneration: false },
    then: { replayFirst: false, ...storeAfterCheck },
  },
  {
    when: { operation: "store", replay: true, keyed: true, atomic: "any", earlyGeneration: false },
    then: { replayFirst: true, ...storeAfterCheck },
  },
  {
    when: { operation: "store", replay: false, keyed: "any", atomic: "any", earlyGeneration: true },
    then: { replayFirst: false, ...storeBesideCheck },
  },
  {
    when: { operation: "store", replay: true, keyed: true, atomic: "any", earlyGeneration: true },
    then: { replayFirst: true, ...storeBesideCheck },
  },

  {
    when: { operation: "storeBatch", replay: false, keyed: "any", atomic: true, earlyGeneration: false },
    then: {
      replayFirst: false,
      precheck: "before-generation",
      generate: "new-entries",
      onVanished: "regenerate-whole-batch",
    },
  },
  {
    when: { operation: "storeBatch", replay: true, keyed: true, atomic: true, earlyGeneration: false },
    then: {
      replayFirst: true,
      precheck: "before-generation",
      generate: "new-entries",
      onVanished: "regenerate-whole-batch",
    },
  },
  {
    when: { operation: "storeBatch", replay: false, keyed: "any", atomic: true, earlyGeneration: true },
    then: { replayFirst: false, precheck: "none", generate: "every-entry", onVanished: "regenerate-whole-batch" },
  },
  {
    when: { operation: "storeBatch", replay: true, keyed: true, atomic: true, earlyGeneration: true },
    then: { replayFirst: true, precheck: "none", generate: "every-entry", onVanished: "regenerate-whole-batch" },
  },
  {
    when: { operation: "storeBatch", replay: false, keyed: false, atomic: false, earlyGeneration: false },
    then: {
      replayFirst: false,
      precheck: "before-generation",
      generate: "new-entries",
      onVanished: "store-vanished-again-unkeyed",
    },
  },
  {
    when: { operation: "storeBatch", replay: false, keyed: true, atomic: false, earlyGeneration: false },
    then: { replayFirst: false, precheck: "none", generate: "every-entry", onVanished: "store-vanished-again-unkeyed" },
  },
  {
    when: { operation: "storeBatch", replay: true, keyed: true, atomic: false, earlyGeneration: false },
    then: { replayFirst: true, precheck: "none", generate: "every-entry", onVanished: "store-vanished-again-unkeyed" },
  },
  {
    when: { operation: "storeBatch", replay: false, keyed: "any", atomic: false, earlyGeneration: true },
    then: { replayFirst: false, precheck: "none", generate: "every-entry", onVanished: "store-vanished-again-unkeyed" },
  },
  {
    when: { operation: "storeBatch", replay: true, keyed: true, atomic: false, earlyGeneration: true },
    then: { replayFirst: true, precheck: "none", generate: "every-entry", onVanished: "store-vanished-again-unkeyed" },
  },

  {
    when: { operation: "update", replay: false, keyed: "any", atomic: "any", earlyGeneration: "any" },
    then: { replayFirst: false, precheck: "none", generate: "changed-texts", onVanished: "not-applicable" },
  },
  {
    when: { operation: "update", replay: true, keyed: true, atomic: "any", earlyGeneration: "any" },
    then: { replayFirst: false, precheck: "none", generate: "nothing", onVanished: "not-applicable" },
  },
];

const matches = <T>(condition: Match<T>, value: T) => condition === "any" || condition === value;

/** The rules that apply to `situation` (exactly one for every situation that can arise). */
export function rulesFor(situation: WriteSituation): WriteRule[] {
  return writeRules.filter(
    ({ when }) =>
      when.operation === situation.operation &&
      matches(when.replay, situation.replay) &&
      matches(when.keyed, situation.keyed) &&
      matches(when.atomic, situation.atomic) &&
      matches(when.earlyGeneration, situation.earlyGeneration),
  );
}

/** The plan for `situation`; a situation no rule covers (a replay without a key) is a programming error. */
export function decideWrite(situation: WriteSituation): WritePlan {
  const [rule] = rulesFor(situation);
  if (rule === undefined) throw new Error(`no write rule covers ${JSON.stringify(situation)}`);
  return rule.then;
}
