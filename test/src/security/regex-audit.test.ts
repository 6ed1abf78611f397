import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { check } from "recheck";

/**
 * Every regular expression written out in the services', packages' and
 * apps' source runs in time linear in its input, as a static analyser of
 * backtracking (recheck) proves it: a pattern that could try a long run of
 * input again from each of its characters fails this test with the input
 * that does it, so a super-linear pattern cannot land unnoticed wherever it
 * is, not only in the functions the growth-rate tests time. Patterns a
 * module builds from pieces as it loads (the instruction screen's, the
 * summary cleaner's) are checked too: the test loads every module whose
 * source calls `new RegExp` on anything but a string literal and records
 * the patterns it builds. Patterns built on each call (a tag name from a
 * fixed list, a copy of a written pattern) are left to their functions'
 * growth-rate tests. Tests and test helpers are not scanned.
 *
 * A pattern the analyser reports may stay only where its input is bounded
 * or is not a caller's, each listed below with the reason.
 */

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** Patterns reported as super-linear that stay, by file and source, with why their input cannot make them slow. */
const accepted: { file: string; source: string; reason: string }[] = [
  {
    file: "services/store/src/screen/instruction-screen.ts",
    source: String.raw`\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.!?\n]{0,40}?\b(?:previous|prior|above|earlier|preceding|foregoing|your|system|developer|original)\b[^.!?\n]{0,30}?\b(?:instructions?|prompts?|rules|directives?|guidelines|guardrails|messages|context|constraints)\b`,
    reason: "its gaps are bounded (40 and 30 characters): at most a constant number of steps per character",
  },
  {
    file: "services/store/src/screen/instruction-screen.ts",
    source: String.raw`\{\s?"(?:arguments|parameters|input|args)"\s?:\s?[{[][^\n]{0,2000}?"(?:name|tool|function)"\s?:\s?"[^"\n]{1,120}"\s?}`,
    reason:
      "its gap is bounded (2,000 characters of one line); the screen's growth-rate test times it on tool-call openings",
  },
  {
    file: "services/gateway/src/mcp/input-schemas.ts",
    source: "=+$",
    reason: "it reads the first 1,400 characters of an image's base64, never more",
  },
  {
    file: "packages/console/src/app/pkce.ts",
    source: "=+$",
    reason: "it reads the base64 of 32 random bytes the console made itself",
  },
  {
    file: "services/summarizer/dist/summary-cleanup.js",
    source: String.raw`(?:#{1,6}\s*)?(?:(?:\*\*|__)\s*)?(?:(?:a|the)\s+)?(?:(?:concise|short|brief|one-paragraph|final)\s+)?(?:summary|summari[sz]ed|summari[sz]ation|overview|tl;?dr|recap|gist|paragraph)(?:\*\*|__)?(?:\s*[:–—]|\s+-)\s*(?:\*\*|__)?\s*`,
    reason:
      "sticky (y): tried once where the answer's remaining text starts, never along it (the analyser assumes a search); stripPreamble's growth-rate test times it",
  },
  {
    file: "packages/common/src/http-provider/http-provider-client.ts",
    source: String.raw`\/+$`,
    reason: "it reads the operator's configured provider URL, never a caller's text",
  },
];

interface Found {
  file: string;
  line: number;
  source: string;
  flags: string;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === "testing" || entry.name === "node_modules" ? [] : sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name) ? [path] : [];
  });
}

/**
 * The patterns written out in `file` (literals and `new RegExp` of a string
 * literal), and whether it also builds one from anything else.
 */
