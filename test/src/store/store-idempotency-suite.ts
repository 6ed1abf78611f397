/** Idempotency keys: a retry replays the first response and writes nothing; a reuse with other arguments is refused. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { commonV1, storeV1 } from "@context-hub/proto";
import { commitText, countRows, expectError, generatedFor, newTenant, principal, tenantFootprint, textEntry, type StoreSuiteContext } from "./store-fixtures.js";

const { NEW, REPLAY, CONFLICT } = storeV1.CheckIdempotencyResponse_State;

/** Whether two responses are the same message, byte for byte. */
function assertSameResponse<S extends DescMessage>(schema: S, replay: MessageShape<S>, first: MessageShape<S>, label: string): void {
  assert.deepEqual(replay, first, label);
  assert.deepEqual(toBinary(schema, replay), toBinary(schema, first), `${label}: byte for byte`);
}

export function defineIdempotencyTests(context: StoreSuiteContext): void {
  describe("idempotency keys", () => {
    test("a Commit retry with the same key replays the first acknowledgement and writes nothing, even without generation output", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("idem-commit"), "a1");
      const key = { key: "commit-1", fingerprint: "fp-1" };
      const text = "Stored exactly once.";
      const check = async (fingerprint: string) => (await client.checkIdempotency({ principal: caller, idempotency: { key: key.key, fingerprint } })).state;

      assert.equal(await check("fp-1"), NEW);
      assert.equal(await countRows(db, "idempotency_keys", "tenant = $1", [caller.tenant]), 0, "checking writes nothing");
      const first = await client.commit({ principal: caller, entry: textEntry("t", text), generated: generatedFor(text), idempotency: key });
      const footprint = await tenantFootprint(db, caller.tenant!);
      assert.deepEqual([await check("fp-1"), await check("fp-2")], [REPLAY, CONFLICT]);

      const replay = await client.commit({ principal: caller, entry: textEntry("t", text), idempotency: key });
      assertSameResponse(storeV1.CommitResponseSchema, replay, first, "the replay is the first response");
      assert.equal(replay.ack?.deduplicated, false, "a replay is not a fold: it is the first call's answer");
      // Not even the entry is needed: the key is checked before anything else.
      assertSameResponse(storeV1.CommitResponseSchema, await client.commit({ principal: caller, idempotency: key }), first, "replay without an entry");
      assert.deepEqual(await tenantFootprint(db, caller.tenant!), footprint, "replays write nothing");

      await expectError(
        client.commit({ principal: caller, entry: textEntry("t", "other text"), generated: generatedFor("other text"), idempotency: { ...key, fingerprint: "fp-2" } }),
        "INVALID_ARGUMENT",
        /idempotency key "commit-1" was already used with different arguments/,
      );
      await expectError(
        client.updateEntries({ principal: caller, updates: [{ id: first.ack!.id, tags: { tags: ["x"] } }], idempotency: key }),
        "INVALID_ARGUMENT",
        /idempotency key "commit-1" was already used with different arguments/,
      );
      assert.deepEqual(await tenantFootprint(db, caller.tenant!), footprint, "refused reuses write nothing");

      // Keys belong to a principal: another one's identical key is a different key.
      const a2 = principal(caller.tenant!, "a2");
      assert.equal((await client.checkIdempotency({ principal: a2, idempotency: key })).state, NEW);
      const theirs = await client.commit({ principal: a2, entry: textEntry("t", text), generated: generatedFor(text), idempotency: key });
      assert.notEqual(theirs.ack?.id, first.ack?.id);
      assert.equal(await countRows(db, "entries", "tenant = $1", [caller.tenant]), 2);
      const otherTenant = principal(newTenant("idem-commit-other"), "a1");
      assert.equal((await client.checkIdempotency({ principal: otherTenant, idempotency: key })).state, NEW);
    });

    test("every mutation replays its first response and writes nothing on a retry", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("idem-all"), "a1");
      const [x, y, z] = [await commitText(client, caller, "t", "x"), await commitText(client, caller, "t", "y"), await commitText(client, caller, "u", "z")];
      const twice = async <S extends DescMessage>(label: string, schema: S, call: () => Promise<MessageShape<S>>) => {
        const first = await call();
        const footprint = await tenantFootprint(db, caller.tenant!);
        const replay = await call();
        assertSameResponse(schema, replay, first, label);
        assert.deepEqual(await tenantFootprint(db, caller.tenant!), footprint, `${label}: the retry wrote nothing`);
        return first;
      };

      const batch = await twice("CommitBatch", storeV1.CommitBatchResponseSchema, () =>
        client.commitBatch({
          principal: caller,
          entries: [{ entry: textEntry("b", "batch one"), generated: generatedFor("batch one") }, { entry: textEntry("b", "never generated") }],
          idempotency: { key: "batch", fingerprint: "f" },
        }),
      );
      assert.deepEqual(
        batch.results.map((result) => result.error?.code ?? "ok"),
        ["ok", "DUPLICATE_VANISHED"],
        "a non-atomic call's item failures are part of its recorded response",
      );

      const updated = await twice("UpdateEntries", storeV1.UpdateEntriesResponseSchema, () =>
        client.updateEntries({ principal: caller, updates: [{ id: x.id, expectedVersion: 1, tags: { tags: ["once"] } }], idempotency: { key: "update", fingerprint: "f" } }),
      );
      assert.equal(updated.results[0]?.ack?.version, 2, "the retry did not hit the version check: it replayed");

      const shared = await twice("Share", storeV1.ShareResponseSchema, () =>
        client.share({
          principal: caller,
          entryIds: [y.id],
          grantees: [{ kind: storeV1.GranteeKind.SUBJECT, name: "a2" }],
          permission: storeV1.Permission.READ,
          idempotency: { key: "share", fingerprint: "f" },
        }),
      );
      assert.deepEqual(shared.nowSharedIds, [y.id]);

      const unshared = await twice("Unshare", storeV1.UnshareResponseSchema, () => client.unshare({ principal: caller, entryIds: [y.id], idempotency: { key: "unshare", fingerprint: "f" } }));
      assert.equal(unshared.revokedCount, 1, "the replay reports the first call's count, not 0");

      const deleted = await twice("DeleteEntries", storeV1.DeleteEntriesResponseSchema, () =>
        client.deleteEntries({ principal: caller, ids: [z.id], idempotency: { key: "delete", fingerprint: "f" } }),
      );
      assert.deepEqual([deleted.deletedCount, deleted.results[0]?.id], [1, z.id], "the replay reports the deletion, not ENTRY_NOT_FOUND");

      const byThread = await twice("DeleteEntries by thread", storeV1.DeleteEntriesResponseSchema, () =>
        client.deleteEntries({ principal: caller, threadId: "t", idempotency: { key: "delete-thread", fingerprint: "f" } }),
      );
      assert.equal(byThread.deletedCount, 2);
      assert.equal(await countRows(db, "idempotency_keys", "tenant = $1 AND subject = 'a1'", [caller.tenant]), 6);
    });

    test("a failed call records nothing, so its retry runs afresh", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("idem-failure"), "a1");
      const entry = await commitText(client, caller, "t", "versioned");
      const key = { key: "retry-me", fingerprint: "f" };
      await expectError(client.updateEntries({ principal: caller, atomic: true, updates: [{ id: entry.id, expectedVersion: 5, tags: { tags: ["x"] } }], idempotency: key }), "VERSION_CONFLICT");
      await expectError(client.commit({ principal: caller, entry: textEntry("t", "no generation"), idempotency: { key: "vanished", fingerprint: "f" } }), "DUPLICATE_VANISHED");
      await expectError(client.commit({ principal: caller, entry: textEntry("", "invalid"), idempotency: { key: "invalid", fingerprint: "f" } }), "INVALID_ARGUMENT", /thread_id/);
      assert.equal(await countRows(db, "idempotency_keys", "tenant = $1", [caller.tenant]), 0);
      assert.equal((await client.checkIdempotency({ principal: caller, idempotency: key })).state, NEW);
      const retried = await client.updateEntries({ principal: caller, atomic: true, updates: [{ id: entry.id, expectedVersion: 1, tags: { tags: ["x"] } }], idempotency: key });
      assert.equal(retried.results[0]?.ack?.version, 2);
    });

    test("keys and fingerprints are validated, and checking one needs the write scope", async () => {
      const { client } = context;
      const caller = principal(newTenant("idem-invalid"), "a1");
      const text = "unused";
      const commit = (idempotency: { key: string; fingerprint: string }) =>
        client.commit({ principal: caller, entry: textEntry("t", text, { source: commonV1.Source.USER }), generated: generatedFor(text), idempotency });
      await expectError(commit({ key: "", fingerprint: "f" }), "INVALID_ARGUMENT", /idempotency\.key must be 1 to 200 characters \(got 0\)/);
      await expectError(commit({ key: "k".repeat(201), fingerprint: "f" }), "INVALID_ARGUMENT", /idempotency\.key must be 1 to 200 characters \(got 201\)/);
      await expectError(commit({ key: "k", fingerprint: "" }), "INVALID_ARGUMENT", /idempotency\.fingerprint must be 1 to 256 characters/);
      assert.ok((await commit({ key: "k".repeat(200), fingerprint: "f" })).ack !== undefined, "200 characters is allowed");
      await expectError(client.checkIdempotency({ principal: caller }), "INVALID_ARGUMENT", /idempotency is required/);
      await expectError(
        client.checkIdempotency({ principal: principal(caller.tenant!, "a1", { scopes: ["context:read"] }), idempotency: { key: "k", fingerprint: "f" } }),
        "PERMISSION_DENIED",
        /context:write/,
      );
    });
  });
}
