/**
 * Isolation between principals and tenants on every new path. A1 and A2
 * share tenant "acme", B1 is in "globex"; each plants the closest possible
 * match of A1's entry (same thread name, same text, same vectors, ids that
 * share A1's prefix), so a dropped tenant or owner filter would surface it.
 * Every attempt on what the caller cannot see must fail exactly like an
 * attempt on an id that never existed; every such check is paired with a
 * positive control showing that the owner succeeds.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { commonV1, storeV1 } from "@context-hub/proto";
import {
  assertSameItemError,
  commitText,
  countRows,
  expectIndistinguishable,
  generatedFor,
  idsOf,
  insertEntryRow,
  principalTrio,
  randomId,
  tenantFootprint,
  textEntry,
  type StoreSuiteContext,
} from "./store-fixtures.js";

const thread = "incident-42";
const text = "Root cause: the cache TTL was set to zero.";

export function defineIsolationTests(context: StoreSuiteContext): void {
  describe("isolation between principals and tenants", () => {
    /** A1's private entry and its closest matches planted by A2 (same tenant) and B1 (other tenant). */
    const plant = async (label: string) => {
      const { client } = context;
      const trio = principalTrio(label);
      const entryOf = async (caller: typeof trio.a1) =>
        (await client.commit({ principal: caller, entry: textEntry(thread, text), generated: generatedFor(text) })).ack!
          .id;
      const a1Entry = await entryOf(trio.a1);
      const a2Entry = await entryOf(trio.a2);
      const b1Entry = await entryOf(trio.b1);
      return { ...trio, a1Entry, a2Entry, b1Entry };
    };

    test("update: another principal's or tenant's entry is not found, exactly like a random id; the owner succeeds", async () => {
      const { client, db } = context;
      const { a1, a2, b1, a1Entry, tenantA, tenantB } = await plant("update");
      const before = [await tenantFootprint(db, tenantA), await tenantFootprint(db, tenantB)];
      const update = (caller: typeof a1, id: string, atomic: boolean) =>
        client.updateEntries({ principal: caller, atomic, updates: [{ id, tags: { tags: ["hijacked"] } }] });
      const missing = randomId();
      const prefix = a1Entry.replace(/-/g, "").slice(0, 16);
      const missingPrefix = missing.replace(/-/g, "").slice(0, 16);
      for (const [who, caller] of [
        ["A2", a2],
        ["B1", b1],
      ] as const) {
        await expectIndistinguishable(
          update(caller, a1Entry, true),
          a1Entry,
          update(caller, missing, true),
          missing,
          `${who} update by id`,
        );
        await expectIndistinguishable(
          update(caller, prefix, true),
          prefix,
          update(caller, missingPrefix, true),
          missingPrefix,
          `${who} update by prefix`,
        );
        const [probe, control] = [
          (await update(caller, a1Entry, false)).results[0]?.error,
          (await update(caller, missing, false)).results[0]?.error,
        ];
        assertSameItemError(probe, a1Entry, control, missing, `${who} non-atomic update`);
        assert.equal(probe?.code, "ENTRY_NOT_FOUND");
      }
      assert.deepEqual(
        [await tenantFootprint(db, tenantA), await tenantFootprint(db, tenantB)],
        before,
        "nothing changed anywhere",
      );
      assert.equal(
        (await update(a1, prefix, true)).results[0]?.ack?.version,
        2,
        "control: the owner updates it by the same prefix",
      );
    });

    test("delete: by id, by prefix, in batches and by thread, nobody touches what they cannot see; the owner can", async () => {
      const { client, db } = context;
      const { a1, a2, b1, a1Entry, a2Entry, b1Entry, tenantA, tenantB } = await plant("delete");
      const before = [await tenantFootprint(db, tenantA), await tenantFootprint(db, tenantB)];
      const missing = randomId();
      const remove = (caller: typeof a1, ids: string[], atomic: boolean) =>
        client.deleteEntries({ principal: caller, ids, atomic });
      for (const [who, caller] of [
        ["A2", a2],
        ["B1", b1],
      ] as const) {
        await expectIndistinguishable(
          remove(caller, [a1Entry], true),
          a1Entry,
          remove(caller, [missing], true),
          missing,
          `${who} delete by id`,
        );
        const reply = await remove(caller, [a1Entry, missing], false);
        assertSameItemError(
          reply.results[0]?.error,
          a1Entry,
          reply.results[1]?.error,
          missing,
          `${who} non-atomic delete`,
        );
        assert.equal(reply.deletedCount, 0);
      }
      assert.deepEqual(
        [await tenantFootprint(db, tenantA), await tenantFootprint(db, tenantB)],
        before,
        "nothing deleted",
      );

      const byB1 = await client.deleteEntries({ principal: b1, threadId: thread });
      assert.deepEqual(
        byB1.results.map((result) => result.id),
        [b1Entry],
        "B1's thread delete takes its own entry of that name and nothing else",
      );
      const byA2 = await client.deleteEntries({ principal: a2, threadId: thread });
      assert.deepEqual(
        byA2.results.map((result) => result.id),
        [a2Entry],
      );
      assert.equal(await countRows(db, "entries", "id = $1", [a1Entry]), 1);
      assert.deepEqual(idsOf((await client.getEntries({ principal: a1, ids: [a1Entry] })).entries), [a1Entry]);
      assert.equal(await countRows(db, "chunks", "entry_id = $1", [a1Entry]), 2, "A1's vectors are untouched");
      const byOwner = await client.deleteEntries({ principal: a1, threadId: thread });
      assert.deepEqual(
        [byOwner.results.map((result) => result.id), byOwner.deletedCount],
        [[a1Entry], 1],
        "control: the owner deletes it",
      );
    });

    test("batches: the same text in the same thread folds only into the caller's own entry", async () => {
      const { client, db } = context;
      const { a1, a2, b1, a1Entry, a2Entry, b1Entry, tenantA } = await plant("batch");
      for (const [who, caller, own] of [
        ["A2", a2, a2Entry],
        ["B1", b1, b1Entry],
      ] as const) {
        const reply = await client.commitBatch({
          principal: caller,
          atomic: true,
          entries: [{ entry: textEntry(thread, text, { tags: ["again"] }) }],
        });
        assert.deepEqual(
          [reply.results[0]?.ack?.id, reply.results[0]?.ack?.deduplicated],
          [own, true],
          `${who}'s retransmit folds into ${who}'s own entry`,
        );
      }
      const stranger = await client.commitBatch({
        principal: principalTrio("batch-stranger").a1,
        entries: [{ entry: textEntry(thread, text) }],
      });
      assert.equal(
        stranger.results[0]?.error?.code,
        "DUPLICATE_VANISHED",
        "a caller with no entry of its own finds nothing to fold into",
      );
      const a1View = (await client.getEntries({ principal: a1, ids: [a1Entry] })).entries[0]!;
      assert.deepEqual([a1View.version, a1View.tags], [1, []], "A1's entry was never folded into");
      const mine = await client.commitBatch({
        principal: a1,
        entries: [{ entry: textEntry(thread, text, { tags: ["again"] }) }],
      });
      assert.deepEqual(
        [mine.results[0]?.ack?.id, mine.results[0]?.ack?.version],
        [a1Entry, 2],
        "control: A1's retransmit folds into A1's entry",
      );
      assert.equal(await countRows(db, "entries", "tenant = $1", [tenantA]), 2);
    });

    test("share and unshare: nobody shares or unshares what they cannot see; the owner can", async () => {
      const { client, db } = context;
      const { a1, a2, b1, a1Entry, b1Entry, tenantA, tenantB } = await plant("share");
      const missing = randomId();
      const before = [await tenantFootprint(db, tenantA), await tenantFootprint(db, tenantB)];
      const share = (caller: typeof a1, id: string) =>
        client.share({
          principal: caller,
          entryIds: [id],
          grantees: [{ kind: storeV1.GranteeKind.SUBJECT, name: caller.subject! }],
          permission: storeV1.Permission.WRITE,
        });
      const unshare = (caller: typeof a1, id: string) => client.unshare({ principal: caller, entryIds: [id] });
      for (const [who, caller] of [
        ["A2", a2],
        ["B1", b1],
      ] as const) {
        await expectIndistinguishable(share(caller, a1Entry), a1Entry, share(caller, missing), missing, `${who} share`);
        await expectIndistinguishable(
          unshare(caller, a1Entry),
          a1Entry,
          unshare(caller, missing),
          missing,
          `${who} unshare`,
        );
      }
      // A thread share by B1 under the same thread name opens only B1's entries, in B1's tenant.
      await client.share({
        principal: b1,
        threadId: thread,
        grantees: [{ kind: storeV1.GranteeKind.SUBJECT, name: "a1" }],
        permission: storeV1.Permission.READ,
      });
      assert.deepEqual(
        idsOf((await client.getEntries({ principal: a1, ids: [a1Entry, b1Entry] })).entries),
        [a1Entry],
        "a grant never crosses tenants",
      );
      assert.deepEqual(await tenantFootprint(db, tenantA), before[0], "nothing changed in tenant A");
      const granted = await share(a1, a1Entry);
      assert.deepEqual(granted.nowSharedIds, [a1Entry], "control: the owner shares it");
    });

    test("list_threads and get_statistics count only what the caller can see, in the caller's tenant", async () => {
      const { client } = context;
      const { a1, a2, b1, a1Entry } = await plant("counts");
      await commitText(client, a2, "a2-only", "A2's private thread");
      for (const [who, caller] of [
        ["A1", a1],
        ["A2", a2],
        ["B1", b1],
      ] as const) {
        const threads = await client.listThreads({ principal: caller });
        const own = threads.threads.find((info) => info.threadId === thread);
        assert.equal(own?.entryCount, 1, `${who}: the shared thread name counts only the caller's own entry`);
        const stats = await client.getStatistics({ principal: caller, threadId: thread });
        assert.deepEqual(
          [stats.entries, stats.ownedEntries, stats.chunks],
          [1n, 1n, 2n],
          `${who}: statistics of the thread`,
        );
      }
      assert.deepEqual(
        (await client.listThreads({ principal: a1 })).threads.map((info) => info.threadId),
        [thread],
        "A2's private thread is not listed for A1",
      );
      assert.deepEqual((await client.listThreads({ principal: b1 })).total, 1);
      // Control: once A1 makes its entry tenant-visible, A2 counts it and B1 still does not.
      await client.updateEntries({ principal: a1, updates: [{ id: a1Entry, visibility: commonV1.Visibility.TENANT }] });
      assert.equal((await client.getStatistics({ principal: a2, threadId: thread })).entries, 2n);
      assert.equal((await client.getStatistics({ principal: b1, threadId: thread })).entries, 1n);
    });

    test("prefix resolution for changes sees only the caller's visible entries: no ambiguity oracle across principals or tenants", async () => {
      const { client, db } = context;
      const { a1, a2, b1, tenantA, tenantB } = principalTrio("prefix-changes");
      const stem = randomBytes(6).toString("hex");
      const idOf = (n: number) => `${stem.slice(0, 8)}-${stem.slice(8, 12)}-7${n}00-8000-000000000000`;
      const [mine, theirs, foreign] = [idOf(1), idOf(2), idOf(3)];
      await insertEntryRow(db, { id: mine, tenant: tenantA, owner: "a1", threadId: thread, text });
      await insertEntryRow(db, { id: theirs, tenant: tenantA, owner: "a2", threadId: thread, text });
      await insertEntryRow(db, {
        id: foreign,
        tenant: tenantB,
        owner: "b1",
        threadId: thread,
        text,
        visibility: "tenant",
      });
      const prefix = stem.slice(0, 8);
      const update = (caller: typeof a1) =>
        client.updateEntries({ principal: caller, updates: [{ id: prefix, tags: { tags: ["by-prefix"] } }] });
      for (const [caller, expected] of [
        [a1, mine],
        [a2, theirs],
        [b1, foreign],
      ] as const) {
        const reply = await update(caller);
        assert.equal(
          reply.results[0]?.ack?.id,
          expected,
          `${caller.subject} resolves the shared prefix to its own entry only`,
        );
      }
      const deleted = await client.deleteEntries({ principal: b1, ids: [prefix] });
      assert.deepEqual(
        deleted.results.map((result) => result.id),
        [foreign],
      );
      assert.equal(await countRows(db, "entries", "id = ANY($1::uuid[])", [[mine, theirs]]), 2);
    });
  });
}
