/** Share and Unshare: grants open exactly what they say, to whom they say, and revoking closes it. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { commonV1, storeV1 } from "@context-hub/proto";
import {
  commitText,
  countRows,
  expectError,
  idsOf,
  newTenant,
  principal,
  randomId,
  tenantFootprint,
  type PrincipalInit,
  type StoreSuiteContext,
} from "./store-fixtures.js";

const subject = (name: string) => ({ kind: storeV1.GranteeKind.SUBJECT, name });
const group = (name: string) => ({ kind: storeV1.GranteeKind.GROUP, name });

export function defineSharingTests(context: StoreSuiteContext): void {
  describe("Share and Unshare", () => {
    const visibleTo = async (caller: PrincipalInit, ids: string[]) =>
      idsOf((await context.client.getEntries({ principal: caller, ids })).entries);
    const canWrite = async (caller: PrincipalInit, id: string) => {
      const reply = await context.client.updateEntries({
        principal: caller,
        updates: [{ id, tags: { tags: [`by-${caller.subject}-${Math.random()}`] } }],
      });
      return reply.results[0]?.ack !== undefined ? "write" : (reply.results[0]?.error?.code ?? "");
    };

    test("sharing entries: private ones become shared, grants are made by the owner, repeats add nothing, and unsharing closes them", async () => {
      const { client, db } = context;
      const tenant = newTenant("share");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const a3 = principal(tenant, "a3", { groups: ["ops"] });
      const a4 = principal(tenant, "a4");
      const note = await commitText(client, a1, "t", "private note");
      const open = await commitText(client, a1, "t", "already tenant-visible", {
        visibility: commonV1.Visibility.TENANT,
      });

      const shared = await client.share({
        principal: a1,
        entryIds: [note.id.slice(0, 23), open.id],
        grantees: [subject("a2"), group("ops"), subject("a2")],
        permission: storeV1.Permission.READ,
      });
      assert.deepEqual(shared.nowSharedIds, [note.id], "only the private entry changes visibility");
      assert.deepEqual(
        shared.grants.map((grant) => [
          grant.entryId,
          grant.threadId,
          grant.grantee?.kind,
          grant.grantee?.name,
          grant.permission,
          grant.grantor,
        ]),
        [
          [note.id, "", storeV1.GranteeKind.SUBJECT, "a2", storeV1.Permission.READ, "a1"],
          [note.id, "", storeV1.GranteeKind.GROUP, "ops", storeV1.Permission.READ, "a1"],
          [open.id, "", storeV1.GranteeKind.SUBJECT, "a2", storeV1.Permission.READ, "a1"],
          [open.id, "", storeV1.GranteeKind.GROUP, "ops", storeV1.Permission.READ, "a1"],
        ],
        "duplicate grantees collapse",
      );
      assert.deepEqual(await visibleTo(a2, [note.id]), [note.id]);
      assert.deepEqual(await visibleTo(a3, [note.id]), [note.id], "a group grant reaches the group's members");
      assert.deepEqual(await visibleTo(a4, [note.id]), [], "and nobody else");
      assert.equal(await canWrite(a2, note.id), "PERMISSION_DENIED", "a read grant is not a write grant");

      const again = await client.share({
        principal: a1,
        entryIds: [note.id],
        grantees: [subject("a2")],
        permission: storeV1.Permission.READ,
      });
      assert.deepEqual(
        [again.nowSharedIds, again.grants.map((grant) => grant.id)],
        [[], [shared.grants[0]!.id]],
        "re-sharing returns the existing grant",
      );
      assert.equal(await countRows(db, "grants", "entry_id = $1", [note.id]), 2);

      await client.share({
        principal: a1,
        entryIds: [note.id],
        grantees: [subject("a2")],
        permission: storeV1.Permission.WRITE,
      });
      assert.equal(await canWrite(a2, note.id), "write");
      assert.equal(await canWrite(a3, note.id), "PERMISSION_DENIED", "the write grant went to a2 only");

      const revokedWrite = await client.unshare({
        principal: a1,
        entryIds: [note.id],
        grantees: [subject("a2")],
        permission: storeV1.Permission.WRITE,
      });
      assert.equal(revokedWrite.revokedCount, 1);
      assert.equal(await canWrite(a2, note.id), "PERMISSION_DENIED");
      assert.deepEqual(await visibleTo(a2, [note.id]), [note.id], "the read grant remains");

      const revokedAll = await client.unshare({ principal: a1, entryIds: [note.id] });
      assert.equal(revokedAll.revokedCount, 2, "no grantees and no permission: every grant on the entry");
      assert.deepEqual([await visibleTo(a2, [note.id]), await visibleTo(a3, [note.id])], [[], []]);
      const stored = (await client.getEntries({ principal: a1, ids: [note.id] })).entries[0]!;
      assert.equal(stored.visibility, commonV1.Visibility.SHARED, "unsharing leaves the visibility as it is");
      assert.equal((await client.unshare({ principal: a1, entryIds: [note.id] })).revokedCount, 0);
    });

    test("sharing a thread covers the caller's entries there, now and later, and nobody else's", async () => {
      const { client } = context;
      const tenant = newTenant("share-thread");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const a3 = principal(tenant, "a3");
      const before = await commitText(client, a1, "project", "written before sharing");
      const elsewhere = await commitText(client, a1, "other", "a1 in another thread");
      const othersEntry = await commitText(client, a3, "project", "a3's entry in the same thread", {
        visibility: commonV1.Visibility.SHARED,
      });

      const shared = await client.share({
        principal: a1,
        threadId: "project",
        grantees: [subject("a2")],
        permission: storeV1.Permission.READ,
      });
      assert.deepEqual(shared.nowSharedIds, [before.id]);
      assert.deepEqual(
        shared.grants.map((grant) => [grant.entryId, grant.threadId, grant.grantor, grant.grantee?.name]),
        [["", "project", "a1", "a2"]],
      );

      const later = await commitText(client, a1, "project", "written after sharing");
      const explicitlyPrivate = await commitText(client, a1, "project", "explicitly private", {
        visibility: commonV1.Visibility.PRIVATE,
      });
      const a3Later = await commitText(client, a3, "project", "a3 writes in the thread too");
      const stored = (await client.getEntries({ principal: a1, ids: [later.id, explicitlyPrivate.id] })).entries;
      assert.deepEqual(
        stored.map((entry) => entry.visibility),
        [commonV1.Visibility.SHARED, commonV1.Visibility.PRIVATE],
        "new entries in a shared thread default to shared; explicit private stays private",
      );

      const all = [before.id, later.id, explicitlyPrivate.id, elsewhere.id, othersEntry.id, a3Later.id];
      assert.deepEqual(await visibleTo(a2, all), [before.id, later.id], "only a1's shared entries in that thread");
      assert.deepEqual(await visibleTo(a3, [later.id]), [], "and only to the grantee");
      const listed = await client.listEntries({ principal: a2, filter: { threadId: "project" } });
      assert.deepEqual(new Set(idsOf(listed.entries)), new Set([before.id, later.id]));
      assert.equal(await canWrite(a2, later.id), "PERMISSION_DENIED");

      assert.equal(await canWrite(a2, explicitlyPrivate.id), "ENTRY_NOT_FOUND");
      // Sharing the thread again shares every private entry of the caller's there, as the first share did.
      const writeShare = await client.share({
        principal: a1,
        threadId: "project",
        grantees: [subject("a2")],
        permission: storeV1.Permission.WRITE,
      });
      assert.deepEqual(writeShare.nowSharedIds, [explicitlyPrivate.id]);
      assert.equal(await canWrite(a2, later.id), "write");
      assert.equal(await canWrite(a2, explicitlyPrivate.id), "write");
      assert.equal(
        await canWrite(a2, othersEntry.id),
        "ENTRY_NOT_FOUND",
        "a3's entry in the thread is not a1's to share",
      );

      const revoked = await client.unshare({ principal: a1, threadId: "project" });
      assert.equal(revoked.revokedCount, 2);
      assert.deepEqual(await visibleTo(a2, all), []);
      const afterRevoke = await commitText(client, a1, "project", "written after unsharing");
      assert.equal(
        (await client.getEntries({ principal: a1, ids: [afterRevoke.id] })).entries[0]!.visibility,
        commonV1.Visibility.PRIVATE,
        "without a thread grant the default is private again",
      );
      const a3Thread = await client.unshare({ principal: a3, threadId: "project" });
      assert.equal(a3Thread.revokedCount, 0, "a thread grant is the grantor's own: another principal cannot revoke it");
    });

    test("only the owner or an admin may share; what the caller cannot see is not found; bad requests are refused", async () => {
      const { client, db } = context;
      const tenant = newTenant("share-errors");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const admin = principal(tenant, "root", { scopes: ["context:read", "context:write", "context:admin"] });
      const open = await commitText(client, a1, "t", "tenant-visible", { visibility: commonV1.Visibility.TENANT });
      const hidden = await commitText(client, a1, "t", "private");
      const read = storeV1.Permission.READ;
      const footprint = await tenantFootprint(db, tenant);

      await expectError(
        client.share({ principal: a2, entryIds: [open.id], grantees: [subject("a3")], permission: read }),
        "PERMISSION_DENIED",
        new RegExp(`only the owner of entry ${open.id} or a tenant admin may share it`),
      );
      await expectError(
        client.unshare({ principal: a2, entryIds: [open.id] }),
        "PERMISSION_DENIED",
        new RegExp(`only the owner of entry ${open.id} or a tenant admin may change its sharing`),
      );
      await expectError(
        client.share({ principal: a2, entryIds: [hidden.id], grantees: [subject("a2")], permission: read }),
        "ENTRY_NOT_FOUND",
        new RegExp(`no entry matches id "${hidden.id}"`),
      );
      await expectError(
        client.share({ principal: a1, entryIds: [hidden.id, randomId()], grantees: [subject("a2")], permission: read }),
        "ENTRY_NOT_FOUND",
      );
      const cases: [string, Parameters<typeof client.share>[0], RegExp][] = [
        [
          "no target",
          { principal: a1, grantees: [subject("a2")], permission: read },
          /give entry_ids, a thread_id or a collection_id/,
        ],
        [
          "both targets",
          { principal: a1, entryIds: [hidden.id], threadId: "t", grantees: [subject("a2")], permission: read },
          /give either entry_ids or thread_id, not both/,
        ],
        [
          "no grantees",
          { principal: a1, entryIds: [hidden.id], permission: read },
          /grantees must name at least one subject or group/,
        ],
        [
          "51 grantees",
          {
            principal: a1,
            entryIds: [hidden.id],
            grantees: Array.from({ length: 51 }, (_, index) => subject(`s${index}`)),
            permission: read,
          },
          /grantees: at most 50 \(got 51\)/,
        ],
        [
          "no kind",
          { principal: a1, entryIds: [hidden.id], grantees: [{ name: "a2" }], permission: read },
          /grantees\[0\]\.kind must be subject or group/,
        ],
        [
          "empty name",
          { principal: a1, entryIds: [hidden.id], grantees: [subject("")], permission: read },
          /grantees\[0\]\.name must be 1 to 256 characters \(got 0\)/,
        ],
        [
          "long name",
          { principal: a1, entryIds: [hidden.id], grantees: [group("g".repeat(257))], permission: read },
          /grantees\[0\]\.name must be 1 to 256 characters \(got 257\)/,
        ],
        [
          "no permission",
          { principal: a1, entryIds: [hidden.id], grantees: [subject("a2")] },
          /permission must be read or write/,
        ],
        [
          "bad id",
          { principal: a1, entryIds: ["x"], grantees: [subject("a2")], permission: read },
          /entry_ids\[0\] "x" is not an entry id/,
        ],
        [
          "bad thread",
          { principal: a1, threadId: "t".repeat(257), grantees: [subject("a2")], permission: read },
          /thread_id must be 1 to 256 characters/,
        ],
      ];
      for (const [label, request, message] of cases) {
        await expectError(client.share(request), "INVALID_ARGUMENT", message).catch((error: Error) =>
          assert.fail(`${label}: ${error.message}`),
        );
      }
      await expectError(
        client.share({
          principal: principal(tenant, "a1", { scopes: ["context:read"] }),
          entryIds: [hidden.id],
          grantees: [subject("a2")],
          permission: read,
        }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      assert.deepEqual(await tenantFootprint(db, tenant), footprint, "no refused call wrote anything");

      const byAdmin = await client.share({
        principal: admin,
        entryIds: [hidden.id],
        grantees: [subject("a2")],
        permission: read,
      });
      assert.deepEqual(
        [byAdmin.nowSharedIds, byAdmin.grants[0]?.grantor],
        [[hidden.id], "a1"],
        "an admin shares on the owner's behalf: the owner is the grantor, so the grant counts",
      );
      assert.deepEqual(await visibleTo(a2, [hidden.id]), [hidden.id]);
      assert.equal((await client.unshare({ principal: admin, entryIds: [hidden.id] })).revokedCount, 1);
    });

    test("ListGrants shows the caller's own grants (an admin's: the tenant's), by entry, thread or collection, and nobody else's", async () => {
      const { client } = context;
      const tenant = newTenant("list-grants");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const admin = principal(tenant, "root", { scopes: ["context:read", "context:write", "context:admin"] });
      const note = await commitText(client, a1, "plans", "a1's plan");
      const other = await commitText(client, a1, "misc", "a1's other note");
      const theirs = await commitText(client, a2, "plans", "a2's plan");
      const read = storeV1.Permission.READ;
      await client.share({ principal: a1, entryIds: [note.id], grantees: [subject("a3")], permission: read });
      await client.share({ principal: a1, threadId: "plans", grantees: [group("ops")], permission: read });
      await client.share({ principal: a1, entryIds: [other.id], grantees: [subject("a4")], permission: read });
      await client.share({ principal: a2, entryIds: [theirs.id], grantees: [subject("a1")], permission: read });
      const shape = (reply: storeV1.ListGrantsResponse) =>
        reply.grants.map((grant) => [grant.entryId || grant.threadId, grant.grantee?.name, grant.grantor]);

      assert.deepEqual(
        shape(await client.listGrants({ principal: a1 })),
        [
          [other.id, "a4", "a1"],
          ["plans", "ops", "a1"],
          [note.id, "a3", "a1"],
        ],
        "every grant a1 made, newest first; a2's grant to a1 is not a1's to list",
      );
      assert.deepEqual(
        shape(await client.listGrants({ principal: a1, entryId: note.id })),
        [
          ["plans", "ops", "a1"],
          [note.id, "a3", "a1"],
        ],
        "an entry's grants include its owner's grant on its thread, which reaches it too",
      );
      assert.deepEqual(shape(await client.listGrants({ principal: a1, threadId: "plans" })), [["plans", "ops", "a1"]]);
      // Another's entry, one that does not exist, and a thread of someone else's grants: the same empty answer.
      const empty = { grants: [], hasMore: false };
      for (const request of [{ entryId: theirs.id }, { entryId: randomId() }, { threadId: "nowhere" }]) {
        const reply = await client.listGrants({ principal: a1, ...request });
        assert.deepEqual({ grants: reply.grants, hasMore: reply.hasMore }, empty, JSON.stringify(request));
      }
      assert.deepEqual(
        shape(await client.listGrants({ principal: a2, grantor: "a1" })),
        [[theirs.id, "a1", "a2"]],
        "grantor narrows an admin's listing only; anyone else still sees only their own",
      );

      const all = await client.listGrants({ principal: admin, limit: 2 });
      assert.deepEqual([all.grants.length, all.hasMore], [2, true]);
      const rest = await client.listGrants({ principal: admin, limit: 2, offset: 2 });
      assert.deepEqual([rest.grants.length, rest.hasMore], [2, false]);
      assert.deepEqual(shape(await client.listGrants({ principal: admin, grantor: "a2" })), [[theirs.id, "a1", "a2"]]);
      const elsewhere = principal(newTenant("list-grants-other"), "root", {
        scopes: ["context:read", "context:write", "context:admin"],
      });
      assert.deepEqual((await client.listGrants({ principal: elsewhere })).grants, [], "another tenant's admin");

      await expectError(
        client.listGrants({ principal: a1, entryId: note.id, threadId: "plans" }),
        "INVALID_ARGUMENT",
        /at most one of entry_id, thread_id and collection_id/,
      );
      await expectError(
        client.listGrants({ principal: a1, entryId: note.id.slice(0, 12) }),
        "INVALID_ARGUMENT",
        /entry_id must be a full entry id/,
      );
      await expectError(client.listGrants({ principal: a1, limit: 101 }), "INVALID_ARGUMENT", /limit must be 1 to 100/);
      await expectError(
        client.listGrants({ principal: principal(tenant, "a1", { scopes: ["context:write"] }) }),
        "PERMISSION_DENIED",
        /context:read/,
      );
    });
  });
}
