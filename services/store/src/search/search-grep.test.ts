import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { compilePattern, grepText } from "./grep.js";
import { createGrepRunner } from "./grep-runner.js";

const content = { mode: "content" as const, contextLines: 0, maxMatches: 100 };
const regexOf = (pattern: string, regex = true, caseInsensitive = false) => {
  const compiled = compilePattern(pattern, { regex, caseInsensitive });
  return new RegExp(compiled.source, compiled.flags);
};

describe("grep patterns", () => {
  test("a literal matches itself, special characters included", () => {
    const text = "cost is $5.00 (approx.) [sic] a+b*c";
    for (const literal of ["$5.00", "(approx.)", "[sic]", "a+b*c"]) {
      assert.equal(grepText(text, regexOf(literal, false), content).matchCount, 1, literal);
    }
    assert.equal(grepText("x.y xzy", regexOf(".", false), content).matchCount, 1);
  });

  test("regular expressions use JavaScript syntax, ^ and $ anchor lines, case folding on request", () => {
    const text = "Alpha\nbeta\nALPHA beta";
    assert.equal(grepText(text, regexOf("^alpha", true, true), content).matchCount, 2);
    assert.equal(grepText(text, regexOf("beta$"), content).matchCount, 2);
    assert.equal(
      grepText(text, regexOf("\\-?beta"), content).matchCount,
      2,
      "a pattern invalid in Unicode mode still works",
    );
  });

  test("an invalid or empty pattern is INVALID_ARGUMENT", () => {
    for (const pattern of ["(", "a)", "[", ""]) {
      assert.throws(
        () => compilePattern(pattern, { regex: true, caseInsensitive: false }),
        (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT",
        pattern,
      );
    }
  });
});

describe("grep over one text", () => {
  const text = ["one", "two needle", "three", "four needle needle", "five"].join("\n");

  test("content reports line, span, line text and context", () => {
    const result = grepText(text, regexOf("needle"), { mode: "content", contextLines: 1, maxMatches: 2 });
    assert.equal(result.matchCount, 3, "counts beyond what it reports");
    assert.deepEqual(result.matches[0], {
      line: 2,
      span: { start: 8, end: 14 },
      lineText: "two needle",
      before: ["one"],
      after: ["three"],
    });
    assert.equal(result.matches.length, 2);
    assert.equal(text.slice(result.matches[1]!.span.start, result.matches[1]!.span.end), "needle");
  });

  test("files_with_matches stops at the first match; empty matches are stepped over", () => {
    assert.equal(
      grepText(text, regexOf("needle"), { mode: "files_with_matches", contextLines: 0, maxMatches: 1 }).matchCount,
      1,
    );
    assert.equal(grepText("a\nb\nc", regexOf("^"), { mode: "count", contextLines: 0, maxMatches: 0 }).matchCount, 3);
    assert.equal(grepText("🙂🙂", regexOf("(?:)"), { mode: "count", contextLines: 0, maxMatches: 0 }).matchCount, 3);
  });

  test("a long line is shown around the match", () => {
    const long = `${"x".repeat(5000)} needle ${"y".repeat(5000)}`;
    const [match] = grepText(long, regexOf("needle"), content).matches;
    assert.ok(match !== undefined && match.lineText.length === 400 && match.lineText.includes("needle"));
  });
});

describe("grep runner", () => {
  const runner = createGrepRunner({ maxWorkers: 2 });
  after(() => runner.close());
  const catastrophic = compilePattern("^(a+)+$", { regex: true, caseInsensitive: false });
  const evil = `${"a".repeat(40)}!`;

  test("a catastrophic pattern is stopped per text, the scan goes on, and the event loop stays free", async () => {
    // The per-text budget is real time spent by a worker thread; the main thread's timers keep running meanwhile.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const texts = ["aaaa", evil, "aaa"];
    const run = await runner.run(catastrophic, texts, content, { perTextMs: 200, deadline: performance.now() + 5_000 });
    clearInterval(ticker);
    assert.deepEqual(
      run.outcomes.map((outcome) => outcome.status),
      ["done", "timed_out", "done"],
    );
    assert.equal(run.timedOut, false);
    // A scan on the main thread would hold the event loop until it returned, and no tick could run before the await.
    assert.ok(ticks > 0, "the event loop ran timers while the pattern spun");
  });

  test("three timed-out texts in a row stop the call; so does its deadline", async () => {
    const hopeless = await runner.run(catastrophic, [evil, evil, evil, evil, "aa"], content, {
      perTextMs: 100,
      deadline: performance.now() + 10_000,
    });
    assert.deepEqual(
      hopeless.outcomes.map((outcome) => outcome.status),
      ["timed_out", "timed_out", "timed_out", "skipped", "skipped"],
    );
    assert.equal(hopeless.timedOut, true);
    const started = performance.now();
    const late = await runner.run(catastrophic, [evil], content, {
      perTextMs: 5_000,
      deadline: performance.now() + 150,
    });
    assert.equal(late.timedOut, true);
    // Not a speed bound: the text's own budget is 5 s, so ending sooner shows the call's deadline ended it.
    assert.ok(performance.now() - started < 5_000, "the call's deadline, not the text's budget, ended it");
  });

  test("an aborted call stops at once", async () => {
    const controller = new AbortController();
    const running = runner.run(catastrophic, [evil], content, {
      perTextMs: 5_000,
      deadline: performance.now() + 5_000,
      signal: controller.signal,
    });
    controller.abort();
    assert.equal((await running).timedOut, true);
  });
});
