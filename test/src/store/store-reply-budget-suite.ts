/** GetEntries holds its reply to a byte budget: entries past it come back as not returned, to fetch again. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { commitText, generatedFor, newTenant, principal, textEntry, type StoreSuiteContext } from "./store-fixtures.js";

const mib = 1024 * 1024;
const budget = 32 * mib;

/** A 10 MiB "PNG": the signature, then zeros. */
function bigPng(): Uint8Array {
  const data = new Uint8Array(10 * mib);
  data.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return data;
}

export function defineReplyBudgetTests(context: StoreSuiteContext): void {
  describe("the GetEntries reply budget", () => {
    test("entries past 32 MiB of reply are listed as not returned, in order, with the reason; asked for again they come back", async () => {
      const { client } = context;
      const caller = principal(newTenant("reply-budget"), "a1");
      const image = bigPng();
      const ids: string[] = [];
      for (const name of ["one", "two", "three", "four"]) {
        const text = `Scan ${name}, with its 10 MiB image.`;
        const { ack } = await client.commit({
          principal: caller,
          entry: textEntry("scans", text, { images: [{ mimeType: "image/png", data: image }] }),
          generated: generatedFor(text),
        });
        ids.push(ack!.id);
      }
      const small = await commitText(client, caller, "scans", "A note without images.");

      const all = await client.getEntries({ principal: caller, ids: [...ids, small.id], includeImages: true });
      assert.deepEqual(
        all.entries.map((entry) => entry.id),
        ids.slice(0, 3),
        "three 10 MiB entries fit 32 MiB; the fourth would not",
      );
      assert.ok(all.entries.every((entry) => entry.images[0]?.data.length === 10 * mib));
      assert.deepEqual(
        all.notReturned.map((item) => item.id),
        [ids[3], small.id],
        "the rest, in the order asked for, even the small one after it",
      );
      assert.ok(Number(all.notReturned[0]!.sizeBytes) > 10 * mib);
      assert.match(all.notReturned[0]!.reason, /the reply reached its 32 MiB budget; fetch it in another call/);
      assert.deepEqual(all.missing, [], "not returned is not missing");
      const returnedBytes = all.entries.reduce(
        (sum, entry) =>
          sum + entry.images.reduce((bytes, one) => bytes + one.data.length, 0) + Buffer.byteLength(entry.text),
        0,
      );
      assert.ok(returnedBytes <= budget, `${returnedBytes} bytes within the budget`);

      const rest = await client.getEntries({
        principal: caller,
        ids: all.notReturned.map((item) => item.id),
        includeImages: true,
      });
      assert.deepEqual(
        rest.entries.map((entry) => entry.id),
        [ids[3], small.id],
      );
      assert.deepEqual(rest.notReturned, []);

      // Without image data the same call is small: everything comes back.
      const textOnly = await client.getEntries({ principal: caller, ids: [...ids, small.id], includeImages: false });
      assert.equal(textOnly.entries.length, 5);
      assert.deepEqual(textOnly.notReturned, []);
    });

    test("the budget counts only what the caller may see: a hidden or missing id is missing, not 'not returned'", async () => {
      const { client } = context;
      const owner = principal(newTenant("reply-budget-hidden"), "a1");
      const other = principal(owner.tenant!, "a2");
      const mine = await commitText(client, owner, "t", "Private to its owner.");
      const reply = await client.getEntries({ principal: other, ids: [mine.id], includeImages: true });
      assert.deepEqual([reply.entries, reply.notReturned, reply.missing], [[], [], [mine.id]]);
    });
  });
}
