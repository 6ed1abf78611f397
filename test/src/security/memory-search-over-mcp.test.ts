import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callOk, callTool, failureLine, textOf } from "../support/mcp.js";
import { hubBackends, startKeyedHub } from "../support/keyed-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";

/**
 * Named memories found by the search tools, over the real MCP surface with
 * real API keys: a put's value is found by full-text, semantic and hybrid
 * search (and every other search tool) with `kind: "memory"`, as an entry
 * hit titled by its key, naming the memory in its metadata, its text fenced
 * as untrusted data; a planted neighbour's private memory and another
 * tenant's are found by no search tool; a thread grant on the namespace
 * opens exactly the owner's shared memories in it; and the mirror entry is
 * changed by put_memory and delete_memory alone.
 */

interface Hit {
  id: string;
  kind: string;
  title: string | null;
  thread_id: string;
  metadata: Record<string, unknown>;
}

const backends = hubBackends;

/** Every search tool, asked for memories with `query` in them. */
const searches = (query: string): [string, Record<string, unknown>][] => [
  ["fts_search_context", { query, kind: "memory" }],
  ["semantic_search_context", { query, kind: "memory" }],
  ["hybrid_search_context", { query, kind: "memory" }],
  ["hybrid_search_context", { query, kind: "memory", fts_feedback: true, rerank: true }],
  ["search_context", { kind: "memory" }],
  ["deep_search", { query, kind: "memory" }],
  ["find_items", { query }],
  ["reason", { question: query, kind: "memory" }],
  ["grep_context", { pattern: query.split(" ")[0]!, kind: "memory", case_insensitive: true }],
  ["search", { query }],
];

