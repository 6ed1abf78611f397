/**
 * navigate_context over MCP on texts with thousands of headings: each
 * reply holds a bounded page (by nodes and by bytes), and following
 * next_offset from 0 returns every node exactly once, in document order.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AllInOne } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient, textOf } from "../support/mcp.js";
import { startMemoryHub } from "../support/memory-hub.js";

interface OutlinePage {
  nodes: { node_id: string; heading: string; path: string[] }[];
  total_nodes: number;
  offset: number;
  next_offset: number | null;
}

/** A text of `parts` top-level sections with `perPart` subsections each; every heading is distinct. */
function outlinedText(parts: number, perPart: number, headingOf: (part: number, section: number) => string) {
  const lines: string[] = [];
  const headings: string[] = [];
  for (let part = 0; part < parts; part++) {
    headings.push(headingOf(part, -1));
    lines.push(`# ${headingOf(part, -1)}`, "", "Gauge notes.", "");
    for (let section = 0; section < perPart; section++) {
      headings.push(headingOf(part, section));
      lines.push(`## ${headingOf(part, section)}`, "", "A reading.", "");
    }
  }
  return { text: lines.join("\n"), headings };
}

describe("navigate_context in pages over MCP", () => {
  let hub: AllInOne;
  let client: Client;

  before(async () => {
    // Storing 5,000 sections can take the built-in summary past its default budget on a loaded host; this test is about reading.
    hub = await startMemoryHub({
      CONTEXT_HUB_AUTH: "none",
      SUMMARIZER_TEXT_BUDGET_MS: "60000",
      STORE_TEXT_BUDGET_MS: "60000",
      EMBEDDER_TEXT_BUDGET_MS: "60000",
    });
    client = await connectMcpClient(hub.url);
  });
  after(async () => {
    await client?.close();
    await hub?.close();
  });

  /** Every page from offset 0, following next_offset, with each reply's rendered size. */
  async function allPages(id: string, maxNodes?: number) {
    const pages: (OutlinePage & { bytes: number })[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const result = await callTool(client, "navigate_context", {
        context_id: id,
        offset,
        ...(maxNodes === undefined ? {} : { max_nodes: maxNodes }),
      });
      assert.ok(!result.isError, textOf(result));
      const page = result.structuredContent as unknown as OutlinePage;
      assert.equal(page.offset, offset);
      assert.ok(page.nodes.length > 0, `a page from ${offset} holds a node`);
      pages.push({ ...page, bytes: Buffer.byteLength(textOf(result)) });
      assert.ok(pages.length <= 10_000, "the pages end");
      offset = page.next_offset;
      if (offset !== null) assert.equal(offset, page.offset + page.nodes.length, "the next page starts after this one");
    }
    return pages;
  }

  test("5,000 headings: bounded pages whose next_offset chain returns every node once, in order", async () => {
    const { text, headings } = outlinedText(250, 19, (part, section) =>
      section < 0 ? `Station ${part}` : `Station ${part} reading ${section}`,
    );
    assert.equal(headings.length, 5_000);
    const ack = await callOk<{ context_id: string }>(client, "store_context", {
      thread_id: "gauges",
      source: "agent",
      text,
    });

    const first = await callOk<OutlinePage>(client, "navigate_context", { context_id: ack.context_id });
    assert.equal(first.nodes.length, 200, "the default page");
    assert.deepEqual([first.total_nodes, first.offset, first.next_offset], [5_000, 0, 200]);

    const pages = await allPages(ack.context_id, 1_000);
    assert.equal(pages.length, 5);
    assert.ok(
      pages.every((page) => page.nodes.length <= 1_000 && page.total_nodes === 5_000),
      "each page holds at most max_nodes",
    );
    const nodes = pages.flatMap((page) => page.nodes);
    assert.deepEqual(
      nodes.map((node) => node.heading),
      headings,
      "every heading once, in document order",
    );
    assert.equal(new Set(nodes.map((node) => node.node_id)).size, 5_000, "no node id twice");
    assert.deepEqual(nodes[20]!.path, ["Station 1"], "a top-level section keeps its path");

    // A deeper limit pages over the nodes it keeps.
    const inThreeHundreds = (await allPages(ack.context_id, 300)).flatMap((page) => page.nodes);
    assert.deepEqual(
      inThreeHundreds.map((node) => node.node_id),
      nodes.map((node) => node.node_id),
      "pages of another size chain to the same nodes",
    );
    const shallow = await callOk<OutlinePage>(client, "navigate_context", {
      context_id: ack.context_id,
      max_depth: 1,
      offset: 240,
      max_nodes: 50,
    });
    assert.deepEqual(
      [shallow.total_nodes, shallow.nodes.map((node) => node.heading), shallow.next_offset],
      [250, Array.from({ length: 10 }, (_, index) => `Station ${240 + index}`), null],
    );
  });

  test("long headings: a page stops at its byte bound before max_nodes, and the chain still returns every node once", async () => {
    // About 1.5 KB of node text each (heading, node id, path): 180 nodes pass the 256 KiB bound.
    const long = (part: number, section: number) =>
      `${section < 0 ? "Basin" : "Gauge"} ${part}.${section} ${"flow ".repeat(100)}`.trim();
    const { text, headings } = outlinedText(45, 3, long);
    const ack = await callOk<{ context_id: string }>(client, "store_context", {
      thread_id: "basins",
      source: "agent",
      text,
    });
    const pages = await allPages(ack.context_id, 1_000);
    assert.ok(pages.length >= 2, `${pages.length} pages: the byte bound cut the first before its 1,000 nodes`);
    assert.ok(pages[0]!.nodes.length < 180);
    // 256 KiB of node text, each heading also in its path; rendered as JSON with its fences and the other fields.
    assert.ok(
      pages.every((page) => page.bytes < 700 * 1024),
      `page sizes ${pages.map((page) => page.bytes).join(", ")}`,
    );
    assert.deepEqual(
      pages.flatMap((page) => page.nodes.map((node) => node.heading)),
      headings,
    );
  });

  test("an offset past the last node is refused, naming how many there are; max_nodes is bounded in the schema", async () => {
    const ack = await callOk<{ context_id: string }>(client, "store_context", {
      thread_id: "small",
      source: "agent",
      text: "# One\n\nA.\n\n# Two\n\nB.\n",
    });
    const end = await callOk<OutlinePage>(client, "navigate_context", { context_id: ack.context_id, offset: 2 });
    assert.deepEqual(
      [end.nodes, end.total_nodes, end.next_offset],
      [[], 2, null],
      "the offset just past the last node is an empty last page",
    );
    const past = await callTool(client, "navigate_context", { context_id: ack.context_id, offset: 3 });
    assert.equal(past.isError, true);
    assert.match(textOf(past), /^INVALID_ARGUMENT: offset 3 is past the outline's last node: it has 2/);
    const tooMany = await callTool(client, "navigate_context", { context_id: ack.context_id, max_nodes: 1_001 });
    assert.equal(tooMany.isError, true);
    assert.match(textOf(tooMany), /max_nodes/);
  });
});
