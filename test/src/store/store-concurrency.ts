/**
 * Concurrency on a real PostgreSQL server: many pool connections, calls
 * fired truly in parallel through gRPC. PGlite has one connection and runs
 * every transaction in turn, so these races can only happen here.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { toJsonString } from "@bufbuild/protobuf";
import { isContextHubError, vectorFromBytes, vectorToBytes } from "@context-hub/common";
import { commonV1, storeV1 } from "@context-hub/proto";
import type { SqlConnection } from "@context-hub/store/testing";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";
import {
  commitText,
  countRows,
  generatedFor,
  newTenant,
  openConnection,
  principal,
  startTestStore,
  textEntry,
  type GeneratedInit,
  type StartedStore,
  type StoreClient,
} from "./store-fixtures.js";

/** Connections the store under test may open: enough that racing calls really run at once. */
const poolMax = 20;

/** The domain error code a settled call failed with, or "ok". */
function outcomeOf(result: PromiseSettledResult<unknown>): string {
  if (result.status === "fulfilled") return "ok";
  return isContextHubError(result.reason) ? result.reason.code : `unexpected: ${String(result.reason)}`;
}

/** Generation output whose every vector carries `marker`, so stored chunks can be traced to the text they were made for. */
function markedGeneration(text: string, marker: number): GeneratedInit {
  const third = Math.floor(text.length / 3);
  return generatedFor(text, {
    chunks: [
      { ordinal: 0, span: { start: 0, end: third }, vector: vectorToBytes([marker, 0, 0, 1]) },
      { ordinal: 1, span: { start: third, end: 2 * third }, vector: vectorToBytes([marker, 1, 0, 1]) },
      { ordinal: 2, span: { start: 2 * third, end: text.length }, vector: vectorToBytes([marker, 2, 0, 1]) },
    ],
    nodeSummaries: [
      {
        nodeId: `n${marker}`,
        heading: `H${marker}`,
        level: 1,
        span: { start: 0, end: text.length },
        summary: `summary ${marker}`,
      },
    ],
  });
}

/**
 * Polls `count` until `work` settles, recording every value seen while it
 * ran (and one after). No sleeps: each poll starts when the previous answered.
 */
async function observeWhile<T>(
  work: Promise<T>,
  count: () => Promise<number>,
): Promise<{ result: PromiseSettledResult<T>; seen: number[]; final: number }> {
  let settled = false;
  const done = work.then(
    (value) => ({ status: "fulfilled" as const, value }),
    (reason: unknown) => ({ status: "rejected" as const, reason }),
  );
  void done.then(() => (settled = true));
  const seen: number[] = [];
  while (!settled) seen.push(await count());
  return { result: await done, seen, final: await count() };
}

