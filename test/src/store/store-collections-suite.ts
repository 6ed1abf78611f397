/** Collections over the store's CollectionsService: order, pages, deletes, sharing through the access predicate, hidden = missing, search by collection. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createGrpcClient } from "@context-hub/common";
import { searchV1, storeV1 } from "@context-hub/proto";
import {
  commitText,
  expectError,
  expectIndistinguishable,
  generatedFor,
  idsOf,
  principal,
  principalTrio,
  randomId,
  startTestStore,
  type PrincipalInit,
  type StoreClient,
  type StoreSuiteContext,
} from "./store-fixtures.js";

const subject = (name: string) => ({ kind: storeV1.GranteeKind.SUBJECT, name });
const group = (name: string) => ({ kind: storeV1.GranteeKind.GROUP, name });

async function create(client: StoreClient, caller: PrincipalInit, name: string, description = "") {
  const { collection } = await client.createCollection({ principal: caller, name, description });
  assert.ok(collection !== undefined);
  return collection;
}

async function memberIds(client: StoreClient, caller: PrincipalInit, id: string, limit = 100) {
  const reply = await client.getCollection({ principal: caller, id, limit });
  return reply.members.map((member) => member.entry!.id);
}

/** The actions of a tenant's audit records, oldest first. */
async function auditActions(context: StoreSuiteContext, tenant: string): Promise<string[]> {
  const { rows } = await context.db.query<{ action: string }>(
    "SELECT action FROM audit_log WHERE tenant = $1 ORDER BY seq",
    [tenant],
  );
  return rows.map((row) => row.action);
}

