/**
 * Idempotency keys: a mutation carrying a key runs at most once per principal
 * and key. Its response is recorded with the key in the mutation's own
 * transaction; a retry with the same arguments replays that response and
 * writes nothing, and a reuse with other arguments is refused. A record
 * lasts for the expiry window (`STORE_IDEMPOTENCY_TTL_SECONDS`, 24 hours by
 * default): after it the key is new again, and idempotency-expiry.ts deletes
 * the record. No transport or SQL here: the response arrives already
 * serialised by the transport, and persistence sits behind
 * `IdempotencyStatements`.
 */
import { type ContextHubError, invalidArgument } from "@context-hub/common";
import type { IdempotencyInput, IdempotencyRequest } from "../model/idempotency-request.js";
import type { Principal } from "../model/principal.js";

/** The mutations that accept an idempotency key; recorded with the key, so a key cannot be replayed into another RPC. */
export type MutationName =
  | "Commit"
  | "CommitBatch"
  | "UpdateEntries"
  | "DeleteEntries"
  | "Share"
  | "Unshare"
  | "PutMemory"
  | "DeleteMemory"
  | "CreateHandoff"
  | "StartSession"
  | "CreateCollection"
  | "UpdateCollection"
  | "DeleteCollection"
  | "AddToCollection"
  | "RemoveFromCollection"
  | "ReorderCollection"
  | "PublishResource"
  | "UnpublishResource";

/** A validated key, bound to the mutation it was sent with. */
export interface IdempotencyKey {
  key: string;
  fingerprint: string;
  rpc: MutationName;
}

/** What a first use of a key left behind. */
export interface RecordedCall {
  rpc: string;
  fingerprint: string;
  /** The serialised response the first call returned. */
  response: Uint8Array;
}

/** `new`: never used; `replay`: used with these arguments; `conflict`: used with others. */
export type IdempotencyState = "new" | "replay" | "conflict";

/** A mutation's result, or (for a retry) the response the first call recorded. */
export type Outcome<T> = { replayed: false; result: T } | { replayed: true; response: Uint8Array };

/** The statements behind idempotency keys, all inside the mutation's transaction. */
export interface IdempotencyStatements {
  /** Holds the key's lock until the transaction ends: concurrent first uses of one key queue here. */
  lock(principal: Principal, key: string): Promise<void>;
  /** The key's record, unless it was made before `notBefore` (expired: as good as none). */
  find(principal: Principal, key: string, notBefore: Date): Promise<RecordedCall | undefined>;
  /** Records the first use of `key` at `at`, replacing an expired record of it (made before `notBefore`). */
  record(principal: Principal, key: IdempotencyKey, response: Uint8Array, at: Date, notBefore: Date): Promise<void>;
}

/** What the runner needs from a repository: a read outside transactions and a transaction whose scope holds the key statements. */
export interface IdempotentRepository<S extends { idempotency: IdempotencyStatements }> {
  /** The key's record, unless it was made before `notBefore`. */
  findCall(principal: Principal, key: string, notBefore: Date): Promise<RecordedCall | undefined>;
  transaction<T>(fn: (scope: S) => Promise<T>): Promise<T>;
}

/** Runs mutations exactly once per principal and idempotency key (see `createIdempotentRunner`). */
export interface IdempotentRunner<S> {
  /** Where `key` stands for `caller`, without writing anything. */
  check(caller: Principal, key: IdempotencyInput | undefined): Promise<IdempotencyState>;
  run<V, T>(
    caller: Principal,
    rpc: MutationName,
    idempotency: IdempotencyRequest<T> | undefined,
    validate: () => V | Promise<V>,
    execute: (validated: V, scope: S | undefined) => Promise<T>,
  ): Promise<Outcome<T>>;
}

export const keyLimits = { key: 200, fingerprint: 256 } as const;

/** How long a key's record holds, and the clock it is measured by. */
export interface IdempotencyExpiry {
  /** How long after its first use a key replays; after that it is new again. */
  ttlMs: number;
  /** The current time; replaced in tests. */
  now: () => Date;
}

/** 24 hours on the system clock: the default window (`STORE_IDEMPOTENCY_TTL_SECONDS`). */
export const defaultIdempotencyExpiry: IdempotencyExpiry = { ttlMs: 24 * 60 * 60 * 1000, now: () => new Date() };

