import { test } from "node:test";
import assert from "node:assert/strict";
import { createProgress, runReembedCommand } from "./reembed-command.js";

function sink(isTTY: boolean) {
  const written: string[] = [];
  return { written, sink: { isTTY, write: (text: string) => void written.push(text) } };
}

test("without a terminal, progress is plain lines with done/total, rate and time left, and always a last line", () => {
  const { written, sink: out } = sink(false);
  const progress = createProgress(out, 10, 0);
  progress.advance(4);
  progress.advance(4);
  progress.advance(4); // more than the total (a chunk written meanwhile) never shows above 100 %
  progress.finish();
  assert.equal(written.length, 4);
  assert.match(written[0]!, /^re-embedded 4\/10 chunks \(40%\) {2}[\d.]+ chunks\/s {2}ETA (\d+s|\?)\n$/);
  assert.match(written[3]!, /^re-embedded 10\/10 chunks \(100%\) {2}[\d.]+ chunks\/s {2}ETA 0s\n$/);
});

test("on a terminal, one redrawn bar, at most ten times a second, ended by a newline", () => {
  const { written, sink: out } = sink(true);
  const progress = createProgress(out, 1000, 5_000);
  for (let index = 0; index < 100; index++) progress.advance(5);
  progress.finish();
  assert.ok(written.length <= 3, `redrawn ${written.length} times`);
  assert.match(written.at(-1)!, /^\r\u001b\[2K\[#{15}-{15}\] 500\/1,000 chunks \(50%\) .*\n$/);
});

test("a bad --batch-size is refused before anything is opened", async () => {
  for (const value of ["0", "-3", "1.5", "many", "20000"]) {
    await assert.rejects(runReembedCommand([`--batch-size=${value}`], { STORE_DATA_DIR: "/nonexistent/never-created" }, () => undefined), /--batch-size must be a whole number from 1 to 10000/);
  }
  await assert.rejects(runReembedCommand(["--dry-run"], { STORE_DATA_DIR: "memory://" }, () => undefined), /nothing stored to re-embed/);
});