export function defineConcurrencyTests(): void {
  describe("store on PostgreSQL server: concurrency", () => {
    let database: TestPostgres;
    let store: StartedStore;
    let client: StoreClient;
    let sql: SqlConnection;

    before(async () => {
      database = await startTestPostgres();
      const options = { url: database.url, dataDir: "", poolMax };
      store = await startTestStore(options);
      client = store.client;
      sql = await openConnection({ ...options, poolMax: 4 });
    });

    after(async () => {
      await sql?.close();
      await store?.close();
      await database?.close();
    });

    test("concurrent updates with the same expected_version: exactly one wins, and the index belongs to its text", async () => {
      for (let round = 0; round < 5; round++) {
        const caller = principal(newTenant("race-update"), "a1");
        const entry = await commitText(client, caller, "t", "the original text");
        const racers = Array.from({ length: 10 }, (_, index) => {
          const text = `racer ${index} rewrote this entry. `.repeat(20 + index);
          return { text, generated: markedGeneration(text, index + 1) };
        });
        const results = await Promise.allSettled(
          racers.map((racer) =>
            client.updateEntries({
              principal: caller,
              atomic: true,
              updates: [{ id: entry.id, expectedVersion: 1, text: racer.text, generated: racer.generated }],
            }),
          ),
        );
        const outcomes = results.map(outcomeOf);
        assert.equal(
          outcomes.filter((outcome) => outcome === "ok").length,
          1,
          `round ${round}: ${outcomes.join(", ")}`,
        );
        assert.equal(
          outcomes.filter((outcome) => outcome === "VERSION_CONFLICT").length,
          9,
          `round ${round}: ${outcomes.join(", ")}`,
        );
        const winner = racers[outcomes.indexOf("ok")]!;
        const stored = (await client.getEntries({ principal: caller, ids: [entry.id] })).entries[0]!;
        assert.deepEqual(
          [stored.version, stored.text, stored.chunkCount],
          [2, winner.text, 3],
          "the version moved once, to the winner's text",
        );
        assert.deepEqual(
          stored.nodeSummaries.map((node) => node.summary),
          [winner.generated.nodeSummaries[0]!.summary],
        );
        const chunks = await sql.query<{ end_offset: number; embedding: string }>(
          "SELECT end_offset, embedding::text AS embedding FROM chunks WHERE entry_id = $1 ORDER BY ordinal",
          [entry.id],
        );
        const marker = vectorFromBytes(winner.generated.chunks[0]!.vector, "vector")[0];
        assert.deepEqual(
          chunks.rows.map((row) => [row.end_offset, Number(row.embedding.slice(1).split(",")[0])]),
          winner.generated.chunks.map((chunk) => [chunk.span!.end, marker]),
          "exactly the winner's chunks: none lost, none doubled, none from a loser",
        );
      }
    });

    test("an update racing a delete never resurrects the entry nor leaves anything of it behind", async () => {
      for (let round = 0; round < 10; round++) {
        const caller = principal(newTenant("race-delete"), "a1");
        const text = "# Doomed\n\nTo be updated and deleted at once.";
        const entry = (
          await client.commit({
            principal: caller,
            entry: textEntry("t", text, {
              images: [
                {
                  mimeType: "image/png",
                  data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]),
                },
              ],
              visibility: commonV1.Visibility.SHARED,
            }),
            generated: markedGeneration(text, 1),
          })
        ).ack!;
        await client.share({
          principal: caller,
          entryIds: [entry.id],
          grantees: [{ kind: storeV1.GranteeKind.SUBJECT, name: "a2" }],
          permission: storeV1.Permission.WRITE,
        });
        const newText = `Rewritten in round ${round}, with new chunks, summaries and images.`;
        const update = () =>
          client.updateEntries({
            principal: caller,
            atomic: true,
            updates: [
              {
                id: entry.id,
                text: newText,
                generated: markedGeneration(newText, 2),
                images: {
                  images: [
                    {
                      mimeType: "image/png",
                      data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 4, 5, 6]),
                    },
                  ],
                },
              },
            ],
          });
        const remove = () => client.deleteEntries({ principal: caller, ids: [entry.id], atomic: true });
        const [updated, deleted] =
          round % 2 === 0
            ? await Promise.allSettled([update(), remove()])
            : (await Promise.allSettled([remove(), update()])).reverse();
        assert.equal(outcomeOf(deleted!), "ok", `round ${round}: the delete always succeeds`);
        assert.ok(
          ["ok", "ENTRY_NOT_FOUND"].includes(outcomeOf(updated!)),
          `round ${round}: the update either ran first or found nothing (${outcomeOf(updated!)})`,
        );
        const left = await Promise.all([
          countRows(sql, "entries", "id = $1", [entry.id]),
          countRows(sql, "chunks", "entry_id = $1", [entry.id]),
          countRows(sql, "node_summaries", "entry_id = $1", [entry.id]),
          countRows(sql, "entry_images", "entry_id = $1", [entry.id]),
          countRows(sql, "grants", "entry_id = $1", [entry.id]),
        ]);
        assert.deepEqual(left, [0, 0, 0, 0, 0], `round ${round}: nothing of the entry is left`);
      }
    });

    test("20 parallel stores by each of two principals into one thread name: 40 rows, each its writer's, none visible to the other", async () => {
      const tenant = newTenant("race-owners");
      const [a1, a2] = [principal(tenant, "a1"), principal(tenant, "a2")];
      const writes = [a1, a2].flatMap((caller) =>
        Array.from({ length: 20 }, (_, index) => ({ caller, text: `${caller.subject} writes note ${index}` })),
      );
      const acks = await Promise.all(
        writes.map(({ caller, text }) =>
          client.commit({ principal: caller, entry: textEntry("shared-name", text), generated: generatedFor(text) }),
        ),
      );
      assert.equal(new Set(acks.map((reply) => reply.ack!.id)).size, 40);
      const owners = await sql.query<{ owner: string; count: number }>(
        "SELECT owner, count(*)::integer AS count FROM entries WHERE tenant = $1 GROUP BY owner ORDER BY owner",
        [tenant],
      );
      assert.deepEqual(owners.rows, [
        { owner: "a1", count: 20 },
        { owner: "a2", count: 20 },
      ]);
      for (const [caller, other] of [
        [a1, "a2"],
        [a2, "a1"],
      ] as const) {
        const listed = await client.listEntries({ principal: caller, filter: { threadId: "shared-name" }, limit: 100 });
        assert.equal(listed.entries.length, 20);
        assert.ok(listed.entries.every((entry) => entry.owner === caller.subject));
        const theirIds = acks
          .filter((_, index) => writes[index]!.caller.subject === other)
          .map((reply) => reply.ack!.id);
        assert.equal((await client.getEntries({ principal: caller, ids: theirIds })).entries.length, 0);
      }
    });

    test("20 parallel identical stores by one principal: one row", async () => {
      const caller = principal(newTenant("race-identical"), "a1");
      const text = "the same words, sent twenty times at once ".repeat(500);
      const acks = await Promise.all(
        Array.from({ length: 20 }, () =>
          client.commit({ principal: caller, entry: textEntry("t", text), generated: generatedFor(text) }),
        ),
      );
      assert.equal(new Set(acks.map((reply) => reply.ack!.id)).size, 1);
      assert.equal(acks.filter((reply) => !reply.ack!.deduplicated).length, 1);
      assert.equal(await countRows(sql, "entries", "tenant = $1", [caller.tenant]), 1);
    });

    test("a concurrent reader sees an atomic batch of 50 all at once or not at all, and a failing one never", async () => {
      const entriesOf = (label: string) =>
        Array.from({ length: 50 }, (_, index) => {
          // Long texts keep the transaction open long enough for many polls to land inside it.
          const text = `${label} entry ${index}: ${"a long report line with many words in it ".repeat(400)}`;
          return { entry: textEntry("batch", text), generated: generatedFor(text) };
        });
      const counter = (tenant: string) => () => countRows(sql, "entries", "tenant = $1", [tenant]);

      const control = principal(newTenant("batch-control"), "a1");
      const piecemeal = await observeWhile(
        client.commitBatch({ principal: control, entries: entriesOf("piecemeal") }),
        counter(control.tenant!),
      );
      assert.equal(piecemeal.final, 50);
      assert.ok(
        piecemeal.seen.some((count) => count > 0 && count < 50),
        `control: the poller does catch a non-atomic batch half-way (saw ${[...new Set(piecemeal.seen)].join(", ")})`,
      );

      const caller = principal(newTenant("batch-atomic"), "a1");
      const atomic = await observeWhile(
        client.commitBatch({ principal: caller, atomic: true, entries: entriesOf("atomic") }),
        counter(caller.tenant!),
      );
      assert.equal(atomic.result.status, "fulfilled");
      assert.ok(atomic.seen.length > 1, "the reader polled while the batch ran");
      assert.deepEqual(
        [...new Set(atomic.seen)].filter((count) => count !== 0 && count !== 50),
        [],
        `only 0 or 50 (saw ${[...new Set(atomic.seen)].join(", ")})`,
      );
      assert.equal(atomic.final, 50);

      const failing = principal(newTenant("batch-failing"), "a1");
      const items = [
        ...entriesOf("failing").slice(0, 49),
        { entry: textEntry("batch", "no generation output and nothing to fold into") },
      ];
      const failed = await observeWhile(
        client.commitBatch({ principal: failing, atomic: true, entries: items }),
        counter(failing.tenant!),
      );
      assert.equal(outcomeOf(failed.result), "DUPLICATE_VANISHED");
      assert.deepEqual([...new Set(failed.seen)], [0], "never a partial batch");
      assert.equal(failed.final, 0);
      assert.equal(await countRows(sql, "chunks", "tenant = $1", [failing.tenant]), 0);
    });

    test("concurrent first uses of one idempotency key write once, and every caller gets the same answer", async () => {
      const caller = principal(newTenant("race-idempotency"), "a1");
      // Different texts under one key: without the key's lock each call would store its own entry.
      const commits = await Promise.all(
        Array.from({ length: 10 }, (_, index) => {
          const text = `attempt ${index}`;
          return client.commit({
            principal: caller,
            entry: textEntry("t", text),
            generated: generatedFor(text),
            idempotency: { key: "once", fingerprint: "fp" },
          });
        }),
      );
      assert.equal(
        new Set(commits.map((reply) => toJsonString(storeV1.CommitResponseSchema, reply))).size,
        1,
        "every caller got the first call's acknowledgement",
      );
      assert.equal(await countRows(sql, "entries", "tenant = $1", [caller.tenant]), 1);
      assert.equal(await countRows(sql, "idempotency_keys", "tenant = $1", [caller.tenant]), 1);

      const entry = commits[0]!.ack!;
      const updates = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          client.updateEntries({
            principal: caller,
            updates: [{ id: entry.id, tags: { tags: [`tag-${index}`] } }],
            idempotency: { key: "update-once", fingerprint: "fp" },
          }),
        ),
      );
      assert.equal(new Set(updates.map((reply) => toJsonString(storeV1.UpdateEntriesResponseSchema, reply))).size, 1);
      assert.equal(
        (await client.getEntries({ principal: caller, ids: [entry.id] })).entries[0]!.version,
        2,
        "one update applied",
      );
    });

    test("atomic updates of the same entries in opposite orders queue instead of deadlocking", async () => {
      const caller = principal(newTenant("race-deadlock"), "a1");
      const x = await commitText(client, caller, "t", "x");
      const y = await commitText(client, caller, "t", "y");
      const calls = Array.from({ length: 20 }, (_, index) =>
        client.updateEntries({
          principal: caller,
          atomic: true,
          updates: (index % 2 === 0 ? [x, y] : [y, x]).map((entry) => ({
            id: entry.id,
            tags: { tags: [`round-${index}`] },
          })),
        }),
      );
      const outcomes = (await Promise.allSettled(calls)).map(outcomeOf);
      assert.deepEqual([...new Set(outcomes)], ["ok"], outcomes.join(", "));
      const stored = (await client.getEntries({ principal: caller, ids: [x.id, y.id] })).entries;
      assert.deepEqual(
        stored.map((entry) => entry.version),
        [21, 21],
        "every call applied to both entries",
      );
    });

    test("sharing a thread while entries are written into it leaves none of the caller's entries there private", async () => {
      for (let round = 0; round < 3; round++) {
        const caller = principal(newTenant("race-share-thread"), "a1");
        const writes = Array.from({ length: 20 }, (_, index) =>
          commitText(client, caller, "project", `note ${index} of round ${round}`),
        );
        const share = client.share({
          principal: caller,
          threadId: "project",
          grantees: [{ kind: storeV1.GranteeKind.SUBJECT, name: "a2" }],
          permission: storeV1.Permission.READ,
        });
        await Promise.all([...writes, share]);
        const visibility = await sql.query<{ visibility: string; count: number }>(
          "SELECT visibility, count(*)::integer AS count FROM entries WHERE tenant = $1 GROUP BY visibility",
          [caller.tenant],
        );
        assert.deepEqual(visibility.rows, [{ visibility: "shared", count: 20 }], `round ${round}`);
      }
    });
  });
}
