import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentHash, createGrpcClient, vectorToBytes } from "@context-hub/common";
import { commonV1, searchV1 } from "@context-hub/proto";
import { loadStoreConfig, openDatabase, startStore, type SqlDatabase } from "@context-hub/store";
import {
  defaultVectorIndexSettings,
  emptySearchFilter,
  newGraph,
  searchGraph,
  type Space,
} from "@context-hub/store/testing";
import { commitWithVectors } from "../retrieval/retrieval-fixtures.js";
import { logger, newTenant, principal, type PrincipalInit } from "../store/store-fixtures.js";
import { createStoreClient } from "../support/store-client.js";
import { defineVectorContractSuite } from "./vector-contract-suite.js";
import { direction, gaugeValue, startGraphHarness, vectorDimension, vectorModel, waitFor } from "./vector-fixtures.js";

defineVectorContractSuite({ name: "the graph in the store process (PGlite)", start: () => startGraphHarness() });

/** A unit vector of the fixtures' dimension drawn from `seed` (a small deterministic generator, so a failure replays). */
function randomDirection(seed: number): number[] {
  let state = seed * 2654435761 + 1;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  };
  const vector = Array.from({ length: vectorDimension }, next);
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
}

test("the graph backend describes itself, builds no pgvector index, and answers what an exact scan answers", async () => {
  const h = await startGraphHarness();
  try {
    const a1 = principal(newTenant("graph-exact"), "a1");
    const count = 600;
    for (let index = 0; index < count; index++)
      await commitWithVectors(h.client, a1, "many", `entry ${index}`, [randomDirection(index)]);
    assert.equal((await h.client.describe({})).vectorBackend, "graph");
    const { rows: indexes } = await h.db.query<{ count: number }>(
      "SELECT count(*)::integer AS count FROM pg_indexes WHERE indexname LIKE 'chunks_hnsw_%'",
    );
    assert.equal(indexes[0]?.count, 0, "commits insert into no pgvector graph");
    assert.equal(await gaugeValue("contexthub_vector_graph_points"), count, "every committed chunk is in the graph");

    // The same queries against a store that compares exactly (the graph backend below its threshold).
    const { rows: entries } = await h.db.query<{ id: string; embedding: string }>(
      "SELECT e.id::text AS id, c.embedding::text AS embedding FROM entries e JOIN chunks c ON c.entry_id = e.id",
    );
    const stored = entries.map((row) => ({ id: row.id, vector: JSON.parse(row.embedding) as number[] }));
    let agreeing = 0;
    const queries = 20;
    for (let q = 0; q < queries; q++) {
      const query = randomDirection(100_000 + q);
      const reply = await h.searchClient.semanticSearch({
        principal: a1,
        embeddingModel: vectorModel,
        vector: vectorToBytes(query),
        limit: 10,
      });
      assert.equal(reply.strategy, "ann", "the graph answered");
      const cosine = (v: number[]) =>
        v.reduce((sum, x, i) => sum + x * (query[i] ?? 0), 0) / (Math.hypot(...v) * Math.hypot(...query));
      const exact = [...stored].sort((a, b) => cosine(b.vector) - cosine(a.vector)).slice(0, 10);
      const got = reply.hits.map((hit) => hit.entry?.id);
      if (JSON.stringify(got) === JSON.stringify(exact.map((row) => row.id))) agreeing += 1;
      for (const hit of reply.hits) {
        const row = stored.find((candidate) => candidate.id === hit.entry?.id);
        assert.ok(
          row !== undefined && Math.abs(hit.score - cosine(row.vector)) < 1e-5,
          "scores are the exact cosine similarity",
        );
      }
    }
    assert.ok(
      agreeing >= queries - 1,
      `the graph's top 10 equals the exact top 10 for ${agreeing} of ${queries} queries`,
    );
  } finally {
    await h.close();
  }
});

