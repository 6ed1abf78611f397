/**
 * No production source file grows past 400 lines: a file that long holds
 * more than one concern, and is split into modules named for what they hold
 * (docs/architecture.md). Production files are every workspace's `src/` but
 * the test workspace's, without tests (`*.test.ts`), test helpers
 * (`src/testing/`) or generated code (`proto/src/gen/`). The files that were
 * longer when the rule came are listed with their length then as a ceiling:
 * a listed file may shrink, never grow, and leaves the list once it is within
 * the limit, so the list only shrinks.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { root, sourceFiles } from "./source-files.js";

/** The most lines a production source file may have. */
const maxLines = 400;

/** Files over the limit when the rule came, each with its length then: it may only shrink. */
const ceilings: ReadonlyMap<string, number> = new Map();

/** The production source files of every workspace but the tests', relative to the repository's root. */
function productionFiles(): string[] {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] };
  return manifest.workspaces
    .filter((workspace) => workspace !== "test")
    .flatMap((workspace) => sourceFiles(workspace))
    .map((file) => relative(root, file))
    .filter((file) => !file.includes("/src/testing/"))
    .sort();
}

/** Lines of a file as `wc -l` counts them. */
function lineCount(file: string): number {
  const text = readFileSync(join(root, file), "utf8");
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** What breaks the rule, given each file's line count: a file over the limit, a listed file grown or no longer over it. */
function sizeProblems(
  lines: ReadonlyMap<string, number>,
  listed: ReadonlyMap<string, number>,
  limit = maxLines,
): string[] {
  const problems: string[] = [];
  for (const [file, count] of lines) {
    const ceiling = listed.get(file);
    if (ceiling === undefined && count > limit)
      problems.push(`${file} has ${count} lines, over ${limit}: split it into modules named for what they hold`);
    else if (ceiling !== undefined && count > ceiling)
      problems.push(`${file} has ${count} lines, past its ceiling of ${ceiling}: it may only shrink`);
  }
  for (const [file, ceiling] of listed) {
    const count = lines.get(file);
    if (count === undefined) problems.push(`${file} is listed (ceiling ${ceiling}) but is gone: take it off the list`);
    else if (count <= limit)
      problems.push(`${file} has ${count} lines, within ${limit}: take it off the list of ceilings`);
  }
  return problems;
}

test(`no production source file is over ${maxLines} lines, the listed ones within their ceilings`, () => {
  const files = productionFiles();
  assert.ok(files.length > 100, `the sources were read (${files.length} files)`);
  const lines = new Map(files.map((file) => [file, lineCount(file)]));
  assert.deepEqual(sizeProblems(lines, ceilings), []);
});

test("the rule catches a file over the limit, a listed file grown, and a listed file that no longer needs its ceiling", () => {
  const lines = new Map([
    ["a.ts", 401],
    ["b.ts", 400],
    ["c.ts", 430],
    ["d.ts", 420],
    ["e.ts", 390],
  ]);
  const listed = new Map([
    ["c.ts", 425],
    ["d.ts", 420],
    ["e.ts", 410],
    ["gone.ts", 500],
  ]);
  assert.deepEqual(sizeProblems(lines, listed), [
    "a.ts has 401 lines, over 400: split it into modules named for what they hold",
    "c.ts has 430 lines, past its ceiling of 425: it may only shrink",
    "e.ts has 390 lines, within 400: take it off the list of ceilings",
    "gone.ts is listed (ceiling 500) but is gone: take it off the list",
  ]);
});