for (const backend of backends) {
  describe(`memories found by the search tools over MCP (${backend.name})`, () => {
    let closeHub: (() => Promise<void>) | undefined;
    let keys: ReturnType<typeof writeKeysFile>;
    const clients: Record<string, Client> = {};
    let alice: Client;
    let bob: Client;
    let carol: Client;
    let globexAlice: Client;

    before(async () => {
      keys = writeKeysFile([
        { name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: readWrite },
        { name: "bob", tenant: "acme", subject: "bob", groups: [], scopes: readWrite },
        { name: "carol", tenant: "acme", subject: "carol", groups: [], scopes: readWrite },
        { name: "globexAlice", tenant: "globex", subject: "alice", groups: [], scopes: readWrite },
      ]);
      ({ close: closeHub } = await startKeyedHub(backend, keys, clients));
      ({ alice, bob, carol, globexAlice } = clients as Record<"alice" | "bob" | "carol" | "globexAlice", Client>);
      // alice's memories, and planted neighbours under her very names and words.
      await callOk(alice, "put_memory", {
        namespace: "falcon",
        key: "launch plan",
        value: "The quokka launch window opens at dawn.",
        kind: "plan",
        tags: ["pinned"],
      });
      await callOk(alice, "put_memory", {
        namespace: "falcon",
        key: "budget",
        value: "The quokka launch budget is private to alice.",
        visibility: "private",
      });
      await callOk(bob, "put_memory", {
        namespace: "falcon",
        key: "launch plan",
        value: "Bob's private quokka launch plan: wombat codes.",
        visibility: "private",
      });
      await callOk(globexAlice, "put_memory", {
        namespace: "falcon",
        key: "launch plan",
        value: "Globex quokka launch plan: numbat codes.",
        visibility: "tenant",
      });
      // An ordinary entry with the same words, which kind: "memory" leaves out.
      await callOk(alice, "store_context", {
        thread_id: "falcon",
        source: "user",
        text: "Quokka launch notes from the ordinary entry.",
      });
    });

    after(async () => {
      await closeHub?.();
      keys?.dispose();
    });

    test("full-text, semantic and hybrid search with kind memory find a memory by its value, as a fenced entry hit naming it", async () => {
      for (const tool of ["fts_search_context", "semantic_search_context", "hybrid_search_context"]) {
        const result = await callTool(alice, tool, { query: "quokka launch window dawn", kind: "memory" });
        assert.equal(result.isError, undefined, `${tool}: ${textOf(result)}`);
        const { results } = result.structuredContent as { results: Hit[] };
        const plan = results.find((hit) => hit.title === "launch plan");
        assert.ok(plan !== undefined, `${tool} finds the memory`);
        assert.deepEqual(
          [plan.kind, plan.thread_id, plan.metadata],
          [
            "memory",
            "falcon",
            {
              memory_namespace: "falcon",
              memory_key: "launch plan",
              memory_owner: "alice",
              memory_kind: "plan",
              memory_version: 1,
            },
          ],
          tool,
        );
        assert.ok(
          results.every((hit) => hit.kind === "memory"),
          `${tool}: kind memory finds only memories`,
        );
        assert.match(
          textOf(result),
          /<<<UNTRUSTED_DATA nonce=[0-9a-f]{16} entry=[0-9a-f-]{36} source=agent trust=unverified>>>\\nThe quokka launch window opens at dawn\.\\n<<<END_UNTRUSTED_DATA/,
          `${tool} fences the value as untrusted data`,
        );
      }
    });

    test("a neighbour's private memory and another tenant's are found by no search tool", async () => {
      for (const [tool, args] of searches("quokka launch codes")) {
        const result = await callTool(alice, tool, args);
        assert.equal(result.isError, undefined, `${tool}: ${textOf(result)}`);
        const shown = JSON.stringify([textOf(result), result.structuredContent ?? null]);
        assert.doesNotMatch(shown, /wombat|numbat|Bob's|Globex/, `${tool} ${JSON.stringify(args)}`);
      }
      for (const [tool, args] of searches("quokka launch budget")) {
        const result = await callTool(bob, tool, args);
        assert.equal(result.isError, undefined, `bob: ${tool}: ${textOf(result)}`);
        const shown = JSON.stringify([textOf(result), result.structuredContent ?? null]);
        assert.doesNotMatch(
          shown,
          /window opens at dawn|private to alice|numbat/,
          `bob: ${tool} ${JSON.stringify(args)}`,
        );
      }
      // bob finds his own, and only his own.
      const own = await callOk<{ results: Hit[] }>(bob, "fts_search_context", { query: "quokka", kind: "memory" });
      assert.deepEqual(
        own.results.map((hit) => hit.metadata["memory_owner"]),
        ["bob"],
      );
    });

    test("a thread grant on the namespace opens exactly the owner's shared memories in it", async () => {
      const before = await callOk<{ results: Hit[] }>(carol, "fts_search_context", { query: "quokka", kind: "memory" });
      assert.deepEqual(before.results, [], "nothing before the grant");
      await callOk(alice, "share_context", { thread_id: "falcon", subjects: ["carol"], permission: "read" });
      for (const tool of ["fts_search_context", "semantic_search_context", "hybrid_search_context"]) {
        const { results } = await callOk<{ results: Hit[] }>(carol, tool, { query: "quokka launch", kind: "memory" });
        assert.deepEqual(
          results.map((hit) => [hit.metadata["memory_owner"], hit.title]),
          [["alice", "launch plan"]],
          `${tool}: the shared memory only, not the private one, not bob's`,
        );
      }
      // get_memory agrees: the shared one opens, the private one answers as a missing one.
      await callOk(carol, "get_memory", { namespace: "falcon", key: "launch plan", owner: "alice" });
      const hidden = await callTool(carol, "get_memory", { namespace: "falcon", key: "budget", owner: "alice" });
      const missing = await callTool(carol, "get_memory", { namespace: "falcon", key: "ghost", owner: "alice" });
      assert.equal(failureLine(hidden).replace('"budget"', "<key>"), failureLine(missing).replace('"ghost"', "<key>"));
    });

    test("a put moves what search finds; delete_memory removes it; entry tools refuse the mirror naming the memory", async () => {
      await callOk(alice, "put_memory", {
        namespace: "notes",
        key: "status",
        value: "The platypus build is red.",
      });
      await callOk(alice, "put_memory", {
        namespace: "notes",
        key: "status",
        value: "The echidna build is green.",
      });
      const old = await callOk<{ results: Hit[] }>(alice, "fts_search_context", { query: "platypus", kind: "memory" });
      assert.deepEqual(old.results, []);
      const found = await callOk<{ results: Hit[] }>(alice, "semantic_search_context", {
        query: "echidna build green",
        kind: "memory",
        thread_id: "notes",
      });
      const mirror = found.results[0]!;
      assert.deepEqual([mirror.title, mirror.metadata["memory_version"]], ["status", 2]);

      for (const [tool, args] of [
        ["update_context", { context_id: mirror.id, text: "hijacked" }],
        ["delete_context", { context_ids: [mirror.id] }],
        ["share_context", { context_ids: [mirror.id], subjects: ["bob"], permission: "read" }],
      ] as const) {
        const refused = await callTool(alice, tool, args);
        assert.match(
          textOf(refused).replaceAll(`\\"`, `"`),
          new RegExp(
            `entry ${mirror.id} mirrors memory "notes"/"status" of "alice"; change it with put_memory or delete_memory`,
          ),
          tool,
        );
      }
      const kept = await callOk<{ memory: { text: string; version: number } }>(alice, "get_memory", {
        namespace: "notes",
        key: "status",
      });
      assert.deepEqual([kept.memory.text, kept.memory.version], ["The echidna build is green.", 2]);

      await callOk(alice, "delete_memory", { namespace: "notes", key: "status" });
      for (const [tool, args] of searches("echidna build")) {
        const result = await callTool(alice, tool, args);
        assert.equal(result.isError, undefined, `${tool}: ${textOf(result)}`);
        assert.doesNotMatch(
          JSON.stringify([textOf(result), result.structuredContent ?? null]),
          /echidna build is green/,
          `${tool} after the delete`,
        );
      }
    });
  });
}
