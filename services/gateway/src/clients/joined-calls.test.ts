import { test } from "node:test";
import assert from "node:assert/strict";
import { setImmediate as nextTurn } from "node:timers/promises";
import { ContextHubError } from "@context-hub/common";
import { joinCalls, type BatchCall } from "./joined-calls.js";

/** A batch call that records what it was sent and answers each item doubled, or as `answer` decides. */
function recordingCall(answer?: (items: number[], signal: AbortSignal | undefined) => Promise<number[]>) {
  const calls: { items: number[]; signal: AbortSignal | undefined }[] = [];
  const send: BatchCall<number, number> = async (items, signal) => {
    calls.push({ items, signal });
    return answer === undefined ? items.map((item) => item * 2) : answer(items, signal);
  };
  return { calls, send };
}

const wide = { maxItems: 100, maxWeight: 1_000_000 };

test("calls made in one turn travel as one call, and each caller gets its own items' results", async () => {
  const { calls, send } = recordingCall();
  const call = joinCalls(send, wide, () => 1);
  const answers = await Promise.all([call([1, 2]), call([3]), call([4, 5, 6])]);
  assert.deepEqual(answers, [[2, 4], [6], [8, 10, 12]]);
  assert.deepEqual(
    calls.map((sent) => sent.items),
    [[1, 2, 3, 4, 5, 6]],
  );
});

test("calls made in different turns are not held back for each other", async () => {
  const { calls, send } = recordingCall();
  const call = joinCalls(send, wide, () => 1);
  assert.deepEqual(await call([1]), [2]);
  assert.deepEqual(await call([2]), [4]);
  assert.deepEqual(
    calls.map((sent) => sent.items),
    [[1], [2]],
  );
});

test("a joined call stays within the item and weight limits, and a caller is never split", async () => {
  const { calls, send } = recordingCall();
  const call = joinCalls(send, { maxItems: 3, maxWeight: 10 }, (item) => item);
  const answers = await Promise.all([
    call([1]),
    call([1]),
    call([1]),
    call([1]),
    call([4]),
    call([4]),
    call([4]),
    call([20]),
    call([1, 1, 1, 1, 1]),
  ]);
  assert.deepEqual(answers, [[2], [2], [2], [2], [8], [8], [8], [40], [2, 2, 2, 2, 2]]);
  assert.deepEqual(
    calls.map((sent) => sent.items),
    // Three items at most, weight 10 at most, in the callers' order; [20] and the five ones exceed a limit alone and go alone, whole.
    [[1, 1, 1], [1, 4, 4], [4], [20], [1, 1, 1, 1, 1]],
  );
});

test("an item's failure is sent again caller by caller, so only its own caller fails", async () => {
  const itemFailures = [
    { code: "INVALID_ARGUMENT", details: {} },
    { code: "PROVIDER_ERROR", details: { status: 400 } },
    { code: "PROVIDER_ERROR", details: { status: 413 } },
  ] as const;
  for (const { code, details } of itemFailures) {
    const { calls, send } = recordingCall(async (items) => {
      const bad = items.indexOf(13);
      if (bad >= 0) throw new ContextHubError(code, `items[${bad}] is unlucky`, { details });
      return items.map((item) => item * 2);
    });
    const call = joinCalls(send, wide, () => 1);
    const [first, second, third] = await Promise.allSettled([call([1]), call([5, 13]), call([7])]);
    assert.deepEqual(first, { status: "fulfilled", value: [2] });
    assert.equal(second.status, "rejected");
    assert.equal((second as PromiseRejectedResult).reason.code, code);
    assert.match(
      (second as PromiseRejectedResult).reason.message,
      /items\[1\] is unlucky/,
      "the error names the item within the caller's own call",
    );
    assert.deepEqual(third, { status: "fulfilled", value: [14] });
    assert.deepEqual(
      calls.map((sent) => sent.items),
      [[1, 5, 13, 7], [1], [5, 13], [7]],
    );
  }
});

test("a failure of the call itself is every caller's, without sending again", async () => {
  const callFailures = [
    new ContextHubError("EMBEDDER_UNAVAILABLE", "the embedder service is unavailable"),
    // The provider rate-limits and asked for a wait: sending each caller's texts again at once would only add load.
    new ContextHubError("PROVIDER_ERROR", "openai embeddings failed: HTTP 429", {
      details: { status: 429, retry_after_ms: 60_000 },
    }),
    new ContextHubError("PROVIDER_ERROR", "openai embeddings failed: HTTP 503 after 3 attempts", {
      details: { status: 503 },
    }),
    new ContextHubError("PROVIDER_ERROR", "openai embeddings failed: malformed response: 1 vectors for 2 texts", {
      details: {},
    }),
  ];
  for (const failure of callFailures) {
    const { calls, send } = recordingCall(async () => {
      throw failure;
    });
    const call = joinCalls(send, wide, () => 1);
    const outcomes = await Promise.allSettled([call([1]), call([2])]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status === "rejected" && outcome.reason),
      [failure, failure],
    );
    assert.equal(calls.length, 1, failure.message);
  }
});

test("a reply with the wrong number of results fails every caller", async () => {
  const { send } = recordingCall(async (items) => items.slice(1));
  const call = joinCalls(send, wide, () => 1);
  const outcomes = await Promise.allSettled([call([1]), call([2])]);
  for (const outcome of outcomes) {
    assert.equal(outcome.status, "rejected");
    assert.match((outcome as PromiseRejectedResult).reason.message, /returned 1 results for 2 items/);
  }
});

/** A recording call whose answers wait until `release()`. */
function heldCall() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const recorded = recordingCall(async (items) => {
    await released;
    return items.map((item) => item * 2);
  });
  return { ...recorded, release };
}

test("a caller that aborts is answered at once; the call is cancelled only when every caller has gone", async () => {
  const { calls, send, release } = heldCall();
  const call = joinCalls(send, wide, () => 1);
  const first = new AbortController();
  const second = new AbortController();
  const answers = [call([1], first.signal), call([2], second.signal)];
  await nextTurn();
  assert.equal(calls.length, 1);
  const joinedSignal = calls[0]!.signal!;
  first.abort();
  await assert.rejects(answers[0]!, { name: "AbortError" });
  assert.equal(joinedSignal.aborted, false, "the other caller still wants the answer");
  second.abort();
  await assert.rejects(answers[1]!, { name: "AbortError" });
  assert.equal(joinedSignal.aborted, true, "nobody wants it any more");
  release();
});

test("a caller without a signal keeps the joined call from being cancelled", async () => {
  const { calls, send, release } = heldCall();
  const call = joinCalls(send, wide, () => 1);
  const leaving = new AbortController();
  const answers = [call([1], leaving.signal), call([2])];
  await nextTurn();
  assert.equal(calls[0]!.signal, undefined);
  leaving.abort();
  await assert.rejects(answers[0]!, { name: "AbortError" });
  release();
  assert.deepEqual(await answers[1], [4]);
});

test("a caller that has already aborted sends nothing", async () => {
  const { calls, send } = recordingCall();
  const call = joinCalls(send, wide, () => 1);
  await assert.rejects(call([1], AbortSignal.abort()), { name: "AbortError" });
  const gone = new AbortController();
  const leaving = call([2], gone.signal);
  gone.abort();
  await assert.rejects(leaving, { name: "AbortError" });
  await nextTurn();
  assert.equal(calls.length, 0, "a caller gone before the end of its turn is left out of the call");
  assert.deepEqual(await call([]), [], "no items, no call");
  assert.equal(calls.length, 0);
});
