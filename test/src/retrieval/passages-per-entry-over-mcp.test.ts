// Deep reading over MCP: hybrid_search_context with passages_per_entry returns, for each result, up to that many
// passages of its text that do not overlap, best first by the reranker's score, each with the outline node it
// starts in and a character range that read_context_range reads back exactly. Passages come only from results the
// caller may see (a planted neighbour holding the same words gives none), their text is fenced in the model's
// rendering like every stored string, and bad combinations are refused before anything runs.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callOk, callTool, failureLine, textOf } from "../support/mcp.js";
import { hubBackends, startKeyedHub, type KeyedHub } from "../support/keyed-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";

interface Passage {
  node_id: string;
  start: number;
  end: number;
  text: string;
  score: number | null;
}
interface Hit {
  id: string;
  passages?: Passage[];
}
interface Page {
  results: Hit[];
  warnings: string[];
  explain?: { stages_ms: Record<string, number> };
}

const filler = (topic: string, sentences: number) =>
  Array.from(
    { length: sentences },
    (_, index) => `The ${topic} log records routine item ${index} with nothing unusual to report today.`,
  ).join(" ");

// A long manual whose query words sit in three separate sections, far apart.
const manual = [
  "# Turbine manual",
  "",
  filler("general", 12),
  "",
  "## Blades",
  "",
  filler("blade", 10),
  "A cracked turbine blade must be replaced before the bearing is inspected.",
  filler("blade", 10),
  "",
  "## Bearings",
  "",
  filler("bearing", 10),
  "Bearing wear shows first as noise; lubricate the bearing weekly.",
  filler("bearing", 10),
  "",
  "# Appendix",
  "",
  filler("appendix", 10),
  "Spare turbine parts are kept in the north store.",
  filler("appendix", 10),
].join("\n");
const query = "cracked turbine blade bearing";

describe("passages per entry over MCP (PGlite)", () => {
  const clients: Record<string, Client> = {};
  let running: KeyedHub;
  let manualId: string;
  let bobsId: string;

  const hybrid = (caller: string, args: Record<string, unknown>) =>
    callOk<Page>(clients[caller]!, "hybrid_search_context", { query, ...args });

  before(async () => {
    const keys = writeKeysFile([
      { name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: readWrite },
      { name: "bob", tenant: "acme", subject: "bob", groups: [], scopes: readWrite },
    ]);
    running = await startKeyedHub(hubBackends[0]!, keys, clients, { CONTEXT_HUB_SUMMARIES: "false" });
    const store = async (caller: string, text: string) =>
      (
        await callOk<{ context_id: string }>(clients[caller]!, "store_context", {
          thread_id: "manuals",
          source: "user",
          text,
        })
      ).context_id;
    manualId = await store("alice", manual);
    await store("alice", "Short note: the cafeteria budget was approved.");
    bobsId = await store("bob", `# Bob's notes\n\n${filler("private", 3)} A cracked turbine blade and a bad bearing.`);
  });
  after(() => running?.close());

  test("each result carries passages that do not overlap, best first, with node ids and exact ranges", async () => {
    const page = await hybrid("alice", { thread_id: "manuals", passages_per_entry: 3, explain_query: true });
    const hit = page.results.find((result) => result.id === manualId);
    assert.ok(hit !== undefined, "the manual is found");
    const passages = hit.passages!;
    assert.equal(passages.length, 3, JSON.stringify(passages.map((passage) => passage.node_id)));
    for (const passage of passages) {
      assert.equal(manual.slice(passage.start, passage.end), passage.text);
      assert.ok(passage.end - passage.start <= 1_200);
      assert.equal(typeof passage.score, "number");
      const range = await callOk<{ text: string }>(clients.alice!, "read_context_range", {
        context_id: manualId,
        start: passage.start,
        end: passage.end,
      });
      assert.equal(range.text, passage.text);
    }
    for (let index = 1; index < passages.length; index++)
      assert.ok(passages[index - 1]!.score! >= passages[index]!.score!, "best first");
    const byStart = [...passages].sort((a, b) => a.start - b.start);
    for (let index = 1; index < byStart.length; index++)
      assert.ok(byStart[index]!.start >= byStart[index - 1]!.end, "no overlap");
    // Node ids are the outline's: each names the section the passage starts in.
    const outline = await callOk<{ nodes: { node_id: string; start: number; end: number }[] }>(
      clients.alice!,
      "navigate_context",
      { context_id: manualId },
    );
    const ids = new Set(outline.nodes.map((node) => node.node_id));
    for (const passage of passages) {
      assert.ok(ids.has(passage.node_id), `${passage.node_id} is a node of the outline`);
      const deepest = outline.nodes
        .filter((node) => node.start <= passage.start && passage.start < node.end)
        .sort((a, b) => b.start - a.start)[0]!;
      assert.equal(passage.node_id, deepest.node_id);
    }
    assert.ok(passages.some((passage) => passage.node_id === "turbine-manual/blades"));
    assert.ok(page.explain!.stages_ms.entry_passages! >= 0 && page.explain!.stages_ms.passage_rerank! >= 0);
  });

  test("a result with one mention gets one passage; without passages_per_entry results carry none", async () => {
    const page = await hybrid("alice", { thread_id: "manuals", passages_per_entry: 5 });
    assert.ok(page.results.every((result) => Array.isArray(result.passages)));
    const plain = await hybrid("alice", { thread_id: "manuals" });
    assert.ok(plain.results.every((result) => result.passages === undefined));
  });

  test("passages come only from results the caller may see, and their text is fenced for the model", async () => {
    const reply = await callTool(clients.alice!, "hybrid_search_context", {
      query,
      thread_id: "manuals",
      passages_per_entry: 2,
    });
    const page = reply.structuredContent as unknown as Page;
    assert.ok(page.results.every((result) => result.id !== bobsId));
    assert.ok(!textOf(reply).includes("Bob's notes"));
    const passage = page.results.find((result) => result.id === manualId)!.passages![0]!;
    const rendered = textOf(reply);
    const at = rendered.indexOf(JSON.stringify(passage.text).slice(1, 40));
    assert.ok(at > 0, "the passage text is in the rendering");
    assert.match(rendered.slice(Math.max(0, at - 400), at), /UNTRUSTED_DATA/, "under an untrusted-data fence");
    const bobs = await hybrid("bob", { thread_id: "manuals", passages_per_entry: 2 });
    assert.deepEqual(
      bobs.results.map((result) => result.id),
      [bobsId],
    );
    assert.ok(bobs.results[0]!.passages!.every((hit) => hit.text.length > 0));
  });

  test("too many passages in all, or passages with as_of, are refused with a specific message", async () => {
    const tooMany = await callTool(clients.alice!, "hybrid_search_context", {
      query,
      limit: 50,
      passages_per_entry: 5,
    });
    assert.match(failureLine(tooMany), /limit × passages_per_entry may not exceed 200/);
    const past = await callTool(clients.alice!, "hybrid_search_context", {
      query,
      passages_per_entry: 2,
      as_of: new Date().toISOString(),
    });
    assert.match(failureLine(past), /passages_per_entry is not available with as_of/);
    const tooDeep = await callTool(clients.alice!, "hybrid_search_context", { query, passages_per_entry: 6 });
    assert.equal(tooDeep.isError, true);
  });
});