test("a transaction that fails after inserting chunks leaves nothing in the graph", async () => {
  const h = await startGraphHarness();
  try {
    const a1 = principal(newTenant("graph-rollback"), "a1");
    const first = await commitWithVectors(h.client, a1, "t", "the entry that commits", [direction(0)]);
    const before = await gaugeValue("contexthub_vector_graph_points");
    const text = "the batch's first entry, rolled back";
    const good = {
      entry: { threadId: "t", source: commonV1.Source.USER, text },
      generated: {
        embeddingModel: vectorModel,
        embeddingDimension: vectorDimension,
        chunks: [{ ordinal: 0, span: { start: 0, end: text.length }, vector: vectorToBytes(direction(2)) }],
        summary: "",
        nodeSummaries: [],
        textHash: contentHash(text),
      },
    };
    // The second item has nothing generated and nothing to fold into: the store finds that inside the transaction, after the first item's chunks went in.
    await assert.rejects(
      h.client.commitBatch({
        principal: a1,
        atomic: true,
        entries: [good, { entry: { threadId: "t", source: commonV1.Source.USER, text: "never generated" } }],
      }),
      /nothing was stored/,
    );
    assert.equal(
      await gaugeValue("contexthub_vector_graph_points"),
      before,
      "the rolled-back chunk is not in the graph",
    );
    const reply = await h.searchClient.semanticSearch({
      principal: a1,
      embeddingModel: vectorModel,
      vector: vectorToBytes(direction(2)),
      limit: 5,
    });
    assert.deepEqual(
      reply.hits.map((hit) => hit.entry?.id),
      [first],
      "only the committed entry answers",
    );
    await h.client.commitBatch({ principal: a1, atomic: true, entries: [good] });
    assert.equal(
      await gaugeValue("contexthub_vector_graph_points"),
      before + 1,
      "positive control: the same item alone commits and is added",
    );
  } finally {
    await h.close();
  }
});

interface DiskStore {
  search(caller: PrincipalInit, vector: number[], limit?: number): Promise<string[]>;
  commit(caller: PrincipalInit, text: string, vector: number[]): Promise<string>;
  remove(caller: PrincipalInit, id: string): Promise<void>;
  close(): Promise<void>;
}

/** A store that owns a PGlite database on disk, as `context-hub start` runs it. */
async function startDiskStore(dataDir: string): Promise<DiskStore> {
  const config = loadStoreConfig({
    STORE_PORT: "0",
    STORE_OPS_PORT: "-1",
    STORE_DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    STORE_VECTOR_BACKEND: "graph",
    STORE_VECTOR_EXACT_BELOW: "0",
  });
  const service = await startStore(config, logger);
  const address = `127.0.0.1:${service.port}`;
  const client = createStoreClient({ address, peer: "store", deadlineMs: 60_000 });
  const searchClient = createGrpcClient(searchV1.SearchService, { address, peer: "store", deadlineMs: 60_000 });
  return {
    async search(caller, vector, limit = 10) {
      const reply = await searchClient.semanticSearch({
        principal: caller,
        embeddingModel: vectorModel,
        vector: vectorToBytes(vector),
        limit,
      });
      assert.equal(reply.strategy, "ann");
      return reply.hits.map((hit) => hit.entry?.id ?? "");
    },
    commit: (caller, text, vector) => commitWithVectors(client, caller, "disk", text, [vector]),
    async remove(caller, id) {
      await client.deleteEntries({ principal: caller, ids: [id] });
    },
    async close() {
      client.close();
      searchClient.close();
      await service.close();
    },
  };
}

