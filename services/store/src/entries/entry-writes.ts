/**
 * The entry mutations that write new text: commits, batches of commits and
 * updates, each run once per idempotency key, validated and screened before
 * its transaction, with its rows locked up front in one order.
 */
import {
  createIdempotentRunner,
  type IdempotencyExpiry,
  type IdempotentRunner,
  type Outcome,
} from "../idempotency/idempotency.js";
import type {
  CommitBatchRequest,
  CommitItemResult,
  CommitRequest,
  EntryAck,
  UpdateEntriesRequest,
  UpdateItemResult,
} from "../model/entry-model.js";
import { runItems, validateItems } from "../model/items.js";
import type { Principal } from "../model/principal.js";
import type { WriteScreen } from "../screen/write-screen.js";
import { updateEntry } from "./entry-changes.js";
import { commitIn } from "./entry-commit.js";
import type { EntryRepository, EntryWriteScope } from "./entry-ports.js";
import {
  completeItems,
  naming,
  screenChange,
  screenCommit,
  validateCommit,
  type BeforeTransaction,
} from "./entry-screening.js";
import { validateEntryChange, validateItemCount } from "./entry-validation.js";

/** What the entry mutations run with: the repository, its idempotent runner, and the work done before a transaction. */
export interface EntryWriter {
  repository: EntryRepository;
  idempotent: IdempotentRunner<EntryWriteScope>;
  before: BeforeTransaction;
  /** The kinds an entry may have (built-in and configured). */
  kinds: readonly string[];
  /** Runs `fn` in a new transaction. */
  transaction<T>(fn: (scope: EntryWriteScope) => Promise<T>): Promise<T>;
  /** Runs `fn` in the call's transaction when it has one (an idempotency key), else in a new one. */
  within<T>(scope: EntryWriteScope | undefined, fn: (scope: EntryWriteScope) => Promise<T>): Promise<T>;
}

/** The writer over `repository` accepting entries of `kinds`; idempotency keys hold for `expiry` (24 hours by default). */
export function createEntryWriter(
  repository: EntryRepository,
  screen: WriteScreen,
  expiry: IdempotencyExpiry | undefined,
  kinds: readonly string[],
): EntryWriter {
  return {
    kinds,
    repository,
    idempotent: createIdempotentRunner(repository, expiry),
    before: { screen, searchVectorOf: (text) => repository.searchVectorOf(text) },
    transaction: (fn) => repository.transaction(fn),
    within: (scope, fn) => (scope === undefined ? repository.transaction(fn) : fn(scope)),
  };
}

/** One commit for `caller`. */
export function commitEntry(
  writer: EntryWriter,
  caller: Principal,
  request: CommitRequest,
): Promise<Outcome<EntryAck>> {
  return writer.idempotent.run(
    caller,
    "Commit",
    request.idempotency,
    // Everything is checked (and screened) before the transaction opens: bad input stores nothing.
    () => screenCommit(writer.before, validateCommit(request.entry, request.generated, writer.kinds)),
    (commit, scope) => writer.within(scope, (tx) => commitIn(tx, caller, commit)),
  );
}

/** Up to 100 commits for `caller`: all in one transaction (atomic), or each in its own. */
export function commitEntries(
  writer: EntryWriter,
  caller: Principal,
  request: CommitBatchRequest,
): Promise<Outcome<CommitItemResult[]>> {
  return writer.idempotent.run(
    caller,
    "CommitBatch",
    request.idempotency,
    () => {
      validateItemCount(request.entries.length, "entries");
      const valid = validateItems(request.entries, request.atomic, (item, index) =>
        naming(`entries[${index}]`, () => validateCommit(item.entry, item.generated, writer.kinds)),
      );
      return completeItems(
        valid,
        request.atomic,
        (index) => `entries[${index}]`,
        (commit) => screenCommit(writer.before, commit),
      );
    },
    (items, scope) =>
      runItems(
        items,
        {
          atomic: request.atomic,
          scope,
          transaction: writer.transaction,
          // Every thread lock up front, in one order, so two batches over the same threads cannot deadlock.
          prepare: (tx) =>
            tx.lockThreads(
              caller,
              items.flatMap((item) => (item.ok ? [item.value.write.threadId] : [])),
            ),
        },
        (tx, commit) => commitIn(tx, caller, commit),
      ),
  );
}

/** Changes of entries `caller` may change, each under compare-and-set on its version. */
export function updateEntries(
  writer: EntryWriter,
  caller: Principal,
  request: UpdateEntriesRequest,
): Promise<Outcome<UpdateItemResult[]>> {
  return writer.idempotent.run(
    caller,
    "UpdateEntries",
    request.idempotency,
    () => {
      validateItemCount(request.updates.length, "updates");
      const valid = validateItems(request.updates, request.atomic, (update, index) =>
        validateEntryChange(update, `updates[${index}]`, writer.kinds),
      );
      return completeItems(
        valid,
        request.atomic,
        (index) => `updates[${index}]`,
        (change) => screenChange(writer.before, change),
      );
    },
    async (changes, scope) => {
      const results = await runItems(
        changes,
        {
          atomic: request.atomic,
          scope,
          transaction: writer.transaction,
          // Lock every row the call will change up front, in id order, so two calls changing the same entries cannot deadlock.
          prepare: async (tx) => {
            const queries = changes.flatMap((change) => (change.ok ? [change.value.query] : []));
            const resolved = await tx.resolveIds(caller, queries, 1);
            await tx.lockEntries(caller, resolved.flat());
          },
        },
        (tx, change) => updateEntry(tx, caller, change),
      );
      return results.map((result, index) => ({ requestedId: request.updates[index]?.id ?? "", result }));
    },
  );
}
