import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { automaticSharedBuffersMb, directoryBytes, sharedBuffersFor } from "./pglite-buffers.js";
import { createPgliteConnection } from "./pglite-database.js";

const mb = 1024 * 1024;

test("an automatic cache is a quarter more than the relation files, in steps of 64 MB, from 128 to 1,024 MB", () => {
  assert.equal(automaticSharedBuffersMb(0, 1280), 128);
  assert.equal(automaticSharedBuffersMb(100 * mb, 1280), 128);
  // 543 MB of relation files (100,000 entries of the retrieval bench): 679 MB, rounded up to 704.
  assert.equal(automaticSharedBuffersMb(543 * mb, 1280), 704);
  assert.equal(automaticSharedBuffersMb(8000 * mb, 1280), 1024);
  // What an index build leaves is the ceiling; below PGlite's own default, the default stays.
  assert.equal(automaticSharedBuffersMb(8000 * mb, 700), 700);
  assert.equal(automaticSharedBuffersMb(8000 * mb, 136), 136);
  assert.equal(automaticSharedBuffersMb(8000 * mb, 40), 128);
});

test("the cache follows the data directory's relation files; a set size wins, and an in-memory database keeps the default", async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), "context-hub-buffers-"));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const ceiling = { mb: 0, ceilingMb: 1280 };
  assert.equal(await directoryBytes(join(dataDir, "base")), 0);
  assert.equal(await sharedBuffersFor(dataDir, ceiling), 128);
  // Relation files sit in base/<database oid>/; files elsewhere in the directory (the WAL, say) do not count.
  await mkdir(join(dataDir, "base", "5"), { recursive: true });
  await writeFile(join(dataDir, "base", "5", "16384"), Buffer.alloc(3 * mb));
  await writeFile(join(dataDir, "base", "5", "16384.1"), Buffer.alloc(2 * mb));
  await mkdir(join(dataDir, "pg_wal"));
  await writeFile(join(dataDir, "pg_wal", "000000010000000000000001"), Buffer.alloc(4 * mb));
  assert.equal(await directoryBytes(join(dataDir, "base")), 5 * mb);
  assert.equal(await sharedBuffersFor(dataDir, ceiling), 128);
  assert.equal(await sharedBuffersFor(dataDir, { mb: 300, ceilingMb: 1280 }), 300);
  assert.equal(await sharedBuffersFor(undefined, ceiling), 128);
});

test("PGlite starts with the cache it is given, and with PGlite's default when nothing asks for more", async () => {
  const sized = await createPgliteConnection({ dataDir: "memory://", sharedBuffers: { mb: 192, ceilingMb: 1280 } });
  const plain = await createPgliteConnection({ dataDir: "memory://" });
  try {
    const shown = async (db: typeof sized) =>
      (await db.query<{ shared_buffers: string }>("SHOW shared_buffers")).rows[0]?.shared_buffers;
    assert.equal(await shown(sized), "192MB");
    assert.equal(await shown(plain), "128MB");
  } finally {
    await sized.close();
    await plain.close();
  }
});
