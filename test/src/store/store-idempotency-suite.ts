/** Idempotency keys: a retry replays the first response and writes nothing; a reuse with other arguments is refused. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { commonV1, storeV1 } from "@context-hub/proto";
import {
  createIdempotencyExpirySweeper,
  deleteExpiredIdempotencyKeys,
  expiryBatchSize,
} from "@context-hub/store/testing";
import {
  commitText,
  countRows,
  expectError,
  generatedFor,
  newTenant,
  principal,
  startTestStore,
  tenantFootprint,
  textEntry,
  type StoreSuiteContext,
} from "./store-fixtures.js";

const { NEW, REPLAY, CONFLICT } = storeV1.CheckIdempotencyResponse_State;

/** Whether two responses are the same message, byte for byte. */
function assertSameResponse<S extends DescMessage>(
  schema: S,
  replay: MessageShape<S>,
  first: MessageShape<S>,
  label: string,
): void {
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
      const check = async (fingerprint: string) =>
        (await client.checkIdempotency({ principal: caller, idempotency: { key: key.key, fingerprint } })).state;

      assert.equal(await check("fp-1"), NEW);
      assert.equal(
        await countRows(db, "idempotency_keys", "tenant = $1", [caller.tenant]),
        0,
        "checking writes nothing",
      );
      const first = await client.commit({
        principal: caller,
        entry: textEntry("t", text),
        generated: generatedFor(text),
        idempotency: key,
      });
      const footprint = await tenantFootprint(db, caller.tenant!);
      assert.deepEqual([await check("fp-1"), await check("fp-2")], [REPLAY, CONFLICT]);

      const replay = await client.commit({ principal: caller, entry: textEntry("t", text), idempotency: key });
      assertSameResponse(storeV1.CommitResponseSchema, replay, first, "the replay is the first response");
      assert.equal(replay.ack?.deduplicated, false, "a replay is not a fold: it is the first call's answer");
      // Not even the entry is needed: the key is checked before anything else.
      assertSameResponse(
        storeV1.CommitResponseSchema,
        await client.commit({ principal: caller, idempotency: key }),
        first,
        "replay without an entry",
      );
      assert.deepEqual(await tenantFootprint(db, caller.tenant!), footprint, "replays write nothing");

      await expectError(
        client.commit({
          principal: caller,
          entry: textEntry("t", "other text"),
          generated: generatedFor("other text"),
          idempotency: { ...key, fingerprint: "fp-2" },
        }),
        "INVALID_ARGUMENT",
        /idempotency key "commit-1" was already used with different arguments/,
      );
      await expectError(
        client.updateEntries({
          principal: caller,
          updates: [{ id: first.ack!.id, tags: { tags: ["x"] } }],
          idempotency: key,
        }),
        "INVALID_ARGUMENT",
        /idempotency key "commit-1" was already used with different arguments/,
      );
      assert.deepEqual(await tenantFootprint(db, caller.tenant!), footprint, "refused reuses write nothing");

      // Keys belong to a principal: another one's identical key is a different key.
      const a2 = principal(caller.tenant!, "a2");
      assert.equal((await client.checkIdempotency({ principal: a2, idempotency: key })).state, NEW);
      const theirs = await client.commit({
        principal: a2,
        entry: textEntry("t", text),
        generated: generatedFor(text),
        idempotency: key,
      });
      assert.notEqual(theirs.ack?.id, first.ack?.id);
      assert.equal(await countRows(db, "entries", "tenant = $1", [caller.tenant]), 2);
      const otherTenant = principal(newTenant("idem-commit-other"), "a1");
      assert.equal((await client.checkIdempotency({ principal: otherTenant, idempotency: key })).state, NEW);
    });

    test("every mutation replays its first response and writes nothing on a retry", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("idem-all"), "a1");
      const [x, y, z] = [
        await commitText(client, caller, "t", "x"),
        await commitText(client, caller, "t", "y"),
        await commitText(client, caller, "u", "z"),
      ];
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
          entries: [
            { entry: textEntry("b", "batch one"), generated: generatedFor("batch one") },
            { entry: textEntry("b", "never generated") },
          ],
          idempotency: { key: "batch", fingerprint: "f" },
        }),
      );
      assert.deepEqual(
        batch.results.map((result) => result.error?.code ?? "ok"),
        ["ok", "DUPLICATE_VANISHED"],
        "a non-atomic call's item failures are part of its recorded response",
      );

      const updated = await twice("UpdateEntries", storeV1.UpdateEntriesResponseSchema, () =>
        client.updateEntries({
          principal: caller,
          updates: [{ id: x.id, expectedVersion: 1, tags: { tags: ["once"] } }],
          idempotency: { key: "update", fingerprint: "f" },
        }),
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

      const unshared = await twice("Unshare", storeV1.UnshareResponseSchema, () =>
        client.unshare({ principal: caller, entryIds: [y.id], idempotency: { key: "unshare", fingerprint: "f" } }),
      );
      assert.equal(unshared.revokedCount, 1, "the replay reports the first call's count, not 0");

      const deleted = await twice("DeleteEntries", storeV1.DeleteEntriesResponseSchema, () =>
        client.deleteEntries({ principal: caller, ids: [z.id], idempotency: { key: "delete", fingerprint: "f" } }),
      );
      assert.deepEqual(
        [deleted.deletedCount, deleted.results[0]?.id],
        [1, z.id],
        "the replay reports the deletion, not ENTRY_NOT_FOUND",
      );

      const byThread = await twice("DeleteEntries by thread", storeV1.DeleteEntriesResponseSchema, () =>
        client.deleteEntries({
          principal: caller,
          threadId: "t",
          idempotency: { key: "delete-thread", fingerprint: "f" },
        }),
      );
      assert.equal(byThread.deletedCount, 2);
      assert.equal(await countRows(db, "idempotency_keys", "tenant = $1 AND subject = 'a1'", [caller.tenant]), 6);
    });

    test("a failed call records nothing, so its retry runs afresh", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("idem-failure"), "a1");
      const entry = await commitText(client, caller, "t", "versioned");
      const key = { key: "retry-me", fingerprint: "f" };
      await expectError(
        client.updateEntries({
          principal: caller,
          atomic: true,
          updates: [{ id: entry.id, expectedVersion: 5, tags: { tags: ["x"] } }],
          idempotency: key,
        }),
        "VERSION_CONFLICT",
      );
      await expectError(
        client.commit({
          principal: caller,
          entry: textEntry("t", "no generation"),
          idempotency: { key: "vanished", fingerprint: "f" },
        }),
        "DUPLICATE_VANISHED",
      );
      await expectError(
        client.commit({
          principal: caller,
          entry: textEntry("", "invalid"),
          idempotency: { key: "invalid", fingerprint: "f" },
        }),
        "INVALID_ARGUMENT",
        /thread_id/,
      );
      assert.equal(await countRows(db, "idempotency_keys", "tenant = $1", [caller.tenant]), 0);
      assert.equal((await client.checkIdempotency({ principal: caller, idempotency: key })).state, NEW);
      const retried = await client.updateEntries({
        principal: caller,
        atomic: true,
        updates: [{ id: entry.id, expectedVersion: 1, tags: { tags: ["x"] } }],
        idempotency: key,
      });
      assert.equal(retried.results[0]?.ack?.version, 2);
    });

    test("keys and fingerprints are validated, and checking one needs the write scope", async () => {
      const { client } = context;
      const caller = principal(newTenant("idem-invalid"), "a1");
      const text = "unused";
      const commit = (idempotency: { key: string; fingerprint: string }) =>
        client.commit({
          principal: caller,
          entry: textEntry("t", text, { source: commonV1.Source.USER }),
          generated: generatedFor(text),
          idempotency,
        });
      await expectError(
        commit({ key: "", fingerprint: "f" }),
        "INVALID_ARGUMENT",
        /idempotency\.key must be 1 to 200 characters \(got 0\)/,
      );
      await expectError(
        commit({ key: "k".repeat(201), fingerprint: "f" }),
        "INVALID_ARGUMENT",
        /idempotency\.key must be 1 to 200 characters \(got 201\)/,
      );
      await expectError(
        commit({ key: "k", fingerprint: "" }),
        "INVALID_ARGUMENT",
        /idempotency\.fingerprint must be 1 to 256 characters/,
      );
      assert.ok(
        (await commit({ key: "k".repeat(200), fingerprint: "f" })).ack !== undefined,
        "200 characters is allowed",
      );
      await expectError(client.checkIdempotency({ principal: caller }), "INVALID_ARGUMENT", /idempotency is required/);
      await expectError(
        client.checkIdempotency({
          principal: principal(caller.tenant!, "a1", { scopes: ["context:read"] }),
          idempotency: { key: "k", fingerprint: "f" },
        }),
        "PERMISSION_DENIED",
        /context:write/,
      );
    });
    test("a key expires after its window: then it runs as new and its record is replaced, with no sleep (an injected clock)", async () => {
      const { db } = context;
      // Far from the real clock, so no other store's sweep touches these records.
      let now = new Date("2200-01-01T00:00:00Z");
      const hour = 3_600_000;
      const store = await startTestStore(context.options, db, {
        env: { STORE_IDEMPOTENCY_TTL_SECONDS: "3600" },
        now: () => now,
      });
      try {
        const { client } = store;
        const caller = principal(newTenant("idem-expiry"), "a1");
        const key = { key: "nightly-report", fingerprint: "fp-monday" };
        const check = async (fingerprint: string) =>
          (await client.checkIdempotency({ principal: caller, idempotency: { key: key.key, fingerprint } })).state;
        const first = await client.commit({
          principal: caller,
          entry: textEntry("t", "Monday's report."),
          generated: generatedFor("Monday's report."),
          idempotency: key,
        });

        now = new Date(now.getTime() + hour - 1);
        assert.deepEqual(
          [await check("fp-monday"), await check("fp-tuesday")],
          [REPLAY, CONFLICT],
          "inside the window the key replays",
        );
        const replay = await client.commit({ principal: caller, idempotency: key });
        assert.equal(replay.ack?.id, first.ack?.id);

        now = new Date(now.getTime() + 2);
        assert.deepEqual(
          [await check("fp-monday"), await check("fp-tuesday")],
          [NEW, NEW],
          "past the window the key is new, whatever the arguments",
        );
        await expectError(
          client.commit({ principal: caller, idempotency: key }),
          "INVALID_ARGUMENT",
          /entry is required/,
        );
        const tuesday = { ...key, fingerprint: "fp-tuesday" };
        const second = await client.commit({
          principal: caller,
          entry: textEntry("t", "Tuesday's report."),
          generated: generatedFor("Tuesday's report."),
          idempotency: tuesday,
        });
        assert.notEqual(second.ack?.id, first.ack?.id, "the expired key ran the call afresh");
        assert.equal(await countRows(db, "entries", "tenant = $1", [caller.tenant]), 2);
        const { rows } = await db.query<{ fingerprint: string; created_at: Date }>(
          "SELECT fingerprint, created_at FROM idempotency_keys WHERE tenant = $1 AND key = $2",
          [caller.tenant, key.key],
        );
        assert.deepEqual(
          rows.map((row) => [row.fingerprint, row.created_at.toISOString()]),
          [["fp-tuesday", now.toISOString()]],
          "one record, the new one, dated by the store's clock",
        );
        assert.equal(await check("fp-tuesday"), REPLAY, "the new use starts a new window");
        assert.equal((await client.commit({ principal: caller, idempotency: tuesday })).ack?.id, second.ack?.id);

        // Share goes through the same runner.
        const shareKey = { key: "share-once", fingerprint: "fp-share" };
        await client.share({
          principal: caller,
          entryIds: [second.ack!.id],
          grantees: [{ kind: storeV1.GranteeKind.SUBJECT, name: "b1" }],
          permission: storeV1.Permission.READ,
          idempotency: shareKey,
        });
        now = new Date(now.getTime() + hour + 1);
        assert.equal(
          (await client.checkIdempotency({ principal: caller, idempotency: { ...shareKey, fingerprint: "other" } }))
            .state,
          NEW,
        );
      } finally {
        await store.close();
      }
    });

    test("expired records are deleted in bounded batches, oldest first, and records inside the window stay", async () => {
      const { db } = context;
      const tenant = newTenant("idem-sweep");
      const now = new Date("2300-01-01T00:00:00Z");
      const ttlMs = 3_600_000;
      const plant = (count: number, createdAt: string, prefix: string) =>
        db.query(
          `INSERT INTO idempotency_keys (tenant, subject, key, rpc, fingerprint, response, created_at)
           SELECT $1, 'a1', $2 || n, 'Commit', 'fp', '\\x00'::bytea, $3::timestamptz + n * interval '1 millisecond' FROM generate_series(1, $4::integer) AS n`,
          [tenant, prefix, createdAt, count],
        );
      await plant(expiryBatchSize * 2 + 200, "2299-12-31T20:00:00Z", "old-");
      await plant(30, "2299-12-31T23:30:00Z", "fresh-");
      const expiredBefore = await countRows(db, "idempotency_keys", "created_at < $1::timestamptz", [
        new Date(now.getTime() - ttlMs).toISOString(),
      ]);
      assert.ok(expiredBefore >= expiryBatchSize * 2 + 200);

      const batches: number[] = [];
      const sweeper = createIdempotencyExpirySweeper({
        expiry: { ttlMs, now: () => now },
        deleteExpired: async (notBefore, limit) => {
          assert.equal(limit, expiryBatchSize);
          const deleted = await deleteExpiredIdempotencyKeys(db, notBefore, limit);
          batches.push(deleted);
          return deleted;
        },
        logger: { warn: () => undefined, debug: () => undefined },
        intervalMs: 0,
      });
      try {
        const deleted = await sweeper.sweep();
        assert.ok(
          batches.every((count) => count <= expiryBatchSize),
          `every batch is bounded: ${batches.join(", ")}`,
        );
        assert.ok(
          batches.length >= 3,
          `${expiredBefore} expired rows take at least three batches of ${expiryBatchSize} (took ${batches.length})`,
        );
        assert.equal(batches.at(-1)! < expiryBatchSize, true, "the sweep stops at the first short batch");
        assert.equal(
          deleted,
          batches.reduce((sum, count) => sum + count, 0),
        );
        assert.equal(
          await countRows(db, "idempotency_keys", "tenant = $1 AND key LIKE 'old-%'", [tenant]),
          0,
          "every expired record went",
        );
        assert.equal(
          await countRows(db, "idempotency_keys", "tenant = $1 AND key LIKE 'fresh-%'", [tenant]),
          30,
          "records inside the window stay",
        );
        assert.equal(await sweeper.sweep(), 0, "nothing is left to delete");
      } finally {
        await sweeper.close();
        await db.query("DELETE FROM idempotency_keys WHERE tenant = $1", [tenant]);
      }
    });

    test("one delete takes at most its limit, the oldest first", async () => {
      const { db } = context;
      const tenant = newTenant("idem-oldest");
      for (const [key, at] of [
        ["third", "2400-01-01T00:00:03Z"],
        ["first", "2400-01-01T00:00:01Z"],
        ["second", "2400-01-01T00:00:02Z"],
      ] as const) {
        await db.query(
          "INSERT INTO idempotency_keys (tenant, subject, key, rpc, fingerprint, response, created_at) VALUES ($1, 'a1', $2, 'Commit', 'fp', '\\x00'::bytea, $3::timestamptz)",
          [tenant, key, at],
        );
      }
      // Everything older than these (other tests' records) goes first; then these, oldest first.
      const older = await countRows(db, "idempotency_keys", "created_at < '2400-01-01T00:00:00Z'::timestamptz", []);
      if (older > 0) await deleteExpiredIdempotencyKeys(db, new Date("2400-01-01T00:00:00Z"), older);
      assert.equal(await deleteExpiredIdempotencyKeys(db, new Date("2400-01-02T00:00:00Z"), 2), 2);
      const { rows } = await db.query<{ key: string }>("SELECT key FROM idempotency_keys WHERE tenant = $1", [tenant]);
      assert.deepEqual(
        rows.map((row) => row.key),
        ["third"],
      );
      await db.query("DELETE FROM idempotency_keys WHERE tenant = $1", [tenant]);
    });
  });
}
