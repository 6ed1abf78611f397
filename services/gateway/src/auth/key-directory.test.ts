import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateApiKey, hashApiKey } from "@context-hub/common";
import { waitFor } from "@context-hub/common/testing";
import { createApiKeyVerifier } from "./authenticate.js";
import {
  cacheDirectory,
  layerDirectories,
  readKeysFile,
  revokedKey,
  watchKeysFile,
  type ApiKeyRecord,
  type KeyDirectory,
  type KeyLookup,
} from "./key-directory.js";

const record = (subject: string): ApiKeyRecord => ({
  principal: { tenant: "acme", subject, groups: [], scopes: ["context:read"] },
  expiresAt: undefined,
});

/** A directory that answers from a map and counts its lookups. */
function countingDirectory(answers: Map<string, KeyLookup>): KeyDirectory & { lookups: string[] } {
  const lookups: string[] = [];
  return { lookups, lookup: async (hash) => (lookups.push(hash), answers.get(hash)) };
}

function keysFileAt(entries: unknown[]): { path: string; write(entries: unknown[]): void; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), "context-hub-keys-test-"));
  const path = join(dir, "keys.json");
  const write = (list: unknown[]) => writeFileSync(path, JSON.stringify({ keys: list }));
  write(entries);
  return { path, write, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

const quietLog = () => {
  const lines: string[] = [];
  return {
    lines,
    info: (_fields: Record<string, unknown>, message: string) => lines.push(`info ${message}`),
    error: (_fields: Record<string, unknown>, message: string) => lines.push(`error ${message}`),
  };
};

test("the key cache evicts the least recently used entry instead of forgetting everything", async () => {
  const store = countingDirectory(new Map([["a", record("a")]]));
  const cache = cacheDirectory(store, 60_000, 3, () => 0);
  await cache.lookup("a");
  for (const made_up of ["x1", "x2"]) await cache.lookup(made_up);
  await cache.lookup("a"); // a hit: a becomes the most recently used
  for (const made_up of ["x3", "x4", "x5"]) await cache.lookup(made_up);
  store.lookups.length = 0;
  // a survived a flood of made-up keys only if it was used recently; here three newer misses pushed it out.
  await cache.lookup("x5");
  assert.deepEqual(store.lookups, [], "the newest entries are cached");
  await cache.lookup("a");
  assert.deepEqual(store.lookups, ["a"], "with room for three, the fourth-most-recent entry made room");

  const busy = countingDirectory(new Map([["a", record("a")]]));
  const lru = cacheDirectory(busy, 60_000, 3, () => 0);
  for (let index = 0; index < 100; index++) {
    await lru.lookup("a");
    await lru.lookup(`made-up-${index}`);
  }
  assert.equal(
    busy.lookups.filter((hash) => hash === "a").length,
    1,
    "a key in use stays cached through 100 made-up ones",
  );
});

test("cached entries expire after the time to live, revocations included", async () => {
  let now = 0;
  const answers = new Map<string, KeyLookup>([["a", record("a")]]);
  const store = countingDirectory(answers);
  const cache = cacheDirectory(store, 1_000, 10, () => now);
  assert.notEqual(await cache.lookup("a"), undefined);
  answers.set("a", revokedKey);
  now = 999;
  assert.notEqual(await cache.lookup("a"), revokedKey, "within the time to live");
  now = 1_000;
  assert.equal(await cache.lookup("a"), revokedKey);
});

test("a revocation in the store wins over the file; otherwise the file's record is used, even when the store is down", async () => {
  const file = countingDirectory(
    new Map([
      ["both", record("from-file")],
      ["file-only", record("file-only")],
    ]),
  );
  const answers = new Map<string, KeyLookup>([
    ["both", record("from-store")],
    ["store-only", record("store-only")],
  ]);
  const store = countingDirectory(answers);
  const layered = layerDirectories(file, store);
  assert.equal(((await layered.lookup("both")) as ApiKeyRecord).principal.subject, "from-file");
  assert.equal(((await layered.lookup("store-only")) as ApiKeyRecord).principal.subject, "store-only");
  assert.equal(await layered.lookup("unknown"), undefined);
  answers.set("both", revokedKey);
  assert.equal(await layered.lookup("both"), revokedKey, "revoked in the store: refused though the file lists it");

  const down: KeyDirectory = { lookup: () => Promise.reject(new Error("store unavailable")) };
  const degraded = layerDirectories(file, down);
  assert.equal(((await degraded.lookup("file-only")) as ApiKeyRecord).principal.subject, "file-only");
  await assert.rejects(degraded.lookup("store-only"), /store unavailable/);
});

test("a revoked key is refused by the verifier with the same words as an unknown one", async () => {
  const key = generateApiKey();
  const verifier = createApiKeyVerifier({ lookup: async () => revokedKey });
  const outcome = await verifier.verify(key);
  assert.equal(outcome.ok, false);
  assert.match(!outcome.ok ? outcome.failure.description : "", /^The API key is not valid \(unknown or revoked\)$/);
});

test("a key whose subject is the operator's name is refused at authentication, and a keys file naming it does not load", async () => {
  const verifier = createApiKeyVerifier({ lookup: async () => record("operator") });
  const outcome = await verifier.verify(generateApiKey());
  assert.match(
    !outcome.ok ? outcome.failure.description : "",
    /The API key's subject "operator" is reserved: the audit log records operator actions under that name/,
  );
  const file = keysFileAt([{ key: generateApiKey(), tenant: "acme", subject: "Operator", scopes: ["context:read"] }]);
  try {
    assert.throws(
      () => readKeysFile(file.path),
      /keys\.0\.subject: subject is reserved: the audit log records operator actions under that name/,
    );
  } finally {
    file.dispose();
  }
});

test("a watched keys file takes a valid change, keeps its keys through an invalid one, and reloads on demand", async () => {
  const first = generateApiKey();
  const second = generateApiKey();
  const entry = (key: string, subject: string) => ({ key, tenant: "acme", subject, scopes: ["context:read"] });
  const file = keysFileAt([entry(first, "first")]);
  const log = quietLog();
  // A poll too slow to matter: reload() stands for SIGHUP.
  const watched = watchKeysFile(file.path, { pollMs: 3_600_000, log });
  try {
    assert.notEqual(await watched.lookup(hashApiKey(first)), undefined);
    assert.equal(watched.reload(), false, "unchanged");
    file.write([entry(second, "second")]);
    assert.equal(watched.reload(), true);
    assert.equal(await watched.lookup(hashApiKey(first)), undefined, "a key removed from the file stops working");
    assert.notEqual(await watched.lookup(hashApiKey(second)), undefined, "a key added works");
    writeFileSync(file.path, '{"keys": [ {"key": "half-writ');
    assert.equal(watched.reload(), false);
    assert.notEqual(
      await watched.lookup(hashApiKey(second)),
      undefined,
      "an invalid file leaves the loaded keys in force",
    );
    assert.ok(
      log.lines.some((line) => /^error the API keys file changed but is invalid/.test(line)),
      log.lines.join("\n"),
    );
  } finally {
    watched.close();
    file.dispose();
  }
});

test("a watched keys file notices a change without being asked", async () => {
  const first = generateApiKey();
  const second = generateApiKey();
  const file = keysFileAt([{ key: first, tenant: "acme", subject: "first", scopes: ["context:read"] }]);
  const watched = watchKeysFile(file.path, { pollMs: 200, log: quietLog() });
  try {
    file.write([{ key: second, tenant: "acme", subject: "second", scopes: ["context:read"] }]);
    // The change arrives through the file system (a directory watch or the poll), so the test waits on its effect.
    await waitFor(() => watched.lookup(hashApiKey(second)), {
      what: "the new key to be picked up by the directory watch or the poll",
    });
  } finally {
    watched.close();
    file.dispose();
  }
});
