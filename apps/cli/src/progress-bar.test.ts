import { test } from "node:test";
import assert from "node:assert/strict";
import { createProgressBar } from "./progress-bar.js";

function sink(isTTY: boolean) {
  const written: string[] = [];
  return { written, sink: { isTTY, write: (text: string) => void written.push(text) } };
}

test("without a terminal, progress is plain lines with done/total, rate and time left, and always a last line", () => {
  const { written, sink: out } = sink(false);
  const progress = createProgressBar(out, "reindexed", 0);
  progress.update({ done: 20, total: 50, written: 0 }); // resumed: 20 written by an earlier run
  progress.update({ done: 30, total: 50, written: 10 });
  progress.update({ done: 60, total: 50, written: 40 }); // more than the total (a chunk written meanwhile) never shows above 100 %
  progress.finish();
  assert.equal(written.length, 4);
  assert.match(written[0]!, /^reindexed 20\/50 chunks \(40%\) {2}[\d.]+ chunks\/s {2}ETA (\d+s|\?)\n$/);
  assert.match(written[2]!, /^reindexed 50\/50 chunks \(100%\) {2}[\d.]+ chunks\/s {2}ETA 0s\n$/);
  assert.match(written[3]!, /^reindexed 50\/50 chunks \(100%\)/);
});

test("on a terminal, one bar redrawn at most ten times a second, ended by a newline", () => {
  const { written, sink: out } = sink(true);
  const progress = createProgressBar(out, "re-embedded", 5_000);
  for (let done = 5; done <= 500; done += 5) progress.update({ done, total: 1000, written: done });
  progress.finish();
  assert.ok(written.length <= 3, `redrawn ${written.length} times`);
  assert.match(written.at(-1)!, /^\r\u001b\[2K\[#{15}-{15}\] 500\/1,000 chunks \(50%\) .*\n$/);
});
