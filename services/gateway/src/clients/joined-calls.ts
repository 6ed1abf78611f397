import { ContextHubError, isContextHubError } from "@context-hub/common";

/** How far a joined call may grow. A caller's items are never split, so one caller alone may pass both bounds. */
export interface JoinLimits {
  /** Most items in one call (the worker's own limit per call). */
  maxItems: number;
  /** Most weight (characters of text, say) in one call. */
  maxWeight: number;
}

/** Sends `items` in one call and answers one result per item, in order. */
export type BatchCall<Item, Result> = (items: Item[], signal: AbortSignal | undefined) => Promise<Result[]>;

/** Asks for `items`' results; they may travel in one call with other callers' items. */
export type JoinedCall<Item, Result> = (items: Item[], signal?: AbortSignal) => Promise<Result[]>;

interface Caller<Item, Result> {
  items: Item[];
  signal: AbortSignal | undefined;
  settled: boolean;
  resolve(results: Result[]): void;
  reject(error: unknown): void;
  /** Removes the caller's abort listener once it is answered. */
  forget(): void;
}

/** Provider answers refusing what a request carried (too long for the model, against a policy): one text may cause them. */
const refusedContentStatuses = new Set([400, 413, 422]);

/**
 * Failures that may belong to one item rather than to the call: a worker's
 * check of an item, or a provider refusing the content it was sent. A joined
 * call failing so is sent again caller by caller. A provider that is down,
 * rate-limits (and may have asked for a wait), or answers garbage fails the
 * whole call, and sending again at once would only add load.
 */
function mayBelongToOneItem(error: unknown): boolean {
  if (!isContextHubError(error)) return false;
  if (error.code === "INVALID_ARGUMENT") return true;
  return error.code === "PROVIDER_ERROR" && refusedContentStatuses.has(Number(error.details.status));
}

/** Settles a caller once: with its own slice of the results, or with the error. */
function settle<Item, Result>(caller: Caller<Item, Result>, outcome: { results: Result[] } | { error: unknown }): void {
  if (caller.settled) return;
  caller.settled = true;
  caller.forget();
  if ("results" in outcome) caller.resolve(outcome.results);
  else caller.reject(outcome.error);
}

/**
 * Sends the items of the callers still waiting in one call and gives each its slice of the results; a failure that
 * may belong to one item is retried caller by caller, any other is every caller's.
 */
async function sendFor<Item, Result>(send: BatchCall<Item, Result>, callers: Caller<Item, Result>[]): Promise<void> {
  const live = callers.filter((caller) => !caller.settled);
  if (live.length === 0) return;
  const items = live.flatMap((caller) => caller.items);
  // Cancelled only once nobody wants the answer; a caller without a signal always does.
  const everyoneGone = new AbortController();
  const watched = live.every((caller) => caller.signal !== undefined);
  const onAbort = () => {
    if (live.every((caller) => caller.settled)) everyoneGone.abort();
  };
  if (watched) for (const caller of live) caller.signal!.addEventListener("abort", onAbort);
  try {
    const results = await send(items, watched ? everyoneGone.signal : undefined);
    if (results.length !== items.length)
      throw new ContextHubError(
        "INTERNAL",
        `a joined call returned ${results.length} results for ${items.length} items`,
      );
    let next = 0;
    for (const caller of live) {
      settle(caller, { results: results.slice(next, next + caller.items.length) });
      next += caller.items.length;
    }
  } catch (error) {
    if (live.length > 1 && mayBelongToOneItem(error)) {
      await Promise.all(live.map((caller) => sendFor(send, [caller])));
      return;
    }
    for (const caller of live) settle(caller, { error });
  } finally {
    if (watched) for (const caller of live) caller.signal!.removeEventListener("abort", onAbort);
  }
}

/** The callers in groups of at most `limits.maxItems` items and `limits.maxWeight` weight each, in their order. */
function groupCallers<Item, Result>(
  callers: Caller<Item, Result>[],
  limits: JoinLimits,
  weigh: (item: Item) => number,
): Caller<Item, Result>[][] {
  const groups: Caller<Item, Result>[][] = [];
  let group: Caller<Item, Result>[] = [];
  let count = 0;
  let weight = 0;
  for (const caller of callers) {
    const callerWeight = caller.items.reduce((sum, item) => sum + weigh(item), 0);
    if (
      group.length > 0 &&
      (count + caller.items.length > limits.maxItems || weight + callerWeight > limits.maxWeight)
    ) {
      groups.push(group);
      group = [];
      count = 0;
      weight = 0;
    }
    group.push(caller);
    count += caller.items.length;
    weight += callerWeight;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * Joins the calls made in one turn of the event loop into one call of
 * `send`. Writes arriving together (several MCP requests read from the
 * network at once) each want their texts embedded and summarised; a worker
 * call per write costs a gRPC exchange on both ends and a provider request
 * each, and one call for all of them costs one. A lone caller is not kept
 * waiting: its call leaves at the end of the turn it was made in.
 *
 * Each caller gets exactly its own items' results. A caller that aborts is
 * answered at once with a cancellation; the joined call is cancelled only
 * when every caller in it has gone. If the joined call fails in a way that
 * may belong to one item (`mayBelongToOneItem`), each caller's items are sent
 * again alone, so that the error names the caller's own item and the other
 * callers are not failed by it; such a caller may then wait for two calls.
 * Any other failure (the worker unreachable, a deadline) is every caller's.
 *
 * The joined call runs in the first caller's request context, so its request
 * id and trace are that caller's.
 */
export function joinCalls<Item, Result>(
  send: BatchCall<Item, Result>,
  limits: JoinLimits,
  weigh: (item: Item) => number,
): JoinedCall<Item, Result> {
  let waiting: Caller<Item, Result>[] = [];

  /** Sends everything waiting, in as few calls as the limits allow, keeping the callers' order. */
  function flush(): void {
    const callers = waiting.filter((caller) => !caller.settled);
    waiting = [];
    for (const group of groupCallers(callers, limits, weigh)) void sendFor(send, group);
  }

  return (items, signal) => {
    if (items.length === 0) return Promise.resolve([]);
    if (signal?.aborted) return Promise.reject(cancelled(signal));
    return new Promise<Result[]>((resolve, reject) => {
      const onAbort = () => settle(caller, { error: cancelled(signal!) });
      const caller: Caller<Item, Result> = {
        items,
        signal,
        settled: false,
        resolve,
        reject,
        forget: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (waiting.length === 0) setImmediate(flush);
      waiting.push(caller);
    });
  };
}

function cancelled(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error("the call was cancelled");
}
