import { describe, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { ContextHubError, createGrpcClient, createLogger, isContextHubError } from "@context-hub/common";
import { commonV1, summarizerV1 } from "@context-hub/proto";
import { loadSummarizerConfig } from "./config.js";
import { startSummarizer } from "./index.js";
import { createSummarizerHandlers } from "./server.js";
import type { Summarizer } from "./summarizer.js";
import type { AnswerProvider } from "./answer-provider.js";

/** For the handlers' Summarize tests, which never ask for an answer. */
const noAnswers: AnswerProvider = {
  describe: () => ({ provider: "none", model: "none", synthesised: false }),
  answer: () => Promise.reject(new Error("no answer is asked for in this test")),
};

const logger = createLogger("summarizer-test", "silent");

async function startForTest(t: { after(fn: () => Promise<void> | void): void }) {
  const config = loadSummarizerConfig({
    SUMMARIZER_PORT: "0",
    SUMMARIZER_OPS_PORT: "0",
    SUMMARIZER_MIN_CHARS: "300",
    SUMMARIZER_SECTION_MIN_CHARS: "200",
    SUMMARIZER_MAX_TEXT_CHARS: "20000",
  });
  const service = await startSummarizer(config, logger);
  t.after(() => service.close());
  const client = createGrpcClient(summarizerV1.SummarizerService, {
    address: `127.0.0.1:${service.port}`,
    peer: "summarizer",
    deadlineMs: 5000,
  });
  t.after(() => client.close());
  return { service, client };
}

const report = [
  "# Findings",
  "",
  "I profiled the search path with a large thread. The semantic leg was slow because the filter ran after the vector scan. I found that iterative scans were disabled in the configuration.",
  "",
  "## Fix",
  "",
  "I decided to enable iterative scans. The result is that latency dropped from four seconds to two hundred milliseconds. The access predicate still runs inside every query, because moving it would break the invariant.",
].join("\n");

test("Describe reports the built-in extractive model and the threshold", async (t) => {
  const { client, service } = await startForTest(t);
  const reply = await client.describe({});
  assert.deepEqual(
    { provider: reply.provider, model: reply.model, minChars: reply.minChars },
    { provider: "builtin", model: "builtin-extractive-v1", minChars: 300 },
  );
  assert.equal((await fetch(`http://127.0.0.1:${service.opsPort}/readyz`)).status, 200);
});

const input = (text: string, source = commonV1.Source.AGENT) => ({ text, source });

test("Summarize returns each text's summary and node summaries, in order, and nothing for a short text", async (t) => {
  const { client } = await startForTest(t);
  const { summaries } = await client.summarize({
    inputs: [input(report), input("Short note.", commonV1.Source.USER)],
    sectionBudgetMs: 5000,
  });
  assert.equal(summaries.length, 2);
  const [long, short] = summaries;
  assert.match(long!.summary, /found that iterative scans were disabled|latency dropped/);
  assert.doesNotMatch(long!.summary, /#/);
  assert.ok(long!.summary.length < report.length);
  assert.deepEqual(
    long!.sections.map((s) => [s.nodeId, s.heading, s.level]),
    [
      ["findings", "Findings", 1],
      ["findings/fix", "Fix", 2],
    ],
  );
  const fix = long!.sections[1]!;
  assert.equal(fix.span!.start, report.indexOf("## Fix"));
  assert.equal(fix.span!.end, report.length);
  assert.ok(fix.summary.length > 0 && !fix.summary.includes("#"));
  assert.deepEqual([short!.summary, short!.sections], ["", []]);
});

test("a section budget of 0 asks for no node summaries", async (t) => {
  const { client } = await startForTest(t);
  const [only] = (await client.summarize({ inputs: [input(report)], sectionBudgetMs: 0 })).summaries;
  assert.ok(only!.summary.length > 0);
  assert.deepEqual(only!.sections, []);
});

test("an unknown source, a text over the limit or too many texts is INVALID_ARGUMENT naming the input", async (t) => {
  const { client } = await startForTest(t);
  const cases: [() => Promise<unknown>, RegExp][] = [
    [
      () => client.summarize({ inputs: [input(report), input(report, 99 as commonV1.Source)], sectionBudgetMs: 100 }),
      /^inputs\[1\]: source 99 is not a known source/,
    ],
    [
      () => client.summarize({ inputs: [input("x".repeat(20_001), commonV1.Source.USER)], sectionBudgetMs: 100 }),
      /^inputs\[0\]: text has 20001 characters/,
    ],
    [
      () => client.summarize({ inputs: Array.from({ length: 101 }, () => input("a note")), sectionBudgetMs: 0 }),
      /at most 100 texts per call \(got 101\)/,
    ],
  ];
  for (const [call, message] of cases) {
    await assert.rejects(
      call(),
      (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT" && message.test(error.message),
    );
  }
});

test("Answer cites the evidence's sentences with the built-in provider, and refuses requests outside the limits", async (t) => {
  const { client } = await startForTest(t);
  const passages = [
    "Shock waves form ahead of a blunt body. The stand-off distance shrinks as the Mach number rises.",
    `${"Unrelated filler about the weather. ".repeat(50)}The stand-off distance depends on the density ratio.`,
    // The evidence is longer than the inline threshold, so the answer is worked out in a worker thread.
    "Nothing on the question here. ".repeat(60),
  ];
  const answer = await client.answer({ question: "what sets the stand-off distance", passages });
  assert.equal(answer.provider, "builtin");
  assert.equal(answer.synthesised, false);
  assert.ok(answer.statements.length >= 2);
  for (const statement of answer.statements) {
    assert.match(statement.text, /stand-off distance/);
    const [citation] = statement.citations;
    assert.ok(passages[(citation?.passage ?? 0) - 1]?.includes(citation?.quote ?? "missing"));
  }
  assert.deepEqual(
    answer.statements.map((statement) => statement.citations[0]?.passage),
    [1, 2],
  );

  const refused: [() => Promise<unknown>, RegExp][] = [
    [() => client.answer({ question: " ", passages }), /^question: 1 to 1000 characters/],
    [() => client.answer({ question: "q", passages: [] }), /^passages: 1 to 20 \(got 0\)/],
    [() => client.answer({ question: "q", passages: ["x".repeat(2001)] }), /^passages\[0\]: at most 2000 characters/],
    [() => client.answer({ question: "q", passages, maxStatements: 11 }), /^max_statements: at most 10/],
  ];
  for (const [call, message] of refused) {
    await assert.rejects(
      call(),
      (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT" && message.test(error.message),
    );
  }
});

/**
 * A summarizer whose summary comes at once (or fails) and whose node summaries come at once, fail, or never come
 * (until the call's signal aborts them): no timers, so the only clock in these tests is the section budget's.
 */
function scriptedSummarizer(behaviour: { sections: "ok" | "fail" | "hang"; summary?: "fail" | "ok" }): Summarizer {
  return {
    describe: () => ({ provider: "scripted", model: "scripted-1", minChars: 0 }),
    checkText: () => undefined,
    summarize: async () => {
      if (behaviour.summary === "fail") throw new ContextHubError("PROVIDER_ERROR", "scripted summary failed");
      return "the summary";
    },
    summarizeSections: async (text) => {
      if (behaviour.sections === "hang") return new Promise(() => undefined);
      if (behaviour.sections === "fail") throw new ContextHubError("PROVIDER_ERROR", "scripted sections failed");
      return [{ nodeId: "n", heading: "N", level: 1, start: 0, end: text.length, summary: "the node" }];
    },
  };
}

describe("node summaries are best effort within the section budget", () => {
  const context = () => ({ requestId: "r", deadline: undefined, signal: new AbortController().signal });
  const request = (budgetMs: number) =>
    create(summarizerV1.SummarizeRequestSchema, { inputs: [input("some text")], sectionBudgetMs: budgetMs });

  test("done within the budget, they come back with the summary", async () => {
    const handlers = createSummarizerHandlers(scriptedSummarizer({ sections: "ok" }), noAnswers);
    const reply = await handlers.summarize(request(2000), context());
    assert.deepEqual(
      reply.summaries!.map((summary) => [summary.summary, summary.sections!.map((section) => section.summary)]),
      [["the summary", ["the node"]]],
    );
  });

  // The section budget is a real timer in the handler; node summaries that never come show it is what ends the wait.
  test(
    "past the budget the call answers without them, at the budget rather than when they finish",
    { timeout: 30_000 },
    async () => {
      const handlers = createSummarizerHandlers(scriptedSummarizer({ sections: "hang" }), noAnswers);
      const started = performance.now();
      const reply = await handlers.summarize(request(100), context());
      assert.deepEqual(
        reply.summaries!.map((summary) => [summary.summary, summary.sections]),
        [["the summary", []]],
      );
      // Timers never fire early: the node summaries were given their whole budget.
      assert.ok(performance.now() - started >= 90, "the budget was waited for");
    },
  );

  test("the budget holds while the garbage collector runs", { timeout: 30_000 }, async () => {
    // A timeout signal that only a composite signal refers to can be collected before it fires (Node 20), and the
    // budget with it; this collects garbage every few milliseconds while the call waits.
    setFlagsFromString("--expose-gc");
    const collectGarbage = runInNewContext("gc") as () => void;
    // The node summaries never come: only the budget's timer, if it survives collection, ends the call.
    const handlers = createSummarizerHandlers(scriptedSummarizer({ sections: "hang" }), noAnswers);
    const collecting = setInterval(collectGarbage, 10);
    try {
      const reply = await handlers.summarize(request(200), context());
      assert.deepEqual(
        reply.summaries!.map((summary) => summary.sections),
        [[]],
      );
    } finally {
      clearInterval(collecting);
    }
  });

  test("when they fail the call still succeeds, without them", async () => {
    const handlers = createSummarizerHandlers(scriptedSummarizer({ sections: "fail" }), noAnswers);
    const reply = await handlers.summarize(request(2000), context());
    assert.deepEqual(
      reply.summaries!.map((summary) => [summary.summary, summary.sections]),
      [["the summary", []]],
    );
  });

  test("a text over the limit anywhere in the call fails it before any text is summarised", async () => {
    let asked = 0;
    const summarizer = scriptedSummarizer({ sections: "ok" });
    const counting: Summarizer = {
      ...summarizer,
      checkText: (text) => {
        if (text.length > 10)
          throw new ContextHubError("INVALID_ARGUMENT", `text has ${text.length} characters; at most 10 are accepted`);
      },
      summarize: (...args) => {
        asked++;
        return summarizer.summarize(...args);
      },
    };
    const call = createSummarizerHandlers(counting, noAnswers).summarize(
      create(summarizerV1.SummarizeRequestSchema, {
        inputs: [input("short"), input("far too long a text")],
        sectionBudgetMs: 100,
      }),
      context(),
    );
    await assert.rejects(call, /^ContextHubError: inputs\[1\]: text has 19 characters/);
    assert.equal(asked, 0);
  });

  test("a failed summary fails the call, whatever the node summaries did", async () => {
    const handlers = createSummarizerHandlers(scriptedSummarizer({ sections: "ok", summary: "fail" }), noAnswers);
    await assert.rejects(handlers.summarize(request(2000), context()), /scripted summary failed/);
  });
});
