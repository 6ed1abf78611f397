import { test } from "node:test";
import assert from "node:assert/strict";
import { fitReplyBudget, maxEntryReplyBytes, replyBudgetBytes } from "./entry-fetch.js";

const mib = 1024 * 1024;
const sized = (...sizes: number[]) => sizes.map((sizeBytes, index) => ({ id: `e${index}`, sizeBytes }));

test("entries are returned in order until the next would pass the budget; it and all after it are not returned", () => {
  const { returned, notReturned } = fitReplyBudget(sized(10 * mib, 10 * mib, 10 * mib, 10 * mib, 1), true);
  assert.deepEqual(returned, ["e0", "e1", "e2"]);
  assert.deepEqual(
    notReturned.map((item) => [item.id, item.sizeBytes]),
    [
      ["e3", 10 * mib],
      ["e4", 1],
    ],
  );
  assert.ok(
    notReturned.every((item) => item.reason === "the reply reached its 32 MiB budget; fetch it in another call"),
  );
});

test("exactly the budget fits; a first entry bigger than the budget comes alone", () => {
  assert.deepEqual(fitReplyBudget(sized(replyBudgetBytes - 1, 1), false).returned, ["e0", "e1"]);
  const big = fitReplyBudget(sized(40 * mib, 1), true);
  assert.deepEqual(big.returned, ["e0"]);
  assert.deepEqual(
    big.notReturned.map((item) => item.id),
    ["e1"],
  );
});

test("an entry more than one reply can carry is never returned, says why and what to do, and does not hold up the others", () => {
  const withImages = fitReplyBudget(sized(maxEntryReplyBytes + 1, 5), true);
  assert.deepEqual(withImages.returned, ["e1"]);
  assert.match(
    withImages.notReturned[0]!.reason,
    /^the entry is 60 MiB, more than one reply can carry \(60 MiB\); fetch it without include_images$/,
  );
  assert.match(
    fitReplyBudget(sized(maxEntryReplyBytes + 1), false).notReturned[0]!.reason,
    /read it in parts with read_range$/,
  );
  assert.deepEqual(fitReplyBudget([], true), { returned: [], notReturned: [] });
});
