/** ListThreads and GetStatistics: counts over what the caller can see, and nothing else. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { commonV1 } from "@context-hub/proto";
import {
  commitText,
  expectError,
  generatedFor,
  insertGrant,
  newTenant,
  principal,
  textEntry,
  type StoreSuiteContext,
} from "./store-fixtures.js";

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9]);

export function defineThreadTests(context: StoreSuiteContext): void {
  describe("ListThreads and GetStatistics", () => {
    test("threads are listed most recently active first, counting only entries the caller can see, with paging and a total", async () => {
      const { client, db } = context;
      const tenant = newTenant("threads");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const planning = await commitText(client, a1, "planning", "kick-off");
      await commitText(client, a1, "planning", "agenda", { source: commonV1.Source.AGENT });
      await commitText(client, a1, "retro", "what went well");
      await commitText(client, a2, "planning", "a2's private note in the same thread");
      await commitText(client, a2, "secret", "a2's private thread");
      const times = [
        ["planning", "2024-01-01", "2024-01-02"],
        ["retro", "2024-02-01", "2024-02-01"],
      ];
      for (const [thread, created, updated] of times) {
        await db.query(
          "UPDATE entries SET created_at = $3::timestamptz, updated_at = $4::timestamptz WHERE tenant = $1 AND thread_id = $2",
          [tenant, thread, created, updated],
        );
      }

      const all = await client.listThreads({ principal: a1 });
      assert.deepEqual(
        all.threads.map((thread) => [thread.threadId, thread.entryCount, thread.userEntries, thread.agentEntries]),
        [
          ["retro", 1, 1, 0],
          ["planning", 2, 1, 1],
        ],
        "a2's private entries count nowhere, and a2's private thread is not listed",
      );
      assert.deepEqual([all.total, all.hasMore], [2, false]);
      assert.deepEqual(
        [timestampDate(all.threads[1]!.firstAt!).toISOString(), timestampDate(all.threads[1]!.lastAt!).toISOString()],
        ["2024-01-01T00:00:00.000Z", "2024-01-02T00:00:00.000Z"],
      );

      // Changing an entry is activity: the thread moves to the top.
      await client.updateEntries({ principal: a1, updates: [{ id: planning.id, tags: { tags: ["touched"] } }] });
      const first = await client.listThreads({ principal: a1, limit: 1 });
      assert.deepEqual(
        [first.threads.map((thread) => thread.threadId), first.hasMore, first.total],
        [["planning"], true, 2],
      );
      const second = await client.listThreads({ principal: a1, limit: 1, offset: 1 });
      assert.deepEqual(
        [second.threads.map((thread) => thread.threadId), second.hasMore, second.total],
        [["retro"], false, 2],
      );
      const past = await client.listThreads({ principal: a1, limit: 10, offset: 5 });
      assert.deepEqual(
        [past.threads, past.hasMore, past.total],
        [[], false, 2],
        "the total is known past the last page",
      );

      const a2View = await client.listThreads({ principal: a2 });
      assert.deepEqual(a2View.threads.map((thread) => [thread.threadId, thread.entryCount]).sort(), [
        ["planning", 1],
        ["secret", 1],
      ]);
      const stranger = await client.listThreads({ principal: principal(tenant, "a3") });
      assert.deepEqual([stranger.threads, stranger.total], [[], 0]);

      await expectError(
        client.listThreads({ principal: a1, limit: 101 }),
        "INVALID_ARGUMENT",
        /limit must be 1 to 100 \(got 101\)/,
      );
      await expectError(
        client.listThreads({ principal: a1, offset: 10_001 }),
        "INVALID_ARGUMENT",
        /offset must be at most 10000/,
      );
      await expectError(
        client.listThreads({ principal: principal(tenant, "a1", { scopes: ["context:write"] }) }),
        "PERMISSION_DENIED",
        /context:read/,
      );
    });

    test("the default page holds 50 threads", async () => {
      const { client } = context;
      const caller = principal(newTenant("threads-page"), "a1");
      const entries = Array.from({ length: 51 }, (_, index) => ({
        entry: textEntry(`thread-${index}`, `entry ${index}`),
        generated: generatedFor(`entry ${index}`),
      }));
      await client.commitBatch({ principal: caller, atomic: true, entries });
      const page = await client.listThreads({ principal: caller });
      assert.deepEqual([page.threads.length, page.hasMore, page.total], [50, true, 51]);
    });

    test("statistics count only visible entries, overall or in one thread, and say how many the caller owns", async () => {
      const { client, db } = context;
      const tenant = newTenant("statistics");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const text = "naïve café"; // 10 characters, 12 UTF-8 bytes
      await client.commit({
        principal: a1,
        entry: textEntry("t1", text, {
          images: [
            { mimeType: "image/png", data: png },
            { mimeType: "image/png", data: png },
          ],
        }),
        generated: generatedFor(text),
      });
      await commitText(client, a1, "t2", "agent words", { source: commonV1.Source.AGENT });
      const shared = await commitText(client, a2, "t1", "shared by a2", { visibility: commonV1.Visibility.SHARED });
      await commitText(client, a2, "t1", "private to a2");
      await commitText(client, a2, "t3", "a2's own thread");
      await insertGrant(db, { tenant, grantor: "a2", entryId: shared.id, granteeKind: "subject", grantee: "a1" });

      const stats = await client.getStatistics({ principal: a1 });
      assert.deepEqual(
        {
          entries: stats.entries,
          threads: stats.threads,
          userEntries: stats.userEntries,
          agentEntries: stats.agentEntries,
          multimodalEntries: stats.multimodalEntries,
          images: stats.images,
          chunks: stats.chunks,
          textBytes: stats.textBytes,
          ownedEntries: stats.ownedEntries,
        },
        {
          entries: 3n,
          threads: 2n,
          userEntries: 2n,
          agentEntries: 1n,
          multimodalEntries: 1n,
          images: 2n,
          chunks: 6n,
          textBytes: BigInt(12 + "agent words".length + "shared by a2".length),
          ownedEntries: 2n,
        },
      );
      assert.ok(
        stats.oldestAt !== undefined &&
          stats.newestAt !== undefined &&
          timestampDate(stats.oldestAt) <= timestampDate(stats.newestAt),
      );

      const t1 = await client.getStatistics({ principal: a1, threadId: "t1" });
      assert.deepEqual([t1.entries, t1.threads, t1.ownedEntries, t1.images], [2n, 1n, 1n, 2n]);
      const hidden = await client.getStatistics({ principal: a1, threadId: "t3" });
      const nowhere = await client.getStatistics({ principal: a1, threadId: "no-such-thread" });
      assert.deepEqual(hidden, nowhere, "a thread the caller cannot see reads exactly like one that does not exist");
      assert.deepEqual(
        [hidden.entries, hidden.threads, hidden.oldestAt, hidden.newestAt],
        [0n, 0n, undefined, undefined],
      );

      await expectError(
        client.getStatistics({ principal: a1, threadId: "t".repeat(257) }),
        "INVALID_ARGUMENT",
        /thread_id must be 1 to 256 characters/,
      );
      await expectError(
        client.getStatistics({ principal: principal(tenant, "a1", { scopes: ["context:write"] }) }),
        "PERMISSION_DENIED",
        /context:read/,
      );
    });

    test("statistics per day: every UTC day asked for, entries created by source and trust state, and writes, of visible entries only", async () => {
      const { client, db } = context;
      const tenant = newTenant("daily");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const early = await commitText(client, a1, "t1", "from two days ago", { source: commonV1.Source.AGENT });
      const fresh = await commitText(client, a1, "t1", "from today");
      await commitText(client, a1, "t2", "quarantined today");
      // A neighbour's private entries, today, in the same thread and in its own: never counted for a1.
      await commitText(client, a2, "t1", "a2's private note");
      const hiddenThread = await commitText(client, a2, "t3", "a2's private thread");
      await client.updateEntries({ principal: a2, updates: [{ id: hiddenThread.id, tags: { tags: ["x"] } }] });
      // Two updates of today's entry: its first two versions are kept in history, the third is current.
      for (const tags of [["one"], ["two"]])
        await client.updateEntries({ principal: a1, updates: [{ id: fresh.id, tags: { tags } }] });
      await db.query(
        `UPDATE entries SET created_at = now() - interval '2 days', updated_at = now() - interval '2 days' WHERE id = $1`,
        [early.id],
      );
      await db.query("UPDATE entries SET trust_state = 'quarantined' WHERE tenant = $1 AND thread_id = 't2'", [tenant]);

      const stats = await client.getStatistics({ principal: a1, days: 3 });
      // Days counted back from the store's own today (its clock, not this process's, draws the line at midnight UTC).
      const today = stats.daily.at(-1)?.date ?? "";
      assert.ok(Math.abs(Date.parse(today) - Date.parse(new Date().toISOString().slice(0, 10))) <= 86_400_000);
      const utcDay = (back: number) => new Date(Date.parse(today) - back * 86_400_000).toISOString().slice(0, 10);
      assert.deepEqual(
        stats.daily.map((day) => [
          day.date,
          day.created,
          day.createdByUsers,
          day.createdByAgents,
          day.unverified,
          day.verified,
          day.quarantined,
          day.rejected,
          day.writes,
        ]),
        [
          [utcDay(2), 1n, 0n, 1n, 1n, 0n, 0n, 0n, 1n],
          [utcDay(1), 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n],
          // Today: two entries created by a person (verified, and one now quarantined); writes: the two kept versions, the current one and the
          // quarantined entry's store.
          [utcDay(0), 2n, 2n, 0n, 0n, 1n, 1n, 0n, 4n],
        ],
      );
      assert.equal(stats.entries, 3n, "the counts stay as they were");
      assert.deepEqual((await client.getStatistics({ principal: a1 })).daily, [], "no days unless asked for");
      assert.equal((await client.getStatistics({ principal: a1, days: 366 })).daily.length, 366);
      const inT1 = await client.getStatistics({ principal: a1, threadId: "t1", days: 1 });
      assert.deepEqual([inT1.daily[0]?.created, inT1.daily[0]?.writes], [1n, 3n]);

      // A thread the caller cannot see answers its days exactly like a thread that does not exist.
      const hidden = await client.getStatistics({ principal: a1, threadId: "t3", days: 2 });
      const nowhere = await client.getStatistics({ principal: a1, threadId: "no-such-thread", days: 2 });
      assert.deepEqual(hidden, nowhere);
      assert.ok(hidden.daily.every((day) => day.created === 0n && day.writes === 0n));
      // Its owner sees it: the positive control.
      const own = await client.getStatistics({ principal: a2, threadId: "t3", days: 1 });
      assert.deepEqual([own.daily[0]?.created, own.daily[0]?.writes], [1n, 2n]);

      await expectError(
        client.getStatistics({ principal: a1, days: 367 }),
        "INVALID_ARGUMENT",
        /days must be 0 to 366 \(got 367\)/,
      );
    });
  });
}