function validateKeyShape(input: IdempotencyInput): IdempotencyInput {
  if (input.key.length < 1 || input.key.length > keyLimits.key) {
    throw invalidArgument(`idempotency.key must be 1 to ${keyLimits.key} characters (got ${input.key.length})`);
  }
  if (input.fingerprint.length < 1 || input.fingerprint.length > keyLimits.fingerprint) {
    throw invalidArgument(
      `idempotency.fingerprint must be 1 to ${keyLimits.fingerprint} characters (got ${input.fingerprint.length})`,
    );
  }
  if (input.key.includes("\u0000") || input.fingerprint.includes("\u0000"))
    throw invalidArgument("idempotency.key and idempotency.fingerprint must not contain NUL characters");
  return input;
}

/**
 * Checks an idempotency key (absent means none) and binds it to the mutation
 * it came with: a key of 1 to 200 characters and a fingerprint of 1 to 256,
 * neither holding NUL.
 */
export function validateIdempotency(
  input: IdempotencyInput | undefined,
  rpc: MutationName,
): IdempotencyKey | undefined {
  if (input === undefined) return undefined;
  const { key, fingerprint } = validateKeyShape(input);
  return { key, fingerprint, rpc };
}

/**
 * Where a key stands. `rpc` is the mutation about to run; CheckIdempotency
 * does not know it and compares fingerprints only.
 */
export function idempotencyStateOf(
  recorded: RecordedCall | undefined,
  fingerprint: string,
  rpc: MutationName | undefined,
): IdempotencyState {
  if (recorded === undefined) return "new";
  return recorded.fingerprint === fingerprint && (rpc === undefined || recorded.rpc === rpc) ? "replay" : "conflict";
}

function keyConflict(key: IdempotencyKey): ContextHubError {
  return invalidArgument(
    `idempotency key ${JSON.stringify(key.key)} was already used with different arguments`,
    "use a new idempotency key for a different call, or repeat the first call's arguments exactly to get its result again",
  );
}

/** The recorded response if `recorded` is a replay of `key`; throws INVALID_ARGUMENT if the key was used with other arguments. */
function replayOf(recorded: RecordedCall | undefined, key: IdempotencyKey): Outcome<never> | undefined {
  const state = idempotencyStateOf(recorded, key.fingerprint, key.rpc);
  if (state === "conflict") throw keyConflict(key);
  return state === "replay" && recorded !== undefined ? { replayed: true, response: recorded.response } : undefined;
}

/**
 * Runs mutations exactly once per principal and idempotency key.
 *
 * `run(caller, rpc, idempotency, validate, execute)`:
 * 1. with a key, looks it up before anything else (a retry need not carry
 *    what only the first call needed, such as generation output): a replay
 *    returns the recorded response, a conflict is INVALID_ARGUMENT;
 * 2. runs `validate` (outside any transaction: bad input opens none, and
 *    slow checks such as the screen of a long text hold none open);
 * 3. without a key, runs `execute(validated, undefined)`, which opens its own
 *    transactions; with one, opens a transaction, takes the key's lock,
 *    looks again (a concurrent first use may have finished meanwhile), runs
 *    `execute(validated, scope)` in that transaction and records the encoded
 *    result with the key before it commits. A failing call records nothing,
 *    so its retry runs afresh.
 *
 * A record older than `expiry.ttlMs` counts as none: the key runs as new and
 * its record is replaced.
 */
export function createIdempotentRunner<S extends { idempotency: IdempotencyStatements }>(
  repository: IdempotentRepository<S>,
  expiry: IdempotencyExpiry = defaultIdempotencyExpiry,
): IdempotentRunner<S> {
  const notBeforeOf = (now: Date) => new Date(now.getTime() - expiry.ttlMs);
  return {
    async check(caller, input) {
      if (input === undefined) throw invalidArgument("idempotency is required: give its key and fingerprint");
      const { key, fingerprint } = validateKeyShape(input);
      return idempotencyStateOf(
        await repository.findCall(caller, key, notBeforeOf(expiry.now())),
        fingerprint,
        undefined,
      );
    },

    async run(caller, rpc, idempotency, validate, execute) {
      const key = validateIdempotency(idempotency, rpc);
      if (idempotency === undefined || key === undefined)
        return { replayed: false, result: await execute(await validate(), undefined) };
      const early = replayOf(await repository.findCall(caller, key.key, notBeforeOf(expiry.now())), key);
      if (early !== undefined) return early;
      const validated = await validate();
      return repository.transaction(async (scope) => {
        await scope.idempotency.lock(caller, key.key);
        // One instant for the look and the record: a record the look ignored as expired is the one the record replaces.
        const now = expiry.now();
        const notBefore = notBeforeOf(now);
        const replay = replayOf(await scope.idempotency.find(caller, key.key, notBefore), key);
        if (replay !== undefined) return replay;
        const result = await execute(validated, scope);
        await scope.idempotency.record(caller, key, idempotency.encode(result), now, notBefore);
        return { replayed: false as const, result };
      });
    },
  };
}
