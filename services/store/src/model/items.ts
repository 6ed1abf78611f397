/**
 * How a call of several items runs: all or nothing in one transaction, or
 * item by item with a result per item. No transport or SQL here.
 */
import { type ContextHubError, isContextHubError, type ErrorCode } from "@context-hub/common";

/** Why one item of a non-atomic call failed. */
export interface ItemError {
  code: ErrorCode;
  message: string;
}

export type ItemResult<T> = { ok: true; value: T } | { ok: false; error: ItemError };

/** A transaction scope that can undo part of its work. */
export interface SavepointScope {
  /** Runs `fn` under a savepoint: if it throws, what it wrote is undone, the transaction stays usable and the error is rethrown. */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
}

export interface ItemRunOptions<S extends SavepointScope> {
  /** All or nothing: the first failing item fails the whole call and nothing is kept. */
  atomic: boolean;
  /**
   * The transaction the call already runs in (it carries an idempotency key,
   * whose record must commit with the items). Non-atomic items then run in
   * it, each under a savepoint, instead of in transactions of their own.
   */
  scope: S | undefined;
  transaction<T>(fn: (scope: S) => Promise<T>): Promise<T>;
  /**
   * Runs first in a transaction shared by all items, e.g. to take every lock
   * the items need in one fixed order so two calls cannot deadlock. It must
   * not fail for reasons that belong to a single item.
   */
  prepare?: (scope: S) => Promise<void>;
}

/**
 * The error of a failed item as a caller sees it: code and message, with the
 * remedy (e.g. "retry with expected_version 4") appended.
 */
export function toItemError(error: ContextHubError): ItemError {
  return {
    code: error.code,
    message: error.remedy === undefined ? error.message : `${error.message}; ${error.remedy}`,
  };
}

/** Whether `error` belongs to one item (a domain error) rather than to the whole call (INTERNAL, or anything else). */
export function isItemFailure(error: unknown): error is ContextHubError {
  // INTERNAL (and anything that is not a domain error) is a fault of the store, not of the item: it fails the call.
  return isContextHubError(error) && error.code !== "INTERNAL";
}

/**
 * Checks every item before anything runs. Atomic: the first invalid item
 * fails the call (its error names the item). Non-atomic: an invalid item
 * becomes that item's failure and the rest go ahead.
 */
export function validateItems<I, V>(
  items: readonly I[],
  atomic: boolean,
  validate: (item: I, index: number) => V,
): ItemResult<V>[] {
  return items.map((item, index) => {
    try {
      return { ok: true, value: validate(item, index) };
    } catch (error) {
      if (atomic || !isItemFailure(error)) throw error;
      return { ok: false, error: toItemError(error) };
    }
  });
}

/**
 * Runs each valid item (failed ones stay failed), in order.
 * - atomic: one transaction (or `scope`); the first failure is rethrown and
 *   everything rolls back;
 * - non-atomic without `scope`: each item in its own transaction;
 * - non-atomic with `scope`: each item under a savepoint of it.
 * A non-atomic item's domain error becomes its result; any other error
 * fails the call.
 */
export async function runItems<S extends SavepointScope, V, R>(
  items: readonly ItemResult<V>[],
  options: ItemRunOptions<S>,
  run: (scope: S, item: V, index: number) => Promise<R>,
): Promise<ItemResult<R>[]> {
  const inScope = async (scope: S, guard: (fn: () => Promise<R>) => Promise<R>): Promise<ItemResult<R>[]> => {
    await options.prepare?.(scope);
    const results: ItemResult<R>[] = [];
    for (const [index, item] of items.entries()) {
      if (!item.ok) {
        results.push(item);
        continue;
      }
      results.push(await settle(() => guard(() => run(scope, item.value, index))));
    }
    return results;
  };
  const settle = async (fn: () => Promise<R>): Promise<ItemResult<R>> => {
    if (options.atomic) return { ok: true, value: await fn() };
    try {
      return { ok: true, value: await fn() };
    } catch (error) {
      if (!isItemFailure(error)) throw error;
      return { ok: false, error: toItemError(error) };
    }
  };

  if (options.atomic) {
    return options.scope === undefined
      ? options.transaction((scope) => inScope(scope, (fn) => fn()))
      : inScope(options.scope, (fn) => fn());
  }
  if (options.scope !== undefined) {
    const scope = options.scope;
    return inScope(scope, (fn) => scope.savepoint(fn));
  }
  const results: ItemResult<R>[] = [];
  for (const [index, item] of items.entries()) {
    results.push(item.ok ? await settle(() => options.transaction((scope) => run(scope, item.value, index))) : item);
  }
  return results;
}
