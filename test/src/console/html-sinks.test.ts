import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The console builds its pages from nodes and text only: no source file of
 * packages/console uses an API that parses a string as HTML or as code, so
 * stored text has no path into markup or script (the browser suite then
 * shows hostile text staying text).
 */

const sourceDir = fileURLToPath(new URL("../../../packages/console/src/", import.meta.url));
const sinks = [
  /\.innerHTML\b/,
  /\.outerHTML\b/,
  /\binsertAdjacentHTML\b/,
  /\bdocument\.write/,
  /\bcreateContextualFragment\b/,
  /\bDOMParser\b/,
  /\bsrcdoc\b/,
  /\beval\s*\(/,
  /\bnew\s+Function\b/,
  /\bsetTimeout\s*\(\s*["'`]/,
  /\.style\b/,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

test("no console source parses a string as HTML or code, or sets inline styles", () => {
  const files = sourceFiles(sourceDir);
  assert.ok(files.length > 5, `found the console's sources in ${sourceDir}`);
  const found = files.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, index) =>
        sinks.filter((sink) => sink.test(line)).map((sink) => `${file}:${index + 1}: ${sink.source}: ${line.trim()}`),
      ),
  );
  assert.deepEqual(found, []);
});
