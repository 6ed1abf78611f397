import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { buildOutline, lineOf, resolveRange, toLineStarts } from "./navigation.js";

const doc = [
  "# Guide",
  "intro line",
  "",
  "## Setup",
  "install it",
  "### Linux",
  "apt-get",
  "## Setup",
  "second setup",
  "# Appendix",
  "the end",
].join("\n");

describe("outline", () => {
  test("every heading with its node id, lines, path, children and stored summary", () => {
    const outline = buildOutline(doc, [
      { nodeId: "guide/setup", heading: "Setup", level: 2, span: { start: 0, end: 1 }, summary: "How to install." },
    ]);
    assert.equal(outline.lineCount, 11);
    assert.deepEqual(
      outline.nodes.map((node) => [
        node.nodeId,
        node.level,
        node.startLine,
        node.endLine,
        node.childCount,
        node.summary,
      ]),
      [
        ["guide", 1, 1, 9, 2, ""],
        ["guide/setup", 2, 4, 7, 1, "How to install."],
        ["guide/setup/linux", 3, 6, 7, 0, ""],
        ["guide/setup-2", 2, 8, 9, 0, ""],
        ["appendix", 1, 10, 11, 0, ""],
      ],
    );
    const linux = outline.nodes[2]!;
    assert.deepEqual(linux.path, ["Guide", "Setup", "Linux"]);
    assert.equal(doc.slice(linux.span.start, linux.span.end), "### Linux\napt-get\n");
  });

  test("max depth keeps only the outer levels; a text without headings has none", () => {
    assert.deepEqual(
      buildOutline(doc, [], 1).nodes.map((node) => node.nodeId),
      ["guide", "appendix"],
    );
    assert.deepEqual(buildOutline("no headings\nat all", []).nodes, []);
  });

  test("line numbers are 1-based and a trailing newline adds no line", () => {
    const starts = toLineStarts("a\nbb\nccc\n");
    assert.deepEqual(starts, [0, 2, 5]);
    assert.deepEqual(
      [0, 1, 2, 4, 5, 8].map((offset) => lineOf(starts, offset)),
      [1, 1, 2, 2, 3, 3],
    );
  });
});

describe("ranges", () => {
  test("by characters (end clamped), by lines (inclusive) and by node", () => {
    assert.deepEqual(resolveRange(doc, { kind: "chars", start: 0, end: 7 }, 100), {
      span: { start: 0, end: 7 },
      startLine: 1,
      endLine: 1,
      truncated: false,
      heading: "",
    });
    assert.equal(resolveRange(doc, { kind: "chars", start: doc.length - 3, end: 10_000 }, 100).span.end, doc.length);
    const lines = resolveRange(doc, { kind: "lines", start: 4, end: 5 }, 1000);
    assert.equal(doc.slice(lines.span.start, lines.span.end), "## Setup\ninstall it\n");
    assert.deepEqual([lines.startLine, lines.endLine], [4, 5]);
    assert.equal(resolveRange(doc, { kind: "lines", start: 10, end: 99 }, 1000).span.end, doc.length);
    const node = resolveRange(doc, { kind: "node", nodeId: "guide/setup-2" }, 1000);
    assert.equal(doc.slice(node.span.start, node.span.end), "## Setup\nsecond setup\n");
    assert.equal(node.heading, "Setup");
  });

  test("a range longer than allowed is cut and says so, never inside a surrogate pair", () => {
    const cut = resolveRange(doc, { kind: "chars", start: 0, end: doc.length }, 10);
    assert.deepEqual([cut.span, cut.truncated], [{ start: 0, end: 10 }, true]);
    const emoji = "ab🙂cd";
    assert.deepEqual(resolveRange(emoji, { kind: "chars", start: 0, end: 5 }, 3).span, { start: 0, end: 2 });
  });

  test("impossible ranges say what exists", () => {
    assert.throws(() => resolveRange(doc, { kind: "chars", start: 5, end: 5 }, 10), /end > start/);
    assert.throws(
      () => resolveRange(doc, { kind: "chars", start: doc.length, end: doc.length + 5 }, 10),
      /past the end of the text \(\d+ characters\)/,
    );
    assert.throws(() => resolveRange(doc, { kind: "lines", start: 0, end: 2 }, 10), /1 <= start <= end/);
    assert.throws(() => resolveRange(doc, { kind: "lines", start: 12, end: 12 }, 10), /the text has 11 lines/);
    assert.throws(() => resolveRange(doc, { kind: "node", nodeId: "nope" }, 10), /no outline node "nope"/);
  });
});

describe("outline pages", () => {
  const doc = Array.from({ length: 7 }, (_, index) => `# Part ${index}\n\nBody ${index}.\n`).join("\n");
  const summaries = [
    { nodeId: "part-3", heading: "Part 3", level: 1, span: { start: 0, end: 1 }, summary: "x".repeat(500) },
  ];

  test("pages from an offset hold at most maxNodes, say where the next starts, and chain to every node once", () => {
    const whole = buildOutline(doc, summaries).nodes.map((node) => node.nodeId);
    assert.equal(whole.length, 7);
    const seen: string[] = [];
    for (let offset = 0, pages = 0; pages < 10; pages++) {
      const page = buildOutline(doc, summaries, 0, { offset, maxNodes: 3, maxBytes: 1_000_000 });
      assert.ok(page.nodes.length <= 3);
      assert.equal(page.totalNodes, 7);
      seen.push(...page.nodes.map((node) => node.nodeId));
      if (page.nextOffset === 0) break;
      offset = page.nextOffset;
    }
    assert.deepEqual(seen, whole);
  });

  test("a page stops before the node that passes maxBytes, but always holds one node", () => {
    const page = buildOutline(doc, summaries, 0, { offset: 0, maxNodes: 100, maxBytes: 100 });
    assert.deepEqual(
      [page.nodes.length, page.nextOffset],
      [3, 3],
      "the long summary of the fourth node passes the bound",
    );
    const alone = buildOutline(doc, summaries, 0, { offset: 3, maxNodes: 100, maxBytes: 100 });
    assert.deepEqual(
      [alone.nodes.map((node) => node.summary.length), alone.nextOffset],
      [[500], 4],
      "a node larger than the bound comes alone",
    );
  });

  test("an offset at the end is an empty last page; past it is INVALID_ARGUMENT naming the count", () => {
    assert.deepEqual(buildOutline(doc, [], 1, { offset: 7, maxNodes: 5, maxBytes: 1_000 }).nodes, []);
    assert.throws(
      () => buildOutline(doc, [], 1, { offset: 8, maxNodes: 5, maxBytes: 1_000 }),
      /offset 8 is past the outline's last node: it has 7/,
    );
  });
});