test("the graph is saved in the data directory and caught up with the stored chunks when the store starts", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-graph-"));
  const snapshot = mkdtempSync(join(tmpdir(), "context-hub-graph-snapshot-"));
  const graphs = join(dataDir, "vector-graphs");
  try {
    const a1 = principal(newTenant("graph-disk"), "a1");
    let store = await startDiskStore(dataDir);
    const early = [];
    for (let index = 0; index < 30; index++)
      early.push(await store.commit(a1, `early ${index}`, randomDirection(index)));
    await store.close();
    assert.ok(
      readdirSync(graphs).some((name) => name.endsWith(".json")),
      "a manifest was saved",
    );
    cpSync(graphs, snapshot, { recursive: true });

    // Writes and a delete after that save; then the graph files are put back as they were, as after a crash before the next save.
    store = await startDiskStore(dataDir);
    const late = [];
    for (let index = 30; index < 45; index++)
      late.push(await store.commit(a1, `late ${index}`, randomDirection(index)));
    await store.remove(a1, early[0]!);
    await store.close();
    rmSync(graphs, { recursive: true });
    cpSync(snapshot, graphs, { recursive: true });

    store = await startDiskStore(dataDir);
    assert.equal(
      await gaugeValue("contexthub_vector_graph_points"),
      44,
      "the late chunks were added and the deleted one removed",
    );
    for (const [index, id] of late.entries())
      assert.equal((await store.search(a1, randomDirection(30 + index), 1))[0], id, `late entry ${index} is found`);
    assert.ok(!(await store.search(a1, randomDirection(0), 45)).includes(early[0]!), "the deleted entry is not");
    assert.equal((await store.search(a1, randomDirection(5), 1))[0], early[5], "an early entry is found");
    await store.close();

    // A graph file that cannot be read is rebuilt from the chunks, not trusted.
    for (const name of readdirSync(graphs))
      if (name.endsWith(".usearch")) writeFileSync(join(graphs, name), "not a graph");
    store = await startDiskStore(dataDir);
    assert.equal(await gaugeValue("contexthub_vector_graph_points"), 44);
    assert.equal((await store.search(a1, randomDirection(40), 1))[0], late[10]);
    await store.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(snapshot, { recursive: true, force: true });
  }
});

/** `db`, except that the graph's catch-up read of the stored chunk ids waits until `gate` resolves. */
function withGatedCatchUp(db: SqlDatabase, gate: Promise<void>): SqlDatabase {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== "query") {
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      }
      return async (sql: string, params?: unknown[]) => {
        if (sql.startsWith("SELECT id::text AS id FROM chunks WHERE embedding_model")) await gate;
        return target.query(sql, params);
      };
    },
  });
}

/** A graph store on `db` (its graph kept in memory), and semantic search that reports its strategy. */
async function startStoreOn(db: SqlDatabase, overrides: Record<string, string> = {}) {
  const config = loadStoreConfig({
    STORE_PORT: "0",
    STORE_OPS_PORT: "-1",
    STORE_DATA_DIR: "memory://",
    LOG_LEVEL: "silent",
    STORE_VECTOR_BACKEND: "graph",
    STORE_VECTOR_EXACT_BELOW: "0",
    ...overrides,
  });
  const service = await startStore(config, logger, { database: db });
  const address = `127.0.0.1:${service.port}`;
  const client = createStoreClient({ address, peer: "store", deadlineMs: 60_000 });
  const searchClient = createGrpcClient(searchV1.SearchService, { address, peer: "store", deadlineMs: 60_000 });
  return {
    commit: (caller: PrincipalInit, text: string, vector: number[]) =>
      commitWithVectors(client, caller, "late", text, [vector]),
    async nearest(caller: PrincipalInit, vector: number[]) {
      const reply = await searchClient.semanticSearch({
        principal: caller,
        embeddingModel: vectorModel,
        vector: vectorToBytes(vector),
        limit: 1,
      });
      return { strategy: reply.strategy, id: reply.hits[0]?.entry?.id };
    },
    async close() {
      client.close();
      searchClient.close();
      await service.close();
    },
  };
}

test("a store whose graph is still catching up serves at once, its semantic searches exact until the graph is done", async () => {
  const db = await openDatabase({ url: "", dataDir: "memory://", poolMax: 1 }, logger);
  try {
    const a1 = principal(newTenant("graph-late"), "a1");
    let store = await startStoreOn(db);
    const ids = [];
    for (let index = 0; index < 20; index++) ids.push(await store.commit(a1, `note ${index}`, randomDirection(index)));
    await store.close();

    // The next start rebuilds the graph from the chunks (it is kept in memory only); that rebuild is held back.
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    store = await startStoreOn(withGatedCatchUp(db, gate), { STORE_VECTOR_GRAPH_START_WAIT_MS: "0" });
    assert.deepEqual(
      await store.nearest(a1, randomDirection(7)),
      { strategy: "exact", id: ids[7] },
      "served before the graph caught up, by the exact scan",
    );
    release();
    await waitFor("the graph answering", async () => (await store.nearest(a1, randomDirection(7))).strategy === "ann");
    assert.equal((await store.nearest(a1, randomDirection(12))).id, ids[12], "the caught-up graph finds the entries");
    await store.close();

    // Stopping a store whose graph is still catching up ends the catch-up; the database stays usable.
    let releaseAgain = () => {};
    const heldAgain = new Promise<void>((resolve) => (releaseAgain = resolve));
    store = await startStoreOn(withGatedCatchUp(db, heldAgain), { STORE_VECTOR_GRAPH_START_WAIT_MS: "0" });
    await store.close();
    releaseAgain();
    store = await startStoreOn(db);
    assert.deepEqual(await store.nearest(a1, randomDirection(3)), { strategy: "ann", id: ids[3] });
    await store.close();
  } finally {
    await db.close();
  }
});

