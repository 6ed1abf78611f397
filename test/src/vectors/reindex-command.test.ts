/**
 * `context-hub reindex` against the Qdrant stand-in (or the real Qdrant at
 * QDRANT_URL): it writes every chunk of a PGlite store that never had the
 * outbox on, again harmlessly, and resumes after Qdrant fails mid-run.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { runReindexCommand } from "@context-hub/cli";
import { storeV1 } from "@context-hub/proto";
import { openDatabase } from "@context-hub/store";
import { collectionName, createQdrantClient } from "@context-hub/store/testing";
import { commitWithVectors } from "../retrieval/retrieval-fixtures.js";
import { logger, newTenant, principal, startTestStore } from "../store/store-fixtures.js";
import { startOutageProxy, startQdrantTarget } from "../support/qdrant-server.js";
import { direction, vectorDimension, vectorModel } from "./vector-fixtures.js";

test("reindex writes every chunk with its payload, changes nothing when run again, and resumes after a failure", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "context-hub-reindex-"));
  const qdrant = await startQdrantTarget();
  const proxy = await startOutageProxy(qdrant.url);
  const prefix = `context_hub_reindex_${randomBytes(4).toString("hex")}`;
  const direct = createQdrantClient({
    url: qdrant.url,
    apiKey: qdrant.apiKey,
    collection: prefix,
    timeoutMs: 5_000,
    relayBatch: 1,
    relayIdleMs: 10,
    relayMaxBackoffMs: 250,
    searchPage: 8,
    searchMaxPoints: 100,
  });
  const collection = collectionName(prefix, vectorModel, vectorDimension);
  try {
    // A pgvector store (outbox off) holds 25 entries of two chunks and 5 of one, plus a grant.
    const options = { url: "", dataDir, poolMax: 1 };
    const db = await openDatabase(options, logger);
    const store = await startTestStore(options, db);
    const tenant = newTenant("reindex");
    const a1 = principal(tenant, "a1");
    const ids: string[] = [];
    for (let index = 0; index < 30; index++) {
      const vectors = index < 25 ? [direction(index % 8), direction((index + 1) % 8)] : [direction(index % 8)];
      ids.push(
        await commitWithVectors(store.client, a1, "r", `reindexed entry number ${index} with some text`, vectors),
      );
    }
    await store.client.share({
      principal: a1,
      entryIds: [ids[0] ?? ""],
      grantees: [{ kind: storeV1.GranteeKind.GROUP, name: "ops" }],
      permission: storeV1.Permission.READ,
    });
    await store.close();
    await db.close();

    const env = {
      STORE_DATA_DIR: dataDir,
      STORE_VECTOR_BACKEND: "qdrant",
      STORE_QDRANT_URL: proxy.url,
      STORE_QDRANT_API_KEY: qdrant.apiKey,
      STORE_QDRANT_COLLECTION: prefix,
      LOG_LEVEL: "silent",
    };
    const lines: string[] = [];
    const out: string[] = [];
    // Qdrant goes away after the second batch: the run fails and says how to continue.
    let batches = 0;
    const failing = {
      isTTY: false,
      write(text: string) {
        lines.push(text);
        if (/^reindexed [1-9]/.test(text) && ++batches === 2) proxy.cut();
      },
    };
    await assert.rejects(
      runReindexCommand(["--batch-size", "10"], env, (text) => out.push(text), {
        progress: failing,
        progressLineMs: 0,
      }),
      /reindexing stopped: .*20 chunk\(s\) are written; run `context-hub reindex` again to continue where it stopped/,
    );
    assert.equal((await direct.count(collection, { exact: true })).count, 20);
    assert.match(lines[0] ?? "", /^reindexed 0\/55 chunks \(0%\) {2}[\d.]+ chunks\/s {2}ETA (\d+s|\?)\n$/);

    proxy.restore();
    lines.length = 0;
    assert.equal(
      await runReindexCommand(["--batch-size", "10"], env, (text) => out.push(text), {
        progress: { isTTY: false, write: (text) => void lines.push(text) },
        progressLineMs: 0,
      }),
      0,
    );
    assert.match(
      out.at(-1) ?? "",
      /^Wrote 35 chunk\(s\) to Qdrant .* continuing an interrupted run \(20 were already written\)\.\n$/,
    );
    assert.match(lines[0] ?? "", /^reindexed 20\/55 chunks \(36%\)/, "it starts where the failed run stopped");
    assert.match(lines.at(-1) ?? "", /^reindexed 55\/55 chunks \(100%\) {2}[\d.]+ chunks\/s {2}ETA 0s\n$/);
    assert.equal((await direct.count(collection, { exact: true })).count, 55);
    const [first] = (
      await direct.scroll(collection, {
        filter: { must: [{ key: "entry_id", match: { value: ids[0] ?? "" } }] },
        with_payload: true,
        limit: 5,
      })
    ).points;
    assert.deepEqual(
      [first?.payload?.tenant, first?.payload?.visibility, first?.payload?.readers],
      [tenant, "shared", ["group:ops"]],
    );

    // Again, from the start: the same points, rewritten.
    assert.equal(
      await runReindexCommand([], env, (text) => out.push(text), {
        progress: { isTTY: false, write: () => undefined },
      }),
      0,
    );
    assert.match(out.at(-1) ?? "", /^Wrote 55 chunk\(s\) to Qdrant/);
    assert.equal((await direct.count(collection, { exact: true })).count, 55);
  } finally {
    for (const { name } of (await direct.getCollections()).collections)
      if (name.startsWith(prefix)) await direct.deleteCollection(name);
    await proxy.close();
    await qdrant.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("reindex refuses a pgvector store and bad arguments before opening anything", async () => {
  await assert.rejects(
    runReindexCommand([], { STORE_DATA_DIR: "/nonexistent/never-opened" }, () => undefined),
    /set STORE_VECTOR_BACKEND=qdrant and STORE_QDRANT_URL/,
  );
  await assert.rejects(
    runReindexCommand(["--batch-size", "0"], {}, () => undefined),
    /--batch-size must be a whole number from 1 to 10000 \(got "0"\)/,
  );
  await assert.rejects(
    runReindexCommand([], { STORE_VECTOR_BACKEND: "qdrant" }, () => undefined),
    /STORE_QDRANT_URL: is required when STORE_VECTOR_BACKEND=qdrant/,
  );
  await assert.rejects(
    runReindexCommand(
      [],
      { STORE_VECTOR_BACKEND: "qdrant", STORE_QDRANT_URL: "http://127.0.0.1:1", STORE_DATA_DIR: "memory://" },
      () => undefined,
    ),
    /STORE_DATA_DIR is memory:\/\/: there is nothing stored to reindex/,
  );
});
