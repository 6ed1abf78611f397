import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { outlinedReport, type OutlineSection } from "../support/markdown-texts.js";
import { useFakeProviderHub } from "../support/fake-provider-hub.js";
import { memoryBackend } from "../support/hub-backends.js";
import { callOk, fetchEntry } from "../support/mcp.js";
import { chatPromptOf, fakeSectionSummaryOf, fakeSummaryOf } from "../support/openai-fakes.js";

/**
 * Node summaries never block a write: with a chat provider that answers the
 * whole-text summary at once but never answers a section prompt, a Markdown
 * text is stored with its summary and without node summaries once the
 * gateway's section budget has passed; when sections are answered, their
 * node summaries are stored with the entry.
 */

const sectionBudgetMs = 600;

interface Outline {
  summary: string;
  nodes: {
    node_id: string;
    heading: string;
    level: number;
    start: number;
    end: number;
    path: string[];
    summary: string;
  }[];
}

const expectedNodes = (outline: OutlineSection[], summaryOf: (section: OutlineSection) => string) =>
  outline.map((section) => ({
    node_id: section.nodeId,
    heading: section.heading,
    level: section.level,
    start: section.start,
    end: section.end,
    summary: summaryOf(section),
  }));

describe("node summaries never block a write", () => {
  const context = useFakeProviderHub(memoryBackend, {
    GATEWAY_SECTION_SUMMARY_TIMEOUT_MS: String(sectionBudgetMs),
    // Every other wait far longer than the section budget: only the budget may end the wait for sections.
    SUMMARIZER_TIMEOUT_MS: "20000",
    GATEWAY_SUMMARY_TIMEOUT_MS: "20000",
    SUMMARIZER_SECTION_MIN_CHARS: "400",
  });

  const sectionPrompts = (from: number) =>
    context.fakes.chat.requests
      .slice(from)
      .map(chatPromptOf)
      .filter((prompt) => prompt.kind === "section");

  test("sections that never answer: the entry is stored with its summary and no node summaries, within the section budget", async () => {
    const { text, outline } = outlinedReport("Kiln firing log", ["Cooling curve", "Glaze faults"], "kiln");
    const requestsBefore = context.fakes.chat.requests.length;
    context.fakes.modes.sections = "hang";

    const started = performance.now();
    const ack = await callOk<{ context_id: string }>(context.hub.client, "store_context", {
      thread_id: "kiln",
      source: "agent",
      text,
    });
    const elapsed = performance.now() - started;

    assert.deepEqual(
      sectionPrompts(requestsBefore).map((prompt) => prompt.path),
      outline.map((section) => section.path),
      "every section was asked for, and none answered",
    );
    // Not a speed bound: the sections never answer and every other wait is 20 s, so only the budget (a real timer in
    // the gateway) can have ended the wait; timers never fire early.
    assert.ok(
      elapsed >= sectionBudgetMs - 50 && elapsed < 20_000,
      `stored after ${Math.round(elapsed)} ms; the section budget is ${sectionBudgetMs} ms, every other wait 20 s`,
    );
    const entry = await fetchEntry(context.hub.client, ack.context_id);
    assert.equal(entry.summary, fakeSummaryOf(text));
    assert.ok(entry.chunk_count >= 1);
    assert.deepEqual(entry.node_summaries, []);
    const navigated = await callOk<Outline>(context.hub.client, "navigate_context", { context_id: ack.context_id });
    assert.deepEqual(
      navigated.nodes.map((node) => [node.node_id, node.summary]),
      outline.map((section) => [section.nodeId, ""]),
      "the outline is there, unsummarised",
    );
  });

  test("sections that answer: their node summaries are stored and shown by get_context_by_ids and navigate_context", async () => {
    context.fakes.reset();
    const { text, outline } = outlinedReport("Reef survey", ["Transect north", "Transect south", "Bleaching"], "reef");
    const ack = await callOk<{ context_id: string }>(context.hub.client, "store_context", {
      thread_id: "reef",
      source: "agent",
      text,
    });

    const entry = await fetchEntry(context.hub.client, ack.context_id);
    assert.equal(entry.summary, fakeSummaryOf(text));
    assert.deepEqual(
      entry.node_summaries,
      expectedNodes(outline, (section) => fakeSectionSummaryOf(section.path)),
    );
    const navigated = await callOk<Outline>(context.hub.client, "navigate_context", { context_id: ack.context_id });
    assert.deepEqual(
      navigated.nodes.map((node) => ({ node_id: node.node_id, path: node.path, summary: node.summary })),
      outline.map((section) => ({
        node_id: section.nodeId,
        path: section.path,
        summary: fakeSectionSummaryOf(section.path),
      })),
    );
  });
});