test("a search among chunks still waiting for the graph re-checks the nearest a page at a time, past the ones the caller may not see", async () => {
  const h = await startGraphHarness();
  try {
    const tenant = newTenant("graph-pending");
    const a1 = principal(tenant, "a1");
    const a2 = principal(tenant, "a2");
    const tilted = (tilts: number[]) => tilts.map((tilt) => direction(0, 1, tilt));
    const range = (count: number, from: number, step: number) =>
      Array.from({ length: count }, (_, index) => from + index * step);
    // Nearest of all: a2's private entry, 200 chunks a1 may not see.
    await commitWithVectors(h.client, a2, "near", "hidden ".repeat(400), tilted(range(200, 0, 0.0005)));
    // What a1 may see: six of its own entries (best chunk at tilt 0.2, 0.3, …), one of a2's shared with the tenant
    // (0.25), and a far entry of 300 chunks.
    const own: string[] = [];
    for (let k = 0; k < 6; k++)
      own.push(
        await commitWithVectors(h.client, a1, "mine", `own ${k} `.repeat(50), tilted(range(10, 0.2 + 0.1 * k, 0.005))),
      );
    const shared = await commitWithVectors(h.client, a2, "near", "shared ".repeat(50), tilted(range(10, 0.25, 0.005)), {
      visibility: commonV1.Visibility.TENANT,
    });
    await commitWithVectors(h.client, a1, "far", "far ".repeat(600), tilted(range(300, 1.2, 0.001)));

    // A graph with nothing in it yet and every chunk of the tenant waiting for it.
    const { rows } = await h.db.query<{ id: string; embedding: string }>(
      "SELECT c.id::text AS id, c.embedding::text AS embedding FROM chunks c WHERE c.tenant = $1 ORDER BY c.id DESC",
      [tenant],
    );
    const space: Space = {
      model: vectorModel,
      dimension: vectorDimension,
      graph: newGraph(defaultVectorIndexSettings, vectorDimension),
      ids: new Map(),
      changed: false,
      pending: rows.map((row) => ({ id: row.id, model: vectorModel, vector: JSON.parse(row.embedding) as number[] })),
      ready: true,
    };
    const rechecked: number[] = [];
    const counting = {
      ...h.db,
      query: (text: string, params?: readonly unknown[]) => {
        if (text.includes("c.id = ANY("))
          rechecked.push(Math.max(0, ...(params ?? []).filter(Array.isArray).map((ids) => ids.length)));
        return h.db.query(text, params);
      },
    } as SqlDatabase;
    const result = await searchGraph(
      counting,
      space,
      { tenant, subject: "a1", groups: [], scopes: ["context:read"] },
      {
        model: vectorModel,
        vector: direction(0),
        filter: emptySearchFilter,
        limit: 3,
      },
    );
    assert.deepEqual(
      result?.hits.map((hit) => hit.entryId),
      [own[0], shared, own[1]],
      "the three nearest entries a1 may see, as an exact scan ranks them",
    );
    assert.ok(
      Math.abs((result?.hits[0]?.distance ?? 0) - (1 - Math.cos(0.2))) < 1e-6,
      "distances are PostgreSQL's exact ones",
    );
    // The first page (64) holds only a2's hidden chunks; the second reaches a1's entries and stops there.
    assert.deepEqual(
      rechecked,
      [64, 256],
      `pages re-checked: ${rechecked.join(", ")} of ${space.pending.length} waiting`,
    );
  } finally {
    await h.close();
  }
});
