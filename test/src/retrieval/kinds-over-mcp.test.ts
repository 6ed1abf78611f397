import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callOk, callTool, failureLine } from "../support/mcp.js";
import { hubBackends, startKeyedHub, type KeyedHub } from "../support/keyed-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";

/**
 * Kinds and titles over the real MCP surface, on PGlite and a PostgreSQL
 * server: the tool schemas name them, every entry view shows them, the kind
 * and title_prefix filters hold on full-text, semantic and hybrid search and
 * on the listing, a kind the store does not accept stores nothing, and
 * history and restore keep them. Planted neighbours (another owner's private
 * entry, another tenant's entry under the same subject) carry the very kind,
 * title and words of the caller's entry and must never show.
 */

interface Listed {
  id: string;
  kind: string;
  title: string | null;
}
interface Page {
  results: Listed[];
  count: number;
}

const words = "Harbor crane maintenance, step by step";
const searches: [string, Record<string, unknown>][] = [
  ["fts_search_context", { query: "harbor crane" }],
  ["semantic_search_context", { query: "harbor crane maintenance" }],
  ["hybrid_search_context", { query: "harbor crane maintenance" }],
  ["search_context", {}],
];

for (const backend of hubBackends) {
  describe(`kinds and titles over MCP (${backend.name})`, () => {
    const clients: Record<string, Client> = {};
    let running: KeyedHub;
    let keys: ReturnType<typeof writeKeysFile> | undefined;
    const ids: Record<string, string> = {};
    const store = async (caller: string, args: Record<string, unknown>) =>
      (
        await callOk<{ context_id: string }>(clients[caller]!, "store_context", {
          thread_id: "cranes",
          source: "user",
          ...args,
        })
      ).context_id;

    before(async () => {
      keys = writeKeysFile([
        { name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: readWrite },
        { name: "bob", tenant: "acme", subject: "bob", groups: [], scopes: readWrite },
        { name: "globexAlice", tenant: "globex", subject: "alice", groups: [], scopes: readWrite },
      ]);
      running = await startKeyedHub(backend, keys, clients);
      ids.guide = await store("alice", { text: `${words}: the guide.`, kind: "document", title: "Crane guide" });
      ids.prompt = await store("alice", { text: `${words}: the prompt.`, kind: "prompt", title: "crane checklist" });
      ids.note = await store("alice", { text: `${words}: a note.` });
      for (const neighbour of ["bob", "globexAlice"])
        await store(neighbour, { text: `${words}: the guide.`, kind: "document", title: "Crane guide" });
    });
    after(async () => {
      await running?.close();
      keys?.dispose();
    });

    test("the tools' schemas name kind and title, in their inputs and in the entries they return", async () => {
      const { tools } = await clients.alice!.listTools();
      const tool = (name: string) => tools.find((candidate) => candidate.name === name)!;
      const inputs = (name: string) => Object.keys(tool(name).inputSchema.properties ?? {});
      for (const name of ["store_context", "update_context"])
        assert.ok(
          ["kind", "title"].every((field) => inputs(name).includes(field)),
          name,
        );
      for (const [name] of searches)
        assert.ok(
          ["kind", "title_prefix"].every((field) => inputs(name).includes(field)),
          name,
        );
      type Schema = { properties?: Record<string, Schema>; items?: Schema };
      const entryFields = (name: string, list: string) =>
        Object.keys((tool(name).outputSchema as Schema).properties?.[list]?.items?.properties ?? {});
      for (const [name, list] of [
        ["get_context_by_ids", "entries"],
        ["search_context", "results"],
        ["fts_search_context", "results"],
        ["semantic_search_context", "results"],
        ["hybrid_search_context", "results"],
        ["get_context_history", "versions"],
      ] as const)
        assert.ok(
          ["kind", "title"].every((field) => entryFields(name, list).includes(field)),
          `${name} shows both`,
        );
    });

    test("every search and the listing filter by kind and title prefix, show both, and never reveal a neighbour", async () => {
      const cases: [Record<string, unknown>, string[]][] = [
        [{}, [ids.guide!, ids.prompt!, ids.note!]],
        [{ kind: "document" }, [ids.guide!]],
        [{ kind: ["document", "prompt"] }, [ids.guide!, ids.prompt!]],
        [{ kind: "note" }, [ids.note!]],
        [{ title_prefix: "CRANE" }, [ids.guide!, ids.prompt!]],
        [{ kind: "prompt", title_prefix: "crane g" }, []],
        [{ kind: "report" }, []],
      ];
      for (const [tool, args] of searches) {
        for (const [filter, expected] of cases) {
          const page = await callOk<Page>(clients.alice!, tool, { ...args, ...filter, limit: 20 });
          assert.deepEqual(
            page.results.map((hit) => hit.id).sort(),
            [...expected].sort(),
            `${tool} ${JSON.stringify(filter)}`,
          );
          assert.equal(page.count, expected.length);
          for (const hit of page.results)
            assert.deepEqual(
              [hit.kind, hit.title],
              hit.id === ids.guide
                ? ["document", "Crane guide"]
                : hit.id === ids.note
                  ? ["note", null]
                  : ["prompt", "crane checklist"],
            );
        }
      }
      const bob = await callOk<Page>(clients.bob!, "search_context", { kind: "prompt" });
      assert.deepEqual(bob.results, [], "alice's private prompt stays hers under a kind filter");
      const bad = await callTool(clients.alice!, "search_context", { kind: "Not a kind" });
      assert.match(failureLine(bad), /kind/);
    });

    test("get_context_by_ids shows kind and title; a kind the store does not accept is refused and stores nothing", async () => {
      const { entries } = await callOk<{ entries: Listed[] }>(clients.alice!, "get_context_by_ids", {
        context_ids: [ids.guide, ids.note],
      });
      assert.deepEqual(
        entries.map((entry) => [entry.kind, entry.title]),
        [
          ["document", "Crane guide"],
          ["note", null],
        ],
      );
      // The connector tools (ChatGPT's search and fetch) name an entry by its own title when it has one.
      const fetched = await callOk<{ title: string }>(clients.alice!, "fetch", { id: ids.guide });
      assert.equal(fetched.title, "Crane guide");
      const found = await callOk<{ results: { id: string; title: string }[] }>(clients.alice!, "search", {
        query: "harbor crane maintenance",
      });
      const titles = new Map(found.results.map((result) => [result.id, result.title]));
      assert.deepEqual(
        [titles.get(ids.guide!), titles.get(ids.note!)],
        ["Crane guide", `${words}: a note.`],
        "an untitled entry is still named by its first line",
      );
      const before = (await callOk<Page>(clients.alice!, "search_context", { limit: 100 })).count;
      const unknown = await callTool(clients.alice!, "store_context", {
        thread_id: "cranes",
        source: "user",
        text: "A recipe for crane grease.",
        kind: "recipe",
      });
      assert.match(
        failureLine(unknown),
        /^INVALID_ARGUMENT: kind "recipe" is not a kind this store accepts; use one of note, document, prompt, plan, report$/,
      );
      const reserved = await callTool(clients.alice!, "store_context", {
        thread_id: "cranes",
        source: "user",
        text: "Not a memory.",
        kind: "memory",
      });
      assert.match(failureLine(reserved), /^INVALID_ARGUMENT: kind "memory" is reserved/);
      const batch = await callTool(clients.alice!, "store_context_batch", {
        entries: [
          { thread_id: "cranes", source: "user", text: "fine" },
          { thread_id: "cranes", source: "user", text: "a title\nin two lines", title: "two\nlines" },
        ],
      });
      assert.match(failureLine(batch), /title must be one line/);
      assert.equal((await callOk<Page>(clients.alice!, "search_context", { limit: 100 })).count, before);
    });

    test("update_context changes kind and title, history keeps each version's, and a restore brings them back", async () => {
      const id = await store("alice", { text: "Quarterly crane plan.", kind: "plan", title: "Q3 crane plan" });
      await callOk(clients.alice!, "update_context", { context_id: id, kind: "report", title: "Q3 crane report" });
      await callOk(clients.alice!, "update_context", { context_id: id, title: "" });
      const history = await callOk<{ versions: { version: number; kind: string; title: string | null }[] }>(
        clients.alice!,
        "get_context_history",
        { context_id: id },
      );
      assert.deepEqual(
        history.versions.map((version) => [version.version, version.kind, version.title]),
        [
          [3, "report", null],
          [2, "report", "Q3 crane report"],
          [1, "plan", "Q3 crane plan"],
        ],
      );
      await callOk(clients.alice!, "restore_context_version", { context_id: id, version: 1 });
      const { entries } = await callOk<{ entries: Listed[] }>(clients.alice!, "get_context_by_ids", {
        context_ids: [id],
      });
      assert.deepEqual([entries[0]?.kind, entries[0]?.title], ["plan", "Q3 crane plan"]);
    });
  });
}