export function defineCollectionTests(context: StoreSuiteContext): void {
  describe("collections", () => {
    test("an entry deleted while it is being added is not found, and the collection is left as it was", async () => {
      const { client, db } = context;
      const { a1 } = principalTrio("collections-add-race");
      const kept = await commitText(client, a1, "library", "an entry that stays");
      const doomed = await commitText(client, a1, "library", "an entry deleted while it is being added");
      const made = await create(client, a1, "Racing");
      let adding: Promise<unknown> | undefined;
      // The delete holds the entry's row until it commits; the add, started meanwhile, has already resolved the id
      // (on a server) and waits for that row. On PGlite the add runs after the commit, and finds nothing to resolve.
      await db.transaction(async (tx) => {
        await tx.query("DELETE FROM entries WHERE id = $1", [doomed.id]);
        adding = client.addToCollection({ principal: a1, id: made.id, entryIds: [kept.id, doomed.id] });
        adding.catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 300));
      });
      await expectError(adding!, "ENTRY_NOT_FOUND", new RegExp(doomed.id));
      assert.deepEqual(await memberIds(client, a1, made.id), [], "nothing was added, not even the entry that stays");
      const added = await client.addToCollection({ principal: a1, id: made.id, entryIds: [kept.id] });
      assert.deepEqual(added.addedIds, [kept.id], "positive control: the entry that stays can be added");
    });

    test("create, add at the end and at a place, reorder (partly and wholly), rename with compare-and-set, page, remove", async () => {
      const { client } = context;
      const { a1 } = principalTrio("collections-crud");
      const [e1, e2, e3, e4] = await Promise.all(
        ["one", "two", "three", "four"].map((text) => commitText(client, a1, "library", `entry ${text}`)),
      );
      const ids = [e1!.id, e2!.id, e3!.id, e4!.id];
      const made = await create(client, a1, "  Reading list ", "Papers to read");
      assert.deepEqual(
        [made.name, made.description, made.version, made.memberCount, made.owner],
        ["Reading list", "Papers to read", 1, 0, "a1"],
      );

      const added = await client.addToCollection({ principal: a1, id: made.id, entryIds: [ids[0]!, ids[1]!] });
      assert.deepEqual([added.addedIds, added.collection!.memberCount], [[ids[0], ids[1]], 2]);
      await client.addToCollection({ principal: a1, id: made.id, entryIds: [ids[2]!], position: 1 });
      await client.addToCollection({ principal: a1, id: made.id, entryIds: [ids[3]!.slice(0, 13)], position: 3 });
      assert.deepEqual(await memberIds(client, a1, made.id), [ids[2], ids[0], ids[3], ids[1]], "placed, a prefix too");
      const again = await client.addToCollection({ principal: a1, id: made.id, entryIds: [ids[0]!] });
      assert.deepEqual([again.addedIds, again.alreadyMemberIds], [[], [ids[0]]], "a member stays where it is");

      await client.reorderCollection({ principal: a1, id: made.id, entryIds: [ids[1]!, ids[0]!] });
      assert.deepEqual(
        await memberIds(client, a1, made.id),
        [ids[1], ids[0], ids[2], ids[3]],
        "listed first, the rest after in their order",
      );
      await client.reorderCollection({ principal: a1, id: made.id, entryIds: [...ids].reverse() });
      assert.deepEqual(await memberIds(client, a1, made.id), [...ids].reverse(), "a full list sets the whole order");
      const outsider = await commitText(client, a1, "library", "not a member");
      await expectError(
        client.reorderCollection({ principal: a1, id: made.id, entryIds: [outsider.id] }),
        "INVALID_ARGUMENT",
        /is not a member of collection/,
      );

      const first = await client.getCollection({ principal: a1, id: made.id, limit: 3 });
      assert.deepEqual(
        first.members.map((member) => [member.entry!.id, member.position, member.entry!.text, member.addedBy]),
        [
          [ids[3], 1, "", "a1"],
          [ids[2], 2, "", "a1"],
          [ids[1], 3, "", "a1"],
        ],
        "ranked, without full text",
      );
      assert.equal(first.members[0]!.entry!.preview, "entry four");
      const second = await client.getCollection({ principal: a1, id: made.id, limit: 3, cursor: first.nextCursor });
      assert.deepEqual(
        [second.members.map((member) => [member.entry!.id, member.position]), second.nextCursor],
        [[[ids[0], 4]], ""],
      );

      const version = (await client.getCollection({ principal: a1, id: made.id })).collection!.version;
      const conflict = await expectError(
        client.updateCollection({ principal: a1, id: made.id, name: "Stale", expectedVersion: version - 1 }),
        "VERSION_CONFLICT",
      );
      assert.match(conflict.remedy ?? "", new RegExp(`expected_version ${version}$`));
      const renamed = await client.updateCollection({
        principal: a1,
        id: made.id,
        name: "Canon",
        expectedVersion: version,
      });
      assert.deepEqual([renamed.collection!.name, renamed.collection!.description], ["Canon", "Papers to read"]);
      await expectError(client.updateCollection({ principal: a1, id: made.id }), "INVALID_ARGUMENT", /give a new name/);
      await expectError(
        client.createCollection({ principal: a1, name: " " }),
        "INVALID_ARGUMENT",
        /name must not be empty/,
      );

      const removed = await client.removeFromCollection({
        principal: a1,
        id: made.id,
        entryIds: [ids[0]!, outsider.id],
      });
      assert.deepEqual([removed.removedIds, removed.collection!.memberCount], [[ids[0]], 3]);

      const names = ["b", "c", "a"];
      for (const name of names) await create(client, a1, name);
      const page1 = await client.listCollections({ principal: a1, limit: 2 });
      const page2 = await client.listCollections({ principal: a1, limit: 2, cursor: page1.nextCursor });
      assert.deepEqual(
        [...page1.collections, ...page2.collections].map((collection) => [collection.name, collection.memberCount]),
        [
          ["a", 0],
          ["b", 0],
          ["c", 0],
          ["Canon", 3],
        ],
      );
      assert.equal(page2.nextCursor, "");
      await expectError(
        client.listCollections({ principal: a1, cursor: "not-a-cursor" }),
        "INVALID_ARGUMENT",
        /cursor is not one list_collections gave/,
      );
    });

    test("an entry sits in two collections; deleting one keeps its entries; deleting an entry leaves both", async () => {
      const { client } = context;
      const { a1, tenantA } = principalTrio("collections-two");
      const shared = await commitText(client, a1, "t", "in both");
      const other = await commitText(client, a1, "t", "in one");
      const left = await create(client, a1, "left");
      const right = await create(client, a1, "right");
      await client.addToCollection({ principal: a1, id: left.id, entryIds: [shared.id, other.id] });
      await client.addToCollection({ principal: a1, id: right.id, entryIds: [shared.id] });
      assert.deepEqual(await memberIds(client, a1, left.id), [shared.id, other.id]);
      assert.deepEqual(await memberIds(client, a1, right.id), [shared.id]);

      const deleted = await client.deleteCollection({ principal: a1, id: left.id });
      assert.deepEqual([deleted.name, deleted.removedMembers], ["left", 2]);
      const stillThere = await client.getEntries({ principal: a1, ids: [shared.id, other.id] });
      assert.deepEqual(idsOf(stillThere.entries), [shared.id, other.id], "the entries stay");
      await expectError(client.getCollection({ principal: a1, id: left.id }), "ENTRY_NOT_FOUND");
      assert.deepEqual(
        (await client.listCollections({ principal: a1 })).collections.map((collection) => collection.name),
        ["right"],
      );

      await client.deleteEntries({ principal: a1, ids: [shared.id], atomic: true });
      const after = await client.getCollection({ principal: a1, id: right.id });
      assert.deepEqual([after.members.length, after.collection!.memberCount], [0, 0]);
      assert.deepEqual(
        await auditActions(context, tenantA).then((actions) => actions.filter((a) => a.startsWith("collection."))),
        ["collection.create", "collection.create", "collection.members", "collection.members", "collection.delete"],
      );
    });

    test("another principal's private collection, and another tenant's, fail exactly like a missing one on every call", async () => {
      const { client } = context;
      const { a1, a2, b1 } = principalTrio("collections-hidden");
      const mine = await commitText(client, a2, "t", "a2's own entry");
      const hidden = await create(client, a1, "private plans");
      const theirs = await commitText(client, b1, "t", "globex entry");
      const foreign = await create(client, b1, "globex plans");
      await client.addToCollection({ principal: b1, id: foreign.id, entryIds: [theirs.id] });
      const missing = randomId();
      const calls: [string, (id: string) => Promise<unknown>][] = [
        ["get", (id) => client.getCollection({ principal: a2, id })],
        ["update", (id) => client.updateCollection({ principal: a2, id, name: "x" })],
        [
          "update expected_version",
          (id) => client.updateCollection({ principal: a2, id, name: "x", expectedVersion: 9 }),
        ],
        ["delete", (id) => client.deleteCollection({ principal: a2, id })],
        ["add", (id) => client.addToCollection({ principal: a2, id, entryIds: [mine.id] })],
        ["remove", (id) => client.removeFromCollection({ principal: a2, id, entryIds: [mine.id] })],
        ["reorder", (id) => client.reorderCollection({ principal: a2, id, entryIds: [mine.id] })],
        [
          "share",
          (id) =>
            client.share({
              principal: a2,
              collectionId: id,
              grantees: [subject("a2")],
              permission: storeV1.Permission.READ,
            }),
        ],
        ["unshare", (id) => client.unshare({ principal: a2, collectionId: id })],
      ];
      for (const [label, call] of calls) {
        for (const probe of [hidden.id, foreign.id]) {
          const error = await expectIndistinguishable(call(probe), probe, call(missing), missing, label);
          assert.equal(error.code, "ENTRY_NOT_FOUND", label);
        }
      }
      assert.deepEqual((await client.listCollections({ principal: a2 })).collections, []);
      for (const id of [hidden.id, foreign.id, missing]) {
        const listed = await client.listEntries({ principal: a2, filter: { collectionId: id } });
        assert.deepEqual(listed.entries, [], "a collection filter on a collection a2 cannot see matches nothing");
      }
      // An entry the caller cannot see cannot be added: it is missing too.
      const own = await create(client, a2, "mine");
      const invisible = await commitText(client, a1, "t", "a1's private entry");
      const missingEntry = randomId();
      await expectIndistinguishable(
        client.addToCollection({ principal: a2, id: own.id, entryIds: [invisible.id] }),
        invisible.id,
        client.addToCollection({ principal: a2, id: own.id, entryIds: [missingEntry] }),
        missingEntry,
        "add a hidden entry",
      );
    });

    test("sharing a collection opens exactly its owner's members, now and later, and revoking closes them", async () => {
      const { client, db, options } = context;
      const { a1, a2, tenantA } = principalTrio("collections-share");
      const a3 = principal(tenantA, "a3", { groups: ["readers"] });
      const [m1, m2, outside] = await Promise.all(
        ["harbor crane one", "harbor crane two", "harbor crane outside"].map((text) =>
          commitText(client, a1, "t", text),
        ),
      );
      // a2 lets a1 (only) read one of a2's entries; a1 puts it in the collection: sharing the collection must not widen it.
      const borrowed = await commitText(client, a2, "t", "harbor crane borrowed");
      await client.share({
        principal: a2,
        entryIds: [borrowed.id],
        grantees: [subject("a1")],
        permission: storeV1.Permission.READ,
      });
      const list = await create(client, a1, "cranes");
      await client.addToCollection({ principal: a1, id: list.id, entryIds: [m1!.id, borrowed.id, m2!.id] });
      assert.equal((await client.getCollection({ principal: a1, id: list.id })).collection!.memberCount, 3);

      await expectError(
        client.share({
          principal: a1,
          collectionId: list.id,
          grantees: [group("readers")],
          permission: storeV1.Permission.WRITE,
        }),
        "INVALID_ARGUMENT",
        /shared for reading only/,
      );
      const shared = await client.share({
        principal: a1,
        collectionId: list.id,
        grantees: [group("readers")],
        permission: storeV1.Permission.READ,
      });
      assert.deepEqual(shared.nowSharedIds, [m1!.id, m2!.id].sort(), "the owner's private members became shared");
      assert.equal(shared.grants[0]?.collectionId, list.id);

      const seen = await client.getCollection({ principal: a3, id: list.id });
      assert.deepEqual(
        [seen.members.map((member) => [member.entry!.id, member.position]), seen.collection!.memberCount],
        [
          [
            [m1!.id, 1],
            [m2!.id, 2],
          ],
          2,
        ],
        "the borrowed member is neither listed nor counted for a3",
      );
      const fetched = await client.getEntries({ principal: a3, ids: [m1!.id, m2!.id, borrowed.id, outside!.id] });
      assert.deepEqual(idsOf(fetched.entries), [m1!.id, m2!.id], "get_context opens the members, and nothing else");
      assert.deepEqual(
        (await client.listCollections({ principal: a3 })).collections.map((collection) => collection.id),
        [list.id],
      );

      // A later member of the owner's opens too; after the revoke, everything closes.
      const later = await commitText(client, a1, "t", "harbor crane later");
      const addedLater = await client.addToCollection({
        principal: a1,
        id: list.id,
        entryIds: [later.id],
        position: 1,
      });
      assert.deepEqual([addedLater.nowSharedIds, addedLater.notOpenedIds], [[later.id], []]);
      // Another of a2's entries, added once the collection is shared: said not to be opened, and not opened.
      const borrowedLater = await commitText(client, a2, "t", "harbor crane borrowed later");
      await client.share({
        principal: a2,
        entryIds: [borrowedLater.id],
        grantees: [subject("a1")],
        permission: storeV1.Permission.READ,
      });
      const addedBorrowed = await client.addToCollection({ principal: a1, id: list.id, entryIds: [borrowedLater.id] });
      assert.deepEqual([addedBorrowed.nowSharedIds, addedBorrowed.notOpenedIds], [[], [borrowedLater.id]]);
      await client.removeFromCollection({ principal: a1, id: list.id, entryIds: [borrowedLater.id] });
      assert.deepEqual(await memberIds(client, a3, list.id), [later.id, m1!.id, m2!.id]);

      const searching = await startTestStore(options, db);
      const search = createGrpcClient(searchV1.SearchService, {
        address: `127.0.0.1:${searching.service.port}`,
        peer: "store",
        deadlineMs: 60_000,
      });
      try {
        const fullText = async (caller: PrincipalInit, collectionId: string) =>
          (
            await search.fullTextSearch({
              principal: caller,
              query: "harbor crane",
              filter: { collectionId },
              limit: 20,
            })
          ).hits
            .map((hit) => hit.entry!.id)
            .sort();
        const semantic = async (caller: PrincipalInit, collectionId: string) =>
          (
            await search.semanticSearch({
              principal: caller,
              embeddingModel: "test-model",
              vector: generatedFor("harbor crane one").chunks[0]!.vector,
              filter: { collectionId },
              limit: 20,
            })
          ).hits
            .map((hit) => hit.entry!.id)
            .sort();
        assert.deepEqual(await fullText(a1, list.id), [m1!.id, m2!.id, borrowed.id, later.id].sort());
        assert.deepEqual(await fullText(a3, list.id), [m1!.id, m2!.id, later.id].sort());
        assert.deepEqual(await semantic(a3, list.id), [m1!.id, m2!.id, later.id].sort());
        const listed = await client.listEntries({ principal: a3, filter: { collectionId: list.id } });
        assert.deepEqual(idsOf(listed.entries).sort(), [m1!.id, m2!.id, later.id].sort());

        await expectError(
          client.addToCollection({ principal: a3, id: list.id, entryIds: [m1!.id] }),
          "PERMISSION_DENIED",
          /may read collection .* but not change it/,
        );
        await expectError(
          client.updateCollection({ principal: a3, id: list.id, name: "mine now" }),
          "PERMISSION_DENIED",
        );

        const revoked = await client.unshare({ principal: a1, collectionId: list.id });
        assert.equal(revoked.revokedCount, 1);
        await expectError(client.getCollection({ principal: a3, id: list.id }), "ENTRY_NOT_FOUND");
        assert.deepEqual((await client.getEntries({ principal: a3, ids: [m1!.id, later.id] })).entries, []);
        assert.deepEqual(await fullText(a3, list.id), []);
        assert.deepEqual((await client.listEntries({ principal: a3, filter: { collectionId: list.id } })).entries, []);
      } finally {
        search.close();
        await searching.close();
      }
      const actions = await auditActions(context, tenantA);
      assert.ok(actions.includes("collection.share") && actions.includes("collection.unshare"), actions.join());
    });

    test("deleting a shared collection revokes its grants; a read-only principal cannot write", async () => {
      const { client } = context;
      const { a1, a2, tenantA } = principalTrio("collections-delete-shared");
      const entry = await commitText(client, a1, "t", "opened by the collection");
      const list = await create(client, a1, "to delete");
      await client.addToCollection({ principal: a1, id: list.id, entryIds: [entry.id] });
      await client.share({
        principal: a1,
        collectionId: list.id,
        grantees: [subject("a2")],
        permission: storeV1.Permission.READ,
      });
      assert.deepEqual(idsOf((await client.getEntries({ principal: a2, ids: [entry.id] })).entries), [entry.id]);
      const deleted = await client.deleteCollection({ principal: a1, id: list.id });
      assert.deepEqual([deleted.removedMembers, deleted.revokedGrants], [1, 1]);
      assert.deepEqual((await client.getEntries({ principal: a2, ids: [entry.id] })).entries, []);

      const reader = principal(tenantA, "a1", { scopes: ["context:read"] });
      const own = await create(client, a1, "kept");
      await expectError(
        client.createCollection({ principal: reader, name: "no" }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      await expectError(
        client.addToCollection({ principal: reader, id: own.id, entryIds: [entry.id] }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      await expectError(
        client.deleteCollection({ principal: reader, id: own.id }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      assert.equal((await client.getCollection({ principal: reader, id: own.id })).collection!.name, "kept");
    });

    test("an idempotency key replays a create instead of making a second collection", async () => {
      const { client } = context;
      const { a1 } = principalTrio("collections-idempotent");
      const idempotency = { key: "create-once", fingerprint: "f1" };
      const first = await client.createCollection({ principal: a1, name: "once", idempotency });
      const again = await client.createCollection({ principal: a1, name: "once", idempotency });
      assert.equal(again.collection!.id, first.collection!.id);
      assert.equal((await client.listCollections({ principal: a1 })).collections.length, 1);
    });
  });
}
