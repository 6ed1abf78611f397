import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { callOk, callTool, failureLine, textOf } from "../support/mcp.js";
import { hubBackends, startKeyedHub } from "../support/keyed-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";

/**
 * Collections over the real MCP surface with real API keys, on PGlite and a
 * PostgreSQL server: the eight collection tools end to end (order, reorder,
 * pages, an entry in two collections, a delete that keeps the entries),
 * search by collection_id, and planted neighbours: bob beside alice in acme
 * and a "bob" in globex get, for alice's private collection, exactly the
 * answer a missing one gets on every tool; sharing the collection with bob
 * opens exactly alice's members (present and future) to every read path and
 * revoking closes them; a member bob cannot see is neither listed nor
 * counted; a read-only key writes nothing.
 */

interface CollectionView {
  collection_id: string;
  name: string;
  description: string;
  owner: string;
  version: number;
  member_count: number;
}
interface Member {
  position: number;
  entry: { id: string; title: string | null; kind: string; thread_id: string; preview: string };
}
interface Got {
  collection: CollectionView;
  members: Member[];
  count: number;
  has_more: boolean;
  next_cursor: string | null;
}

const collectionToolNames = [
  "create_collection",
  "update_collection",
  "delete_collection",
  "list_collections",
  "get_collection",
  "add_to_collection",
  "remove_from_collection",
  "reorder_collection",
];

/** A result's text and structured content with `id` replaced and request ids dropped: how a hidden and a missing collection are compared. */
const shape = (result: CallToolResult, id: string) => ({
  isError: result.isError,
  text: textOf(result)
    .split(id)
    .join("<id>")
    .replace(/Request id: \S+/g, ""),
  structured: JSON.stringify(result.structuredContent ?? null)
    .split(id)
    .join("<id>"),
});

