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
  let keys: ReturnType<typeof writeKeysFile> | undefined;
  let manualId: string;
  let bobsId: string;
  let planId: string;
  let promptId: string;

  const hybrid = (caller: string, args: Record<string, unknown>) =>
    callOk<Page>(clients[caller]!, "hybrid_search_context", { query, ...args });

  before(async () => {
    keys = writeKeysFile([
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
    const typed = async (kind: string, title: string, text: string) =>
      (
        await callOk<{ context_id: string }>(clients.alice!, "store_context", {
          thread_id: "library",
          source: "user",
          kind,
          title,
          text,
        })
      ).context_id;
    planId = await typed("plan", "Blade replacement plan", "Replace every cracked turbine blade in March.");
    promptId = await typed("prompt", "Bearing check", "Check the turbine bearing for wear and noise.");
    await typed("note", "Blade note", "A cracked blade was seen on turbine two.");
    bobsId = await store("bob", `# Bob's notes\n\n${filler("private", 3)} A cracked turbine blade and a bad bearing.`);
  });
  after(async () => {
    await running?.close();
    keys?.dispose();
  });

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

  test("deep_search ranks passages across entries, each with its entry, node and exact range", async () => {
    const page = await callOk<{
      results: {
        id: string;
        node_id: string;
        start: number;
        end: number;
        text: string;
        score: number;
        entry_rank: number;
      }[];
      count: number;
      entries_read: number;
    }>(clients.alice!, "deep_search", { query, limit: 8, passages_per_entry: 3 });
    assert.ok(page.count > 0 && page.count <= 8);
    assert.equal(page.results.length, page.count);
    for (let index = 1; index < page.results.length; index++)
      assert.ok(page.results[index - 1]!.score >= page.results[index]!.score, "best first");
    assert.ok(
      page.results.every((result) => result.id !== bobsId),
      "only entries the caller may see",
    );
    const fromManual = page.results.filter((result) => result.id === manualId);
    assert.ok(fromManual.length >= 2, "several passages of the long manual rank");
    for (const result of fromManual) assert.equal(manual.slice(result.start, result.end), result.text);
    assert.ok(fromManual.some((result) => result.node_id.startsWith("turbine-manual/")));
    const bobs = await callOk<{ results: { id: string }[] }>(clients.bob!, "deep_search", { query });
    assert.deepEqual([...new Set(bobs.results.map((result) => result.id))], [bobsId]);
  });

  test("find_items groups the best entries by kind, each with its rank, score and a snippet", async () => {
    const page = await callOk<{
      groups: {
        kind: string;
        count: number;
        results: { id: string; rank: number; snippet: string; title: string | null }[];
      }[];
      count: number;
    }>(clients.alice!, "find_items", { query: "cracked turbine blade bearing", thread_id: "library" });
    const kinds = page.groups.map((group) => group.kind);
    assert.deepEqual([...kinds].sort(), ["note", "plan", "prompt"]);
    assert.equal(
      page.groups.reduce((sum, group) => sum + group.count, 0),
      page.count,
    );
    const ranks = page.groups.map((group) => group.results[0]!.rank);
    assert.deepEqual(
      ranks,
      [...ranks].sort((a, b) => a - b),
      "groups in the order of their best result",
    );
    const plan = page.groups.find((group) => group.kind === "plan")!.results[0]!;
    assert.equal(plan.id, planId);
    assert.equal(plan.title, "Blade replacement plan");
    assert.match(plan.snippet, /cracked turbine blade/);
    assert.equal(page.groups.find((group) => group.kind === "prompt")!.results[0]!.id, promptId);
    const onlyPlans = await callOk<{ groups: { kind: string }[] }>(clients.alice!, "find_items", {
      query: "turbine",
      kind: "plan",
    });
    assert.deepEqual(
      onlyPlans.groups.map((group) => group.kind),
      ["plan"],
    );
  });

  test("deep_search and find_items refuse as_of and out-of-range counts, naming the argument", async () => {
    const past = await callTool(clients.alice!, "deep_search", { query, as_of: new Date().toISOString() });
    assert.match(failureLine(past), /deep_search is not available with as_of/);
    const tooDeep = await callTool(clients.alice!, "deep_search", { query, entries: 41 });
    assert.match(failureLine(tooDeep), /entries/);
    const items = await callTool(clients.alice!, "find_items", { query, as_of: new Date().toISOString() });
    assert.match(failureLine(items), /find_items is not available with as_of/);
  });
});
