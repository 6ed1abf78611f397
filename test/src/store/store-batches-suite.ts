/** CommitBatch: all-or-nothing or item by item, with the same per-item semantics as Commit. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { contentHash } from "@context-hub/common";
import { commonV1 } from "@context-hub/proto";
import {
  commitText,
  countRows,
  expectError,
  generatedFor,
  newTenant,
  principal,
  tenantFootprint,
  textEntry,
  type StoreSuiteContext,
} from "./store-fixtures.js";

export function defineBatchTests(context: StoreSuiteContext): void {
  describe("CommitBatch", () => {
    test("an atomic batch stores every entry with its vectors, folding a retransmit like Commit does", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("batch"), "a1");
      const existing = await commitText(client, caller, "t1", "already stored");
      const texts = ["first of the batch", "second of the batch"];
      const reply = await client.commitBatch({
        principal: caller,
        atomic: true,
        entries: [
          { entry: textEntry("t1", "already stored", { tags: ["refolded"] }) },
          { entry: textEntry("t1", texts[0]!, { tags: ["b"] }), generated: generatedFor(texts[0]!) },
          { entry: textEntry("t2", texts[1]!, { source: commonV1.Source.AGENT }), generated: generatedFor(texts[1]!) },
          { entry: textEntry("t1", texts[0]!, { tags: ["b"] }), generated: generatedFor(texts[0]!) },
        ],
      });
      const acks = reply.results.map((result) => result.ack!);
      assert.ok(reply.results.every((result) => result.error === undefined));
      assert.deepEqual(
        acks.map((ack) => ack.contentHash),
        [contentHash("already stored"), contentHash(texts[0]!), contentHash(texts[1]!), contentHash(texts[0]!)],
      );
      assert.deepEqual(
        acks.map((ack) => ack.deduplicated),
        [true, false, false, true],
        "an item folds into the caller's latest identical entry, even one written earlier in the batch",
      );
      assert.deepEqual([acks[0]!.id, acks[0]!.version], [existing.id, 2]);
      assert.deepEqual([acks[3]!.id, acks[3]!.version], [acks[1]!.id, 1]);
      assert.equal(await countRows(db, "entries", "tenant = $1", [caller.tenant]), 3);
      assert.equal(await countRows(db, "chunks", "tenant = $1", [caller.tenant]), 6);
    });

    test("an atomic batch with any failing item stores nothing; a non-atomic one stores the rest and says why each failed", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("batch-failures"), "a1");
      const good = (text: string) => ({ entry: textEntry("t", text), generated: generatedFor(text) });
      // [what is wrong with the middle item, the item, its error code, the atomic call's message, the non-atomic item's message]
      const failing = [
        [
          "no generation and nothing to fold into",
          { entry: textEntry("t", "never generated") },
          "DUPLICATE_VANISHED",
          /^the entry this write was to fold into is gone or has changed; nothing was stored$/,
          /^the entry this write was to fold into is gone or has changed; nothing was stored; generate embeddings and summaries/,
        ],
        [
          "generated for other text",
          { entry: textEntry("t", "the text"), generated: generatedFor("other text") },
          "INVALID_ARGUMENT",
          /^entries\[1\]: generated\.text_hash does not match the text/,
          /^entries\[1\]: generated\.text_hash does not match the text/,
        ],
        [
          "invalid entry",
          { entry: textEntry("", "no thread"), generated: generatedFor("no thread") },
          "INVALID_ARGUMENT",
          /^entries\[1\]: thread_id must be 1 to 256 characters \(got 0\)$/,
          /^entries\[1\]: thread_id must be 1 to 256 characters \(got 0\)$/,
        ],
        [
          "no entry",
          { generated: generatedFor("x") },
          "INVALID_ARGUMENT",
          /^entries\[1\]: entry is required$/,
          /^entries\[1\]: entry is required$/,
        ],
      ] as const;
      for (const [label, item, code, atomicMessage, itemMessage] of failing) {
        const footprint = await tenantFootprint(db, caller.tenant!);
        await expectError(
          client.commitBatch({
            principal: caller,
            atomic: true,
            entries: [good(`before ${label}`), item, good(`after ${label}`)],
          }),
          code,
          atomicMessage,
        );
        assert.deepEqual(
          await tenantFootprint(db, caller.tenant!),
          footprint,
          `${label}: the atomic batch stored nothing`,
        );

        const reply = await client.commitBatch({
          principal: caller,
          entries: [good(`before ${label}`), item, good(`after ${label}`)],
        });
        assert.deepEqual(
          reply.results.map((result) => [result.ack !== undefined, result.error?.code ?? null]),
          [
            [true, null],
            [false, code],
            [true, null],
          ],
          label,
        );
        assert.match(reply.results[1]!.error!.message, itemMessage);
      }
      assert.equal(await countRows(db, "entries", "tenant = $1", [caller.tenant]), 8, "two per non-atomic batch");
    });

    test("a batch holds 1 to 100 entries and needs the write scope", async () => {
      const { client, db } = context;
      const caller = principal(newTenant("batch-limits"), "a1");
      await expectError(
        client.commitBatch({ principal: caller, entries: [] }),
        "INVALID_ARGUMENT",
        /entries must list 1 to 100 items \(got 0\)/,
      );
      const many = Array.from({ length: 101 }, (_, index) => ({
        entry: textEntry("t", `entry ${index}`),
        generated: generatedFor(`entry ${index}`),
      }));
      await expectError(client.commitBatch({ principal: caller, entries: many }), "INVALID_ARGUMENT", /\(got 101\)/);
      await expectError(
        client.commitBatch({
          principal: principal(caller.tenant!, "a1", { scopes: ["context:read"] }),
          entries: many.slice(0, 1),
        }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      const hundred = await client.commitBatch({ principal: caller, atomic: true, entries: many.slice(0, 100) });
      assert.equal(hundred.results.length, 100);
      assert.equal(await countRows(db, "entries", "tenant = $1", [caller.tenant]), 100);
    });
  });
}