for (const backend of hubBackends) {
  describe(`collections over MCP (${backend.name})`, () => {
    let closeHub: (() => Promise<void>) | undefined;
    let keys: ReturnType<typeof writeKeysFile>;
    const clients: Record<string, Client> = {};
    const store = async (caller: string, text: string, extra: Record<string, unknown> = {}) =>
      (
        await callOk<{ context_id: string }>(clients[caller]!, "store_context", {
          thread_id: "library",
          source: "user",
          text,
          ...extra,
        })
      ).context_id;
    const get = (caller: string, id: string, extra: Record<string, unknown> = {}) =>
      callOk<Got>(clients[caller]!, "get_collection", { collection_id: id, ...extra });
    const memberIds = async (caller: string, id: string) => (await get(caller, id)).members.map((m) => m.entry.id);

    before(async () => {
      keys = writeKeysFile([
        { name: "alice", tenant: "acme", subject: "alice", groups: ["eng"], scopes: readWrite },
        { name: "bob", tenant: "acme", subject: "bob", groups: ["eng"], scopes: readWrite },
        { name: "carol", tenant: "acme", subject: "carol", groups: [], scopes: readWrite },
        { name: "globexBob", tenant: "globex", subject: "bob", groups: ["eng"], scopes: readWrite },
        { name: "reader", tenant: "acme", subject: "alice", groups: [], scopes: ["context:read"] },
      ]);
      ({ close: closeHub } = await startKeyedHub(backend, keys, clients));
    });

    after(async () => {
      await closeHub?.();
      keys?.dispose();
    });

    test("tools/list offers the collection tools by scope, with output schemas and read-only hints", async () => {
      const tools = new Map((await clients.alice!.listTools()).tools.map((tool) => [tool.name, tool]));
      for (const name of collectionToolNames) {
        const tool = tools.get(name);
        assert.ok(tool !== undefined, `${name} is listed`);
        assert.equal(tool.outputSchema?.type, "object", `${name} has an output schema`);
        assert.equal(tool.annotations?.readOnlyHint, ["list_collections", "get_collection"].includes(name), name);
      }
      const readerTools = new Set((await clients.reader!.listTools()).tools.map((tool) => tool.name));
      assert.deepEqual(
        collectionToolNames.filter((name) => readerTools.has(name)),
        ["list_collections", "get_collection"],
      );
    });

    test("create, add in place, reorder, page, rename, an entry in two collections, delete keeps the entries, search by collection", async () => {
      const alice = clients.alice!;
      const guide = await store("alice", "The harbor crane guide.", { kind: "document", title: "Crane guide" });
      const checklist = await store("alice", "The harbor crane checklist.", { kind: "plan", title: "Checklist" });
      const brief = await store("alice", "Write a harbor crane brief.", { kind: "prompt", title: "Brief" });
      const stray = await store("alice", "A harbor crane note outside every collection.");
      const { collection } = await callOk<{ collection: CollectionView }>(alice, "create_collection", {
        name: "Crane library",
        description: "What the crane crew reads",
      });
      assert.deepEqual([collection.owner, collection.version, collection.member_count], ["alice", 1, 0]);
      const id = collection.collection_id;
      await callOk(alice, "add_to_collection", { collection_id: id, context_ids: [guide, checklist] });
      const added = await callOk<{ added_ids: string[]; collection: CollectionView }>(alice, "add_to_collection", {
        collection_id: id,
        context_ids: [brief],
        position: 2,
      });
      assert.deepEqual([added.added_ids, added.collection.member_count], [[brief], 3]);
      const got = await get("alice", id);
      assert.deepEqual(
        got.members.map((member) => [member.position, member.entry.id, member.entry.title, member.entry.kind]),
        [
          [1, guide, "Crane guide", "document"],
          [2, brief, "Brief", "prompt"],
          [3, checklist, "Checklist", "plan"],
        ],
        "members named as listings name entries, in the owner's order",
      );
      assert.equal(got.members[0]!.entry.thread_id, "library");
      assert.match(textOf(await callTool(alice, "get_collection", { collection_id: id })), /<<<UNTRUSTED_DATA/);

      await callOk(alice, "reorder_collection", { collection_id: id, context_ids: [checklist] });
      assert.deepEqual(await memberIds("alice", id), [checklist, guide, brief]);
      const page1 = await get("alice", id, { limit: 2 });
      const page2 = await get("alice", id, { limit: 2, cursor: page1.next_cursor });
      assert.deepEqual(
        [page1.has_more, [...page1.members, ...page2.members].map((m) => m.position), page2.next_cursor],
        [true, [1, 2, 3], null],
      );

      const stale = await callTool(alice, "update_collection", { collection_id: id, name: "x", expected_version: 7 });
      assert.match(failureLine(stale), /^VERSION_CONFLICT: collection .* is at version 1, not the expected 7/);
      const renamed = await callOk<{ collection: CollectionView }>(alice, "update_collection", {
        collection_id: id,
        name: "Crane canon",
        expected_version: 1,
      });
      assert.deepEqual([renamed.collection.name, renamed.collection.version], ["Crane canon", 2]);

      const other = (await callOk<{ collection: CollectionView }>(alice, "create_collection", { name: "Also" }))
        .collection.collection_id;
      await callOk(alice, "add_to_collection", { collection_id: other, context_ids: [guide] });
      const listed = await callOk<{ collections: CollectionView[] }>(alice, "list_collections", {});
      assert.deepEqual(
        listed.collections.map((c) => [c.name, c.member_count]),
        [
          ["Also", 1],
          ["Crane canon", 3],
        ],
      );

      for (const tool of ["fts_search_context", "hybrid_search_context", "semantic_search_context"]) {
        const found = await callOk<{ results: { id: string }[] }>(alice, tool, {
          query: "harbor crane",
          collection_id: id,
        });
        assert.deepEqual(found.results.map((hit) => hit.id).sort(), [guide, checklist, brief].sort(), tool);
        assert.ok(!found.results.some((hit) => hit.id === stray));
      }
      const inOther = await callOk<{ results: { id: string }[] }>(alice, "search_context", { collection_id: other });
      assert.deepEqual(
        inOther.results.map((hit) => hit.id),
        [guide],
      );

      await callOk(alice, "remove_from_collection", { collection_id: id, context_ids: [brief] });
      const deleted = await callOk<{ removed_members: number }>(alice, "delete_collection", { collection_id: id });
      assert.equal(deleted.removed_members, 2);
      const kept = await callOk<{ entries: { id: string }[] }>(alice, "get_context_by_ids", {
        context_ids: [guide, checklist, brief],
      });
      assert.equal(kept.entries.length, 3, "deleting a collection keeps its entries");
      assert.deepEqual(await memberIds("alice", other), [guide], "and the other collection keeps its member");
      assert.match(
        failureLine(await callTool(alice, "get_collection", { collection_id: id })),
        /^ENTRY_NOT_FOUND: no collection .* that you can see/,
      );
      // A read-only key is refused before any tool runs (-32001, naming the scope), and nothing changes.
      await assert.rejects(
        callTool(clients.reader!, "create_collection", { name: "nope" }),
        /needs scope context:write/,
      );
      await assert.rejects(
        callTool(clients.reader!, "add_to_collection", { collection_id: other, context_ids: [stray] }),
        /needs scope context:write/,
      );
      await assert.rejects(callTool(clients.reader!, "delete_collection", { collection_id: other }), /context:write/);
      assert.deepEqual(await memberIds("alice", other), [guide]);
      assert.deepEqual(
        (await callOk<{ collections: CollectionView[] }>(clients.reader!, "list_collections", {})).collections.map(
          (c) => c.name,
        ),
        ["Also"],
      );
    });

    test("alice's private collection answers bob and globex's bob exactly as a missing one, on every tool", async () => {
      const alice = clients.alice!;
      const secret = await store("alice", "Alice's private crane notes.");
      const bobsOwn = await store("bob", "Bob's own crane notes.");
      const globexOwn = await store("globexBob", "Globex crane notes.");
      const { collection } = await callOk<{ collection: CollectionView }>(alice, "create_collection", {
        name: "Private cranes",
      });
      await callOk(alice, "add_to_collection", { collection_id: collection.collection_id, context_ids: [secret] });
      const ghost = "01900000-0000-7000-8000-00000000abcd";
      for (const [caller, entry] of [
        ["bob", bobsOwn],
        ["globexBob", globexOwn],
      ] as const) {
        const client = clients[caller]!;
        const calls: [string, Record<string, unknown>][] = [
          ["get_collection", {}],
          ["update_collection", { name: "mine" }],
          ["update_collection", { description: "mine", expected_version: 1 }],
          ["delete_collection", {}],
          ["add_to_collection", { context_ids: [entry] }],
          ["remove_from_collection", { context_ids: [entry] }],
          ["reorder_collection", { context_ids: [entry] }],
          ["share_context", { subjects: [caller], permission: "read" }],
          ["unshare_context", {}],
          ["search_context", {}],
          ["fts_search_context", { query: "crane" }],
        ];
        for (const [tool, args] of calls) {
          const hidden = await callTool(client, tool, { collection_id: collection.collection_id, ...args });
          const missing = await callTool(client, tool, { collection_id: ghost, ...args });
          assert.deepEqual(
            shape(hidden, collection.collection_id),
            shape(missing, ghost),
            `${caller} ${tool}: hidden = missing`,
          );
        }
        const listed = await callOk<{ collections: CollectionView[] }>(client, "list_collections", {});
        assert.ok(!listed.collections.some((c) => c.collection_id === collection.collection_id), caller);
      }
      // Adding an entry the caller cannot see fails exactly as adding one that does not exist.
      const bobs = (await callOk<{ collection: CollectionView }>(clients.bob!, "create_collection", { name: "Bob's" }))
        .collection.collection_id;
      const hiddenEntry = await callTool(clients.bob!, "add_to_collection", {
        collection_id: bobs,
        context_ids: [secret],
      });
      const missingEntry = await callTool(clients.bob!, "add_to_collection", {
        collection_id: bobs,
        context_ids: [ghost],
      });
      assert.deepEqual(shape(hiddenEntry, secret), shape(missingEntry, ghost));
    });

    test("sharing opens exactly the owner's members, now and later, to every read path; revoking closes them", async () => {
      const alice = clients.alice!;
      const bob = clients.bob!;
      const one = await store("alice", "Sealed crane spec one.");
      const two = await store("alice", "Sealed crane spec two.");
      const outside = await store("alice", "Sealed crane spec outside.");
      // carol lets alice alone read an entry; alice puts it in her collection: sharing the collection must not widen it.
      const carols = await store("carol", "Sealed crane spec by carol.");
      await callOk(clients.carol!, "share_context", { context_ids: [carols], subjects: ["alice"], permission: "read" });
      const id = (await callOk<{ collection: CollectionView }>(alice, "create_collection", { name: "Sealed" }))
        .collection.collection_id;
      await callOk(alice, "add_to_collection", { collection_id: id, context_ids: [one, carols, two] });
      const before = await callTool(bob, "get_context_by_ids", { context_ids: [one, two] });
      assert.deepEqual((before.structuredContent as { entries: unknown[] }).entries, []);

      const refused = await callTool(alice, "share_context", {
        collection_id: id,
        subjects: ["bob"],
        permission: "write",
      });
      assert.match(failureLine(refused), /shared for reading only/);
      const shared = await callOk<{ grants: { collection_id: string | null }[]; now_shared_ids: string[] }>(
        alice,
        "share_context",
        { collection_id: id, groups: ["eng"], permission: "read" },
      );
      assert.deepEqual(
        [shared.grants.map((grant) => grant.collection_id), shared.now_shared_ids],
        [[id], [one, two].sort()],
      );

      const seen = await get("bob", id);
      assert.deepEqual(
        [seen.members.map((m) => [m.position, m.entry.id]), seen.collection.member_count, seen.count],
        [
          [
            [1, one],
            [2, two],
          ],
          2,
          2,
        ],
        "carol's entry is neither listed nor counted for bob",
      );
      const fetched = await callOk<{ entries: { id: string }[]; missing: string[] }>(bob, "get_context_by_ids", {
        context_ids: [one, two, carols, outside],
      });
      assert.deepEqual(
        fetched.entries.map((entry) => entry.id),
        [one, two],
      );
      const uri = (entry: string) => `context-hub://entries/${entry}`;
      const bobsResources = async () => (await bob.listResources()).resources.map((resource) => resource.uri);
      const resourcesShared = await bobsResources();
      assert.ok(resourcesShared.includes(uri(one)) && !resourcesShared.includes(uri(carols)), "resources/list too");
      assert.match(JSON.stringify(await bob.readResource({ uri: uri(two) })), /Sealed crane spec two/);
      const later = await store("alice", "Sealed crane spec later.");
      await callOk(alice, "add_to_collection", { collection_id: id, context_ids: [later] });
      const carolsLater = await store("carol", "Carol's later note.");
      await callOk(clients.carol!, "share_context", {
        context_ids: [carolsLater],
        subjects: ["alice"],
        permission: "read",
      });
      const notOpened = await callOk<{ not_opened_ids: string[]; message: string }>(alice, "add_to_collection", {
        collection_id: id,
        context_ids: [carolsLater],
      });
      assert.deepEqual(notOpened.not_opened_ids, [carolsLater]);
      assert.match(notOpened.message, /sharing this collection does not open them to its grantees/);
      await callOk(alice, "remove_from_collection", { collection_id: id, context_ids: [carolsLater] });
      const searched = await callOk<{ results: { id: string }[] }>(bob, "fts_search_context", {
        query: "sealed crane spec",
      });
      assert.deepEqual(searched.results.map((hit) => hit.id).sort(), [one, two, later].sort(), "a future member opens");
      const inCollection = await callOk<{ results: { id: string }[] }>(bob, "hybrid_search_context", {
        query: "sealed crane spec",
        collection_id: id,
      });
      assert.deepEqual(inCollection.results.map((hit) => hit.id).sort(), [one, two, later].sort());
      const write = await callTool(bob, "add_to_collection", { collection_id: id, context_ids: [later] });
      assert.match(failureLine(write), /^PERMISSION_DENIED: you may read collection .* but not change it/);
      assert.equal((await callTool(bob, "update_context", { context_id: one, text: "changed" })).isError, true);

      await callOk(alice, "unshare_context", { collection_id: id });
      assert.match(failureLine(await callTool(bob, "get_collection", { collection_id: id })), /^ENTRY_NOT_FOUND/);
      const closed = await callOk<{ entries: unknown[] }>(bob, "get_context_by_ids", {
        context_ids: [one, two, later],
      });
      assert.deepEqual(closed.entries, []);
      const after = await callOk<{ results: unknown[] }>(bob, "fts_search_context", { query: "sealed crane spec" });
      assert.deepEqual(after.results, []);
      assert.ok(!(await bobsResources()).includes(uri(one)));
      await assert.rejects(bob.readResource({ uri: uri(two) }), /resource not found/);
      const globex = await callOk<{ results: unknown[] }>(clients.globexBob!, "search_context", { collection_id: id });
      assert.deepEqual(globex.results, [], "another tenant sees nothing");
    });
  });
}
