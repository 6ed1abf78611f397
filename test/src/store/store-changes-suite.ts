/** UpdateEntries and DeleteEntries: what changes, who may change it, and what an error leaves behind. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { contentHash, vectorToBytes } from "@context-hub/common";
import { commonV1, type storeV1 } from "@context-hub/proto";
import {
  commitText,
  countRows,
  expectError,
  generatedFor,
  insertGrant,
  newTenant,
  principal,
  randomId,
  tenantFootprint,
  textEntry,
  type StoreSuiteContext,
} from "./store-fixtures.js";

/** An EntryUpdate's fields as plain data, without the id. */
type EntryUpdateFields = Omit<
  Exclude<MessageInitShape<typeof storeV1.EntryUpdateSchema>, storeV1.EntryUpdate>,
  "id" | "$typeName"
>;

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

export function defineChangeTests(context: StoreSuiteContext): void {
  describe("UpdateEntries", () => {
    test("text, metadata, tags, images and visibility change; everything derived from the text is replaced; a no-op keeps the version", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("update"), "a1");
      const text = "# Plan\n\nShip on Friday.";
      const created = (
        await client.commit({
          principal: caller,
          entry: textEntry("t", text, {
            tags: ["plan"],
            metadata: { status: "draft" },
            images: [{ mimeType: "image/png", data: png }],
          }),
          generated: generatedFor(text, {
            summary: "old summary",
            nodeSummaries: [
              { nodeId: "plan", heading: "Plan", level: 1, span: { start: 0, end: text.length }, summary: "old node" },
            ],
          }),
        })
      ).ack!;

      const newText = "# Plan\n\nShip on Monday instead.\n\n## Why\n\nFriday is a freeze.";
      const why = newText.indexOf("## Why");
      const generated = {
        ...generatedFor(newText, { summary: "new summary" }),
        chunks: [
          { ordinal: 0, span: { start: 0, end: 10 }, vector: vectorToBytes([1, 0, 0, 0]) },
          { ordinal: 1, span: { start: 10, end: why }, vector: vectorToBytes([0, 1, 0, 0]) },
          { ordinal: 2, span: { start: why, end: newText.length }, vector: vectorToBytes([0, 0, 1, 0]) },
        ],
        nodeSummaries: [
          { nodeId: "plan", heading: "Plan", level: 1, span: { start: 0, end: why }, summary: "moved to Monday" },
          {
            nodeId: "plan/why",
            heading: "Why",
            level: 2,
            span: { start: why, end: newText.length },
            summary: "freeze",
          },
        ],
      };
      const textChange = await client.updateEntries({
        principal: caller,
        updates: [{ id: created.id, expectedVersion: 1, text: newText, generated }],
      });
      const ack = textChange.results[0]!.ack!;
      assert.deepEqual(
        [ack.id, ack.version, ack.contentHash, ack.deduplicated],
        [created.id, 2, contentHash(newText), false],
      );
      assert.equal(textChange.results[0]!.requestedId, created.id);

      const stored = (await client.getEntries({ principal: caller, ids: [created.id] })).entries[0]!;
      assert.deepEqual(
        [stored.text, stored.summary, stored.chunkCount, stored.version],
        [newText, "new summary", 3, 2],
      );
      assert.deepEqual(
        stored.nodeSummaries.map((node) => [node.nodeId, node.summary]),
        [
          ["plan", "moved to Monday"],
          ["plan/why", "freeze"],
        ],
      );
      assert.deepEqual(
        [stored.tags, stored.metadata, stored.images.length],
        [["plan"], { status: "draft" }, 1],
        "fields not given stay as they were",
      );
      const spans = await db.query<{ start_offset: number; end_offset: number }>(
        "SELECT start_offset, end_offset FROM chunks WHERE entry_id = $1 ORDER BY ordinal",
        [created.id],
      );
      assert.deepEqual(
        spans.rows.map((row) => [row.start_offset, row.end_offset]),
        [
          [0, 10],
          [10, why],
          [why, newText.length],
        ],
        "only the new text's chunks remain",
      );
      const search = await db.query<{ hit: boolean }>(
        "SELECT search_vector @@ plainto_tsquery('english', 'monday') AS hit FROM entries WHERE id = $1",
        [created.id],
      );
      assert.equal(search.rows[0]?.hit, true, "full text follows the new text");

      const version = async (update: EntryUpdateFields) =>
        (await client.updateEntries({ principal: caller, updates: [{ id: created.id, ...update }] })).results[0]!.ack!;
      assert.equal((await version({ metadata: { status: "final", n: 1 } })).version, 3);
      assert.equal((await version({ tags: { tags: ["Plan", "release"] } })).version, 4);
      assert.equal((await version({ images: { images: [] } })).version, 5);
      const withoutImages = (await client.getEntries({ principal: caller, ids: [created.id] })).entries[0]!;
      assert.deepEqual(
        [withoutImages.images.length, withoutImages.contentType, withoutImages.tags],
        [0, "text", ["plan", "release"]],
      );
      assert.equal(await countRows(db, "entry_images", "entry_id = $1", [created.id]), 0);

      const before = withoutImages.updatedAt!;
      const noOp = await version({
        expectedVersion: 5,
        text: newText,
        metadata: { n: 1, status: "final" },
        tags: { tags: ["plan", "release"] },
        images: { images: [] },
        visibility: commonV1.Visibility.PRIVATE,
      });
      assert.equal(
        noOp.version,
        5,
        "nothing differs: no new version, even without generation output for the (unchanged) text",
      );
      assert.deepEqual(timestampDate(noOp.updatedAt!), timestampDate(before));
      assert.equal((await version({ visibility: commonV1.Visibility.TENANT })).version, 6);
      assert.equal(
        (await client.getEntries({ principal: principal(caller.tenant!, "a2"), ids: [created.id] })).entries.length,
        1,
        "now tenant-visible",
      );
    });

    test("version conflicts and bad input are refused with specific messages and change nothing", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("update-errors"), "a1");
      const entry = await commitText(client, caller, "t", "Version one.");
      await client.updateEntries({ principal: caller, updates: [{ id: entry.id, tags: { tags: ["v2"] } }] });
      const footprint = await tenantFootprint(db, caller.tenant!);

      // Atomic calls fail as a whole with the item's error; non-atomic ones report it per item (next test).
      const conflict = await expectError(
        client.updateEntries({
          principal: caller,
          atomic: true,
          updates: [{ id: entry.id, expectedVersion: 1, tags: { tags: ["late"] } }],
        }),
        "VERSION_CONFLICT",
        new RegExp(`entry ${entry.id} is at version 2, not the expected 1`),
      );
      assert.equal(conflict.remedy, "retry with expected_version 2");
      assert.equal(conflict.details.current_version, 2);

      const newText = "Version two.";
      const update = (fields: EntryUpdateFields) =>
        client.updateEntries({ principal: caller, atomic: true, updates: [{ id: entry.id, ...fields }] });
      await expectError(
        update({ text: newText }),
        "INVALID_ARGUMENT",
        /updates\[0\]\.generated is required: the text changes/,
      );
      await expectError(
        update({ text: newText, generated: generatedFor("Some other text") }),
        "INVALID_ARGUMENT",
        /updates\[0\]\.generated\.text_hash does not match the text/,
      );
      await expectError(
        update({ text: newText, generated: generatedFor(newText, { textHash: "" }) }),
        "INVALID_ARGUMENT",
        /updates\[0\]\.generated\.text_hash is required/,
      );
      await expectError(
        update({ generated: generatedFor(newText) }),
        "INVALID_ARGUMENT",
        /updates\[0\]\.generated is only accepted together with a new text/,
      );
      await expectError(update({ text: "" }), "INVALID_ARGUMENT", /updates\[0\]\.text must not be empty/);
      await expectError(update({ expectedVersion: 0 }), "INVALID_ARGUMENT", /expected_version must be at least 1/);
      await expectError(
        update({ metadata: { blob: "m".repeat(65_536) } }),
        "INVALID_ARGUMENT",
        /updates\[0\]\.metadata is 65547 bytes/,
      );
      await expectError(
        update({ images: { images: [{ mimeType: "text/plain", data: png }] } }),
        "INVALID_ARGUMENT",
        /updates\[0\]\.images\[0\]\.mime_type "text\/plain"/,
      );
      await expectError(
        update({ visibility: 7 as commonV1.Visibility }),
        "INVALID_ARGUMENT",
        /updates\[0\]\.visibility 7 is not a known visibility/,
      );
      await expectError(
        client.updateEntries({ principal: caller, atomic: true, updates: [{ id: "nope" }] }),
        "INVALID_ARGUMENT",
        /updates\[0\]\.id "nope" is not an entry id/,
      );
      await expectError(
        client.updateEntries({ principal: caller, updates: [] }),
        "INVALID_ARGUMENT",
        /updates must list 1 to 100 items \(got 0\)/,
      );
      await expectError(
        client.updateEntries({ principal: caller, updates: Array.from({ length: 101 }, () => ({ id: entry.id })) }),
        "INVALID_ARGUMENT",
        /\(got 101\)/,
      );
      await expectError(
        client.updateEntries({
          principal: principal(caller.tenant!, "a1", { scopes: ["context:read"] }),
          updates: [{ id: entry.id }],
        }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      await expectError(client.updateEntries({ updates: [{ id: entry.id }] }), "UNAUTHENTICATED", /no principal/);
      const missing = randomId();
      await expectError(
        client.updateEntries({ principal: caller, atomic: true, updates: [{ id: missing }] }),
        "ENTRY_NOT_FOUND",
        new RegExp(`no entry matches id "${missing}"`),
      );
      assert.deepEqual(await tenantFootprint(db, caller.tenant!), footprint, "nothing was written");

      // The refused requests made valid are accepted, so each refusal was about its one defect.
      const fixed = await update({ expectedVersion: 2, text: newText, generated: generatedFor(newText) });
      assert.equal(fixed.results[0]!.ack!.version, 3);
    });

    test("non-atomic updates report per item; atomic ones fail whole on any item and change nothing", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("update-batch"), "a1");
      const first = await commitText(client, caller, "t", "first");
      const second = await commitText(client, caller, "t", "second");
      const missing = randomId();

      const mixed = await client.updateEntries({
        principal: caller,
        updates: [
          { id: first.id, tags: { tags: ["ok"] } },
          { id: second.id, expectedVersion: 9, tags: { tags: ["late"] } },
          { id: missing, tags: { tags: ["x"] } },
          { id: second.id, text: "changed without generation" },
        ],
      });
      assert.deepEqual(
        mixed.results.map((result) => [result.requestedId, result.ack?.version ?? null, result.error?.code ?? null]),
        [
          [first.id, 2, null],
          [second.id, null, "VERSION_CONFLICT"],
          [missing, null, "ENTRY_NOT_FOUND"],
          [second.id, null, "INVALID_ARGUMENT"],
        ],
      );
      assert.equal(
        mixed.results[1]!.error!.message,
        `entry ${second.id} is at version 1, not the expected 9; retry with expected_version 1`,
      );
      assert.equal(mixed.results[2]!.error!.message, `no entry matches id "${missing}"`);

      const footprint = await tenantFootprint(db, caller.tenant!);
      await expectError(
        client.updateEntries({
          principal: caller,
          atomic: true,
          updates: [
            { id: first.id, tags: { tags: ["atomic"] } },
            { id: second.id, expectedVersion: 9, tags: { tags: ["x"] } },
          ],
        }),
        "VERSION_CONFLICT",
        /is at version 1, not the expected 9/,
      );
      await expectError(
        client.updateEntries({
          principal: caller,
          atomic: true,
          updates: [{ id: first.id, tags: { tags: ["atomic"] } }, { id: "bad" }],
        }),
        "INVALID_ARGUMENT",
        /updates\[1\]\.id/,
      );
      assert.deepEqual(await tenantFootprint(db, caller.tenant!), footprint, "the failed atomic calls changed nothing");
      assert.deepEqual((await client.getEntries({ principal: caller, ids: [first.id] })).entries[0]!.tags, ["ok"]);

      const atomic = await client.updateEntries({
        principal: caller,
        atomic: true,
        updates: [
          { id: first.id, tags: { tags: ["a"] } },
          { id: second.id, expectedVersion: 1, tags: { tags: ["b"] } },
          { id: first.id, expectedVersion: 3, tags: { tags: ["c"] } },
        ],
      });
      assert.deepEqual(
        atomic.results.map((result) => result.ack?.version),
        [3, 2, 4],
        "one entry twice in one call: the second sees the first's version",
      );
    });

    test("write access: owner, a write grant from the owner on a non-private entry, or admin; visibility only by owner or admin", async () => {
      const { client, db } = context;
      const tenant = newTenant("update-access");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const a3 = principal(tenant, "a3", { groups: ["editors"] });
      const admin = principal(tenant, "root", { scopes: ["context:read", "context:write", "context:admin"] });
      const open = await commitText(client, a1, "t", "tenant-visible", { visibility: commonV1.Visibility.TENANT });
      const readShared = await commitText(client, a1, "t", "shared for reading", {
        visibility: commonV1.Visibility.SHARED,
      });
      const writeShared = await commitText(client, a1, "t", "shared for writing", {
        visibility: commonV1.Visibility.SHARED,
      });
      const groupShared = await commitText(client, a1, "team", "shared with the editors", {
        visibility: commonV1.Visibility.SHARED,
      });
      const privateWithGrant = await commitText(client, a1, "t", "private, though granted");
      await insertGrant(db, {
        tenant,
        grantor: "a1",
        entryId: readShared.id,
        granteeKind: "subject",
        grantee: "a2",
        permission: "read",
      });
      await insertGrant(db, {
        tenant,
        grantor: "a1",
        entryId: writeShared.id,
        granteeKind: "subject",
        grantee: "a2",
        permission: "write",
      });
      await insertGrant(db, {
        tenant,
        grantor: "a1",
        threadId: "team",
        granteeKind: "group",
        grantee: "editors",
        permission: "write",
      });
      await insertGrant(db, {
        tenant,
        grantor: "a1",
        entryId: privateWithGrant.id,
        granteeKind: "subject",
        grantee: "a2",
        permission: "write",
      });

      const tag = (caller: typeof a1, id: string, tags: string[]) =>
        client.updateEntries({ principal: caller, atomic: true, updates: [{ id, tags: { tags } }] });
      for (const id of [open.id, readShared.id]) {
        const denied = await expectError(
          tag(a2, id, ["x"]),
          "PERMISSION_DENIED",
          new RegExp(`you may read entry ${id} but not change it`),
        );
        assert.match(denied.remedy ?? "", /write grant/);
        // Decided on the locked row before anything else: a reader's no-op is not a success, nor a stale version a mere conflict.
        await expectError(tag(a2, id, []), "PERMISSION_DENIED", /but not change it/);
        await expectError(
          client.updateEntries({
            principal: a2,
            atomic: true,
            updates: [{ id, expectedVersion: 99, tags: { tags: ["x"] } }],
          }),
          "PERMISSION_DENIED",
          /but not change it/,
        );
      }
      await expectError(tag(a2, privateWithGrant.id, ["x"]), "ENTRY_NOT_FOUND", /no entry matches id/);
      assert.equal(
        (await tag(a2, writeShared.id, ["by-a2"])).results[0]!.ack!.version,
        2,
        "a write grant lets its grantee change the entry",
      );
      const newText = "rewritten by a2";
      assert.equal(
        (
          await client.updateEntries({
            principal: a2,
            updates: [{ id: writeShared.id, text: newText, generated: generatedFor(newText) }],
          })
        ).results[0]!.ack!.version,
        3,
      );
      await expectError(
        client.updateEntries({
          principal: a2,
          atomic: true,
          updates: [{ id: writeShared.id, visibility: commonV1.Visibility.TENANT }],
        }),
        "PERMISSION_DENIED",
        new RegExp(`only the owner of entry ${writeShared.id} or a tenant admin may change its visibility`),
      );
      assert.equal(
        (
          await client.updateEntries({
            principal: a2,
            updates: [{ id: writeShared.id, visibility: commonV1.Visibility.SHARED }],
          })
        ).results[0]!.ack!.version,
        3,
        "restating the visibility is no change",
      );
      assert.equal(
        (await tag(a3, groupShared.id, ["by-editor"])).results[0]!.ack!.version,
        2,
        "a group's thread write grant covers the owner's shared entries in the thread",
      );
      await expectError(tag(a3, writeShared.id, ["x"]), "ENTRY_NOT_FOUND", /no entry matches id/);
      assert.equal(
        (
          await client.updateEntries({
            principal: admin,
            updates: [{ id: privateWithGrant.id, visibility: commonV1.Visibility.TENANT, tags: { tags: ["admin"] } }],
          })
        ).results[0]!.ack!.version,
        2,
      );
      const stored = (await client.getEntries({ principal: a1, ids: [writeShared.id, privateWithGrant.id] })).entries;
      assert.deepEqual(
        stored.map((entry) => [entry.owner, entry.text, entry.visibility]),
        [
          ["a1", newText, commonV1.Visibility.SHARED],
          ["a1", "private, though granted", commonV1.Visibility.TENANT],
        ],
        "ownership never moves",
      );
      // Owner making the entry private again shuts the write grant (private means the owner alone).
      await client.updateEntries({
        principal: a1,
        updates: [{ id: writeShared.id, visibility: commonV1.Visibility.PRIVATE }],
      });
      await expectError(tag(a2, writeShared.id, ["x"]), "ENTRY_NOT_FOUND");
    });
  });

  describe("DeleteEntries", () => {
    test("deleting by id or prefix removes the entry with its images, chunks, node summaries and grants", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("delete"), "a1");
      const text = "# Doomed\n\nThis entry will be deleted.";
      const doomed = (
        await client.commit({
          principal: caller,
          entry: textEntry("t", text, {
            images: [{ mimeType: "image/png", data: png }],
            visibility: commonV1.Visibility.SHARED,
          }),
          generated: generatedFor(text, {
            nodeSummaries: [
              { nodeId: "d", heading: "Doomed", level: 1, span: { start: 0, end: text.length }, summary: "s" },
            ],
          }),
        })
      ).ack!;
      const kept = await commitText(client, caller, "t", "kept");
      await insertGrant(db, {
        tenant: caller.tenant!,
        grantor: "a1",
        entryId: doomed.id,
        granteeKind: "subject",
        grantee: "a2",
      });
      const children = async (id: string) => [
        await countRows(db, "chunks", "entry_id = $1", [id]),
        await countRows(db, "node_summaries", "entry_id = $1", [id]),
        await countRows(db, "entry_images", "entry_id = $1", [id]),
        await countRows(db, "grants", "entry_id = $1", [id]),
      ];
      assert.deepEqual(await children(doomed.id), [2, 1, 1, 1]);

      const prefix = doomed.id.replace(/-/g, "").slice(0, 20);
      const reply = await client.deleteEntries({ principal: caller, ids: [prefix, doomed.id] });
      assert.deepEqual(
        reply.results.map((result) => [result.requestedId, result.id, result.error ?? null]),
        [
          [prefix, doomed.id, null],
          [doomed.id, doomed.id, null],
        ],
        "named twice (prefix and full id): deleted once, reported for both",
      );
      assert.equal(reply.deletedCount, 1);
      assert.deepEqual(await children(doomed.id), [0, 0, 0, 0]);
      assert.equal(await countRows(db, "entries", "id = $1", [doomed.id]), 0);
      assert.deepEqual((await client.getEntries({ principal: caller, ids: [doomed.id, kept.id] })).missing, [
        doomed.id,
      ]);
      await expectError(
        client.deleteEntries({ principal: caller, ids: [doomed.id], atomic: true }),
        "ENTRY_NOT_FOUND",
        new RegExp(`no entry matches id "${doomed.id}"`),
      );
    });

    test("non-atomic deletes report per item; an atomic delete with any bad item deletes nothing", async () => {
      const { client, db } = context;
      const tenant = newTenant("delete-batch");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const mine = await commitText(client, a1, "t", "mine");
      const alsoMine = await commitText(client, a1, "t", "also mine");
      const theirsOpen = await commitText(client, a2, "t", "theirs, tenant-visible", {
        visibility: commonV1.Visibility.TENANT,
      });
      const missing = randomId();

      const footprint = await tenantFootprint(db, tenant);
      for (const bad of [missing, theirsOpen.id]) {
        await expectError(
          client.deleteEntries({ principal: a1, atomic: true, ids: [mine.id, bad] }),
          bad === missing ? "ENTRY_NOT_FOUND" : "PERMISSION_DENIED",
        );
      }
      assert.deepEqual(await tenantFootprint(db, tenant), footprint, "the failed atomic deletes removed nothing");

      const reply = await client.deleteEntries({ principal: a1, ids: [mine.id, missing, theirsOpen.id, alsoMine.id] });
      assert.deepEqual(
        reply.results.map((result) => [result.id, result.error?.code ?? null]),
        [
          [mine.id, null],
          ["", "ENTRY_NOT_FOUND"],
          ["", "PERMISSION_DENIED"],
          [alsoMine.id, null],
        ],
      );
      assert.equal(
        reply.results[2]!.error!.message,
        `you may read entry ${theirsOpen.id} but not change it; ask its owner for a write grant (it must also not be private), or an admin to make the change`,
      );
      assert.equal(reply.deletedCount, 2);
      assert.equal(
        await countRows(db, "entries", "tenant = $1", [tenant]),
        1,
        "only the entry a1 may not change is left",
      );
    });

    test("deleting a thread removes exactly the entries the caller may change there, and reports only those", async () => {
      const { client, db } = context;
      const tenant = newTenant("delete-thread");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const mine = await commitText(client, a1, "work", "mine, in the thread");
      const myOther = await commitText(client, a1, "elsewhere", "mine, elsewhere");
      const writable = await commitText(client, a2, "work", "a2's, writable by a1", {
        visibility: commonV1.Visibility.SHARED,
      });
      const readable = await commitText(client, a2, "work", "a2's, only readable by a1", {
        visibility: commonV1.Visibility.TENANT,
      });
      const invisible = await commitText(client, a2, "work", "a2's private");
      await insertGrant(db, {
        tenant,
        grantor: "a2",
        entryId: writable.id,
        granteeKind: "subject",
        grantee: "a1",
        permission: "write",
      });

      const reply = await client.deleteEntries({ principal: a1, threadId: "work" });
      assert.deepEqual(new Set(reply.results.map((result) => result.id)), new Set([mine.id, writable.id]));
      assert.ok(reply.results.every((result) => result.error === undefined && result.requestedId === result.id));
      assert.equal(reply.deletedCount, 2);
      const left = await db.query<{ id: string }>("SELECT id FROM entries WHERE tenant = $1 ORDER BY id", [tenant]);
      assert.deepEqual(
        left.rows.map((row) => row.id),
        [myOther.id, readable.id, invisible.id].sort(),
      );
      const again = await client.deleteEntries({ principal: a1, threadId: "work" });
      assert.deepEqual([again.results, again.deletedCount], [[], 0], "nothing left to delete is no error");
    });

    test("bad delete requests are refused with specific messages", async () => {
      const { client } = context;
      const caller = principal(newTenant("delete-invalid"), "a1");
      const entry = await commitText(client, caller, "t", "still here");
      await expectError(
        client.deleteEntries({ principal: caller }),
        "INVALID_ARGUMENT",
        /give the ids to delete, or a thread_id/,
      );
      await expectError(
        client.deleteEntries({ principal: caller, ids: [entry.id], threadId: "t" }),
        "INVALID_ARGUMENT",
        /give either ids or thread_id, not both/,
      );
      await expectError(
        client.deleteEntries({ principal: caller, ids: Array.from({ length: 101 }, () => entry.id) }),
        "INVALID_ARGUMENT",
        /ids must list 1 to 100 items \(got 101\)/,
      );
      await expectError(
        client.deleteEntries({ principal: caller, ids: [entry.id, "zz"] }),
        "INVALID_ARGUMENT",
        /ids\[1\] "zz" is not an entry id/,
      );
      await expectError(
        client.deleteEntries({ principal: caller, threadId: "t".repeat(257) }),
        "INVALID_ARGUMENT",
        /thread_id must be 1 to 256 characters/,
      );
      await expectError(
        client.deleteEntries({
          principal: principal(caller.tenant!, "a1", { scopes: ["context:read"] }),
          ids: [entry.id],
        }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      assert.equal((await client.getEntries({ principal: caller, ids: [entry.id] })).entries.length, 1);
    });
  });
}
