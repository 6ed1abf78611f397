import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseOutline } from "@context-hub/text";
import { buildOutline } from "./navigation.js";
import { moveInOutline, selectMove, toOutlineStep, type OutlineMove } from "./outline-moves.js";

const doc = [
  "Preamble.",
  "# Guide",
  "intro line",
  "## Setup",
  "install it",
  "### Linux",
  "apt-get",
  "### macOS",
  "brew",
  "## Setup",
  "second setup",
  "## Usage",
  "use it",
  "# Appendix",
  "the end",
  "# Glossary",
  "## Terms",
  "words",
].join("\n");

const sections = parseOutline(doc);
const reach = (nodeId: string, move: OutlineMove) => selectMove(sections, { nodeId, move });
const idsOf = (nodeId: string, move: OutlineMove) => reach(nodeId, move).targets.map((section) => section.nodeId);

describe("moves through an outline", () => {
  test("parent: the enclosing section, from any depth", () => {
    assert.deepEqual(idsOf("guide/setup/linux", "parent"), ["guide/setup"]);
    assert.deepEqual(idsOf("guide/setup-2", "parent"), ["guide"]);
    assert.deepEqual(idsOf("glossary/terms", "parent"), ["glossary"]);
  });

  test("children: the direct subsections only, in document order", () => {
    assert.deepEqual(idsOf("guide", "children"), ["guide/setup", "guide/setup-2", "guide/usage"]);
    assert.deepEqual(idsOf("guide/setup", "children"), ["guide/setup/linux", "guide/setup/macos"]);
  });

  test("previous and next: the adjacent sibling under the same parent, skipping the other's subsections", () => {
    assert.deepEqual(idsOf("guide/setup", "next"), ["guide/setup-2"], "past Setup's own subsections");
    assert.deepEqual(idsOf("guide/setup-2", "previous"), ["guide/setup"]);
    assert.deepEqual(idsOf("guide/setup/macos", "previous"), ["guide/setup/linux"]);
    assert.deepEqual(idsOf("guide", "next"), ["appendix"], "top-level siblings");
    assert.deepEqual(idsOf("glossary", "previous"), ["appendix"]);
  });

  test("siblings: every other section with the same parent, in document order", () => {
    assert.deepEqual(idsOf("guide/setup-2", "siblings"), ["guide/setup", "guide/usage"]);
    assert.deepEqual(idsOf("appendix", "siblings"), ["guide", "glossary"]);
  });

  test("past the root, the first or the last sibling, or without subsections: nothing, and a note saying why", () => {
    assert.deepEqual(reach("guide", "parent"), {
      targets: [],
      note: '"guide" is a top-level section: it has no parent',
    });
    assert.deepEqual(reach("guide/setup/linux", "children"), {
      targets: [],
      note: '"guide/setup/linux" has no subsections',
    });
    assert.deepEqual(reach("guide/setup", "previous"), {
      targets: [],
      note: '"guide/setup" is the first section under "guide"',
    });
    assert.deepEqual(reach("guide/usage", "next"), {
      targets: [],
      note: '"guide/usage" is the last section under "guide"',
    });
    assert.deepEqual(reach("guide", "previous").note, '"guide" is the first section at the top level');
    assert.deepEqual(reach("glossary", "next").note, '"glossary" is the last section at the top level');
    assert.deepEqual(reach("glossary/terms", "siblings"), {
      targets: [],
      note: '"glossary/terms" is the only section under "glossary"',
    });
    for (const [nodeId, move] of [
      ["guide/setup", "children"],
      ["guide/setup", "next"],
      ["guide", "siblings"],
    ] as const)
      assert.equal(reach(nodeId, move).note, "", `${move} from ${nodeId} reaches something and needs no note`);
  });

  test("a node the outline does not have is INVALID_ARGUMENT naming it, for every move", () => {
    for (const move of ["parent", "children", "previous", "next", "siblings"] as const)
      assert.throws(() => reach("guide/install", move), /the entry has no outline node "guide\/install"/);
    assert.throws(
      () => selectMove(parseOutline("no headings"), { nodeId: "guide", move: "next" }),
      /no outline node "guide"/,
    );
  });
});