function patternsIn(file: string): { written: Found[]; builds: boolean } {
  const text = readFileSync(file, "utf8");
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const written: Found[] = [];
  let builds = false;
  const add = (node: ts.Node, source: string, flags: string) => {
    const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart());
    written.push({ file: relative(root, file), line: line + 1, source, flags });
  };
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText();
      const end = literal.lastIndexOf("/");
      add(node, literal.slice(1, end), literal.slice(end + 1));
    } else if (
      ts.isNewExpression(node) &&
      node.expression.getText() === "RegExp" &&
      node.arguments?.[0] !== undefined
    ) {
      const [pattern, flags] = node.arguments;
      if (!ts.isStringLiteralLike(pattern)) builds = true;
      else add(node, pattern.text, flags !== undefined && ts.isStringLiteralLike(flags) ? flags.text : "");
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return { written, builds };
}

/** The dist module of a source file (`services/x/src/a.ts` → `services/x/dist/a.js`). */
const distOf = (file: string) => file.replace(/\/src\//, "/dist/").replace(/\.ts$/, ".js");

/** The patterns the modules of `files` build while they load, each with the module that built it. */
async function patternsBuiltOnLoad(files: readonly string[]): Promise<Found[]> {
  const found: Found[] = [];
  const ownModule = /file:\/\/(\/[^\s)]+\/(?:packages|services|apps)\/[^/]+\/dist\/[^\s):]+\.js)/;
  const original = globalThis.RegExp;
  globalThis.RegExp = new Proxy(original, {
    construct(target, args: [string | RegExp, string?]) {
      const built = new target(...args);
      // The stack's first frame is this trap, the next the code that built the pattern: kept when it is one of ours.
      const module = ownModule.exec((new Error().stack ?? "").split("\n")[2] ?? "")?.[1];
      if (module !== undefined && !module.includes("/node_modules/"))
        found.push({ file: relative(root, module), line: 0, source: built.source, flags: built.flags });
      return built;
    },
  });
  try {
    for (const file of files) await import(pathToFileURL(join(root, distOf(relative(root, file)))).href);
  } finally {
    globalThis.RegExp = original;
  }
  return found;
}

test("every regular expression in the source is linear in its input, or bounded and listed with its reason", async () => {
  const files = ["packages", "services", "apps"].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => {
        const src = join(root, group, entry.name, "src");
        try {
          return sourceFiles(src);
        } catch {
          return [];
        }
      }),
  );
  const scanned = files.map((file) => ({ file, ...patternsIn(file) }));
  const written = scanned.flatMap((entry) => entry.written);
  assert.ok(written.length > 200, `found only ${written.length} patterns in ${files.length} files`);
  const built = await patternsBuiltOnLoad(scanned.filter((entry) => entry.builds).map((entry) => entry.file));
  assert.ok(built.length >= 10, `recorded only ${built.length} patterns built as modules load`);
  const patterns = [...written, ...built];
  const reported: string[] = [];
  const used = new Set<(typeof accepted)[number]>();
  for (const pattern of patterns) {
    // The analyser reads flags it knows (d and v it does not); a fixed seed makes its fuzzing repeatable.
    const result = await check(pattern.source, pattern.flags.replace(/[^gimsuy]/g, ""), {
      timeout: 300_000,
      randomSeed: 20261207,
    });
    if (result.status === "safe") continue;
    const listed = accepted.find((entry) => entry.file === pattern.file && entry.source === pattern.source);
    if (result.status === "vulnerable" && listed !== undefined) {
      used.add(listed);
      continue;
    }
    const why =
      result.status === "vulnerable"
        ? `${result.complexity.summary}; slow on ${result.attack.pattern}`
        : `the analyser could not decide: ${JSON.stringify(result.error)}`;
    const where = pattern.line === 0 ? `${pattern.file} (built as it loads)` : `${pattern.file}:${pattern.line}`;
    reported.push(`${where} /${pattern.source}/${pattern.flags}: ${why}`);
  }
  assert.deepEqual(reported, [], `super-linear patterns:\n${reported.join("\n")}`);
  const stale = accepted.filter((entry) => !used.has(entry)).map((entry) => `${entry.file} /${entry.source}/`);
  assert.deepEqual(stale, [], "listed patterns no longer reported (or gone): remove them from the list");
});
