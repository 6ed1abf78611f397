import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentHash } from "@context-hub/common";
import { defineStoreSuite } from "./store-suite.js";
import { generatedFor, newTenant, principal, startTestStore, textEntry } from "./store-fixtures.js";

const directories: string[] = [];
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

async function freshDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "context-hub-pglite-"));
  directories.push(directory);
  return directory;
}

after(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

defineStoreSuite({
  name: "PGlite (data directory)",
  persistent: true,
  async createDatabase() {
    const directory = await freshDirectory();
    return {
      options: { url: "", dataDir: join(directory, "data"), poolMax: 1 },
      dispose: () => rm(directory, { recursive: true, force: true }),
    };
  },
  expectedVectorType: async () => "pgvector",
});

describe("store on PGlite (data directory) across restarts", () => {
  test("an acknowledged commit survives closing and reopening the store, and a second store cannot open the same directory", async () => {
    const options = { url: "", dataDir: join(await freshDirectory(), "data"), poolMax: 1 };
    const caller = principal(newTenant("durable"), "a1");
    const text = "Written before the restart.";
    const first = await startTestStore(options);
    let id: string;
    try {
      const ack = (
        await first.client.commit({
          principal: caller,
          entry: textEntry("t", text, { images: [{ mimeType: "image/png", data: png }] }),
          generated: generatedFor(text),
        })
      ).ack!;
      id = ack.id;
      await assert.rejects(startTestStore(options), /in use by another store/);
    } finally {
      await first.close();
    }

    const second = await startTestStore(options);
    try {
      const got = await second.client.getEntries({ principal: caller, ids: [id], includeImages: true });
      assert.equal(got.entries.length, 1);
      const entry = got.entries[0]!;
      assert.equal(entry.text, text);
      assert.equal(entry.contentHash, contentHash(text));
      assert.equal(entry.chunkCount, 2);
      assert.deepEqual([...entry.images[0]!.data], [...png]);
    } finally {
      await second.close();
    }
  });
});