describe("the nodes a move reaches, as the outline shows them", () => {
  const summaries = [
    { nodeId: "guide/setup/macos", heading: "macOS", level: 3, span: { start: 0, end: 1 }, summary: "Brew it." },
  ];
  const whole = new Map(buildOutline(doc, summaries).nodes.map((node) => [node.nodeId, node]));

  test("each node reached is the outline's own row (span, lines, path, summary), with its parent and child count", () => {
    const children = moveInOutline(doc, summaries, { nodeId: "guide/setup", move: "children" });
    assert.deepEqual(
      children.nodes,
      ["guide/setup/linux", "guide/setup/macos"].map((id) => whole.get(id)),
    );
    assert.deepEqual(
      children.nodes.map((node) => [node.parentId, node.childCount, node.summary]),
      [
        ["guide/setup", 0, ""],
        ["guide/setup", 0, "Brew it."],
      ],
    );
    assert.deepEqual([children.totalNodes, children.nextOffset, children.note, children.lineCount], [2, 0, "", 18]);
    const parent = moveInOutline(doc, summaries, { nodeId: "guide/setup/linux", move: "parent" }).nodes;
    assert.deepEqual(
      parent.map((node) => [node.nodeId, node.parentId, node.childCount, node.startLine, node.endLine]),
      [["guide/setup", "guide", 2, 4, 9]],
    );
    assert.equal(whole.get("guide")?.parentId, "", "a top-level node has no parent id");
  });

  test("many siblings come in pages that chain to each once", () => {
    const wide = ["# Top", ...Array.from({ length: 9 }, (_, index) => `## Part ${index}\nbody`)].join("\n");
    const seen: string[] = [];
    for (let offset = 0, pages = 0; pages < 10; pages++) {
      const page = moveInOutline(
        wide,
        [],
        { nodeId: "top/part-4", move: "siblings" },
        {
          offset,
          maxNodes: 3,
          maxBytes: 1_000_000,
        },
      );
      assert.equal(page.totalNodes, 8);
      seen.push(...page.nodes.map((node) => node.nodeId));
      if (page.nextOffset === 0) break;
      offset = page.nextOffset;
    }
    assert.deepEqual(
      seen,
      [0, 1, 2, 3, 5, 6, 7, 8].map((index) => `top/part-${index}`),
    );
  });

  test("a move that reaches nothing is an empty page with its note", () => {
    assert.deepEqual(moveInOutline(doc, [], { nodeId: "appendix", move: "children" }), {
      nodes: [],
      lineCount: 18,
      totalNodes: 0,
      nextOffset: 0,
      note: '"appendix" has no subsections',
    });
  });
});

describe("what a navigate request asks for", () => {
  test("no node and no move: the outline itself", () => {
    assert.equal(toOutlineStep({ maxDepth: 2 }), undefined);
    assert.equal(toOutlineStep({ nodeId: "", maxDepth: 0 }), undefined, "an empty node id is an absent one");
  });

  test("a node with a move is one step", () => {
    assert.deepEqual(toOutlineStep({ nodeId: "guide", move: "children", maxDepth: 0 }), {
      nodeId: "guide",
      move: "children",
    });
  });

  test("a move without a node, a node without a move, or a move with max_depth is INVALID_ARGUMENT saying so", () => {
    assert.throws(() => toOutlineStep({ move: "next", maxDepth: 0 }), /move "next" needs node_id/);
    assert.throws(() => toOutlineStep({ nodeId: "", move: "parent", maxDepth: 0 }), /move "parent" needs node_id/);
    assert.throws(
      () => toOutlineStep({ nodeId: "guide", maxDepth: 0 }),
      /node_id "guide" needs a move: one of parent, children, previous, next, siblings/,
    );
    assert.throws(
      () => toOutlineStep({ nodeId: "guide", move: "children", maxDepth: 2 }),
      /max_depth bounds a listing of the whole outline, not a move/,
    );
  });
});
