/**
 * The vector-index contract against Qdrant (the in-process stand-in, or the
 * real Qdrant at QDRANT_URL), and what only the Qdrant backend has: the
 * outbox's idempotent delivery, payload refreshes, and an outage that
 * neither fails nor loses a write.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { contentHash, vectorToBytes } from "@context-hub/common";
import { commonV1, storeV1 } from "@context-hub/proto";
import { collectionName, emptySearchFilter, toQdrantFilter, type Principal } from "@context-hub/store/testing";
import { commitWithVectors } from "../retrieval/retrieval-fixtures.js";
import { newTenant, principal } from "../store/store-fixtures.js";
import { defineVectorContractSuite } from "./vector-contract-suite.js";
import {
  direction,
  gaugeValue,
  startQdrantHarness,
  waitFor,
  vectorModel,
  type QdrantHarness,
} from "./vector-fixtures.js";

const asPrincipal = (init: ReturnType<typeof principal>): Principal => ({
  tenant: init.tenant ?? "",
  subject: init.subject ?? "",
  groups: init.groups ?? [],
  scopes: init.scopes ?? [],
});

defineVectorContractSuite({
  name: `Qdrant (${process.env.QDRANT_URL ? "real server at QDRANT_URL" : "test stand-in"})`,
  start: () => startQdrantHarness(),
});

const pointsOf = async (h: QdrantHarness, entryId: string) =>
  (
    await h.direct.scroll(h.collection, {
      filter: { must: [{ key: "entry_id", match: { value: entryId } }] },
      with_payload: true,
      limit: 100,
    })
  ).points;

test("what the outbox has not delivered yet is found the moment it commits, sharing included", async () => {
  const h = await startQdrantHarness();
  try {
    const tenant = newTenant("fresh");
    const a1 = principal(tenant, "a1");
    const a2 = principal(tenant, "a2");
    const delivered = await commitWithVectors(h.client, a1, "n", "delivered long ago", [direction(4, 5, 0.3)]);
    await h.settle();
    // The restarted relay's first round runs as the store starts; then it waits a minute, so everything written below stays in the outbox.
    await h.restartStore({ STORE_QDRANT_RELAY_IDLE_MS: "60000" });
    const first = await commitWithVectors(h.client, a1, "n", "written just now", [direction(4)]);
    const second = await commitWithVectors(h.client, a1, "n", "written just now too", [direction(4, 5, 0.2)]);
    await h.client.share({
      principal: a1,
      entryIds: [delivered],
      grantees: [{ kind: storeV1.GranteeKind.SUBJECT, name: "a2" }],
      permission: storeV1.Permission.READ,
    });
    const { rows } = await h.db.query<{ count: number }>("SELECT count(*)::integer AS count FROM vector_outbox");
    assert.ok((rows[0]?.count ?? 0) >= 3, "nothing has been delivered yet");
    assert.deepEqual(
      (await pointsOf(h, first)).length + (await pointsOf(h, second)).length,
      0,
      "Qdrant has not seen the new entries",
    );
    const mine = await h.searchClient.semanticSearch({
      principal: a1,
      embeddingModel: vectorModel,
      vector: vectorToBytes(direction(4)),
      limit: 5,
    });
    assert.deepEqual(
      [mine.hits.map((hit) => hit.entry?.id), mine.warnings],
      [[first, second, delivered], []],
      "Qdrant's answer and the pending entries, merged in order",
    );
    // A model Qdrant has never seen has no collection yet: PostgreSQL's answer is the whole answer, so no warning.
    const text = "embedded by a model Qdrant has not seen";
    const newModel = await h.client.commit({
      principal: a1,
      entry: { threadId: "n", source: commonV1.Source.USER, text },
      generated: {
        embeddingModel: "brand-new-model",
        embeddingDimension: 3,
        chunks: [{ ordinal: 0, span: { start: 0, end: text.length }, vector: vectorToBytes([1, 0, 0]) }],
        summary: "",
        nodeSummaries: [],
        textHash: contentHash(text),
      },
    });
    const unseen = await h.searchClient.semanticSearch({
      principal: a1,
      embeddingModel: "brand-new-model",
      vector: vectorToBytes([1, 0.1, 0]),
      limit: 5,
    });
    assert.deepEqual([unseen.hits.map((hit) => hit.entry?.id), unseen.warnings], [[newModel.ack?.id], []]);
    const own = await commitWithVectors(h.client, a2, "n", "a2's own note", [direction(4, 5, 0.1)]);
    assert.deepEqual(
      (
        await h.searchClient.semanticSearch({
          principal: a2,
          embeddingModel: vectorModel,
          vector: vectorToBytes(direction(4)),
          limit: 5,
        })
      ).hits.map((hit) => hit.entry?.id),
      [own, delivered],
      "a2 finds its own new note and the one just shared with it (whose payload in Qdrant still says private), and not a1's private ones",
    );
  } finally {
    await h.close();
  }
});

test("the far-behind warning counts only what the caller may see, so other tenants' writes cannot switch it on", async () => {
  const h = await startQdrantHarness();
  try {
    const reader = principal(newTenant("reader"), "r1");
    const other = principal(newTenant("writer"), "w1");
    const mine = await commitWithVectors(h.client, reader, "n", "the reader's own note", [direction(4)]);
    await h.settle();
    await h.restartStore({ STORE_QDRANT_RELAY_IDLE_MS: "60000" });
    const ask = () =>
      h.searchClient.semanticSearch({
        principal: reader,
        embeddingModel: vectorModel,
        vector: vectorToBytes(direction(4)),
        limit: 5,
      });
    const idle = await ask();
    // Another tenant's writes pile up in the outbox, far past what a search would compare exactly.
    const hidden = await commitWithVectors(h.client, other, "n", "another tenant's note", [direction(4, 5, 0.1)]);
    await h.db.query(
      "INSERT INTO vector_outbox (op, target, embedding_model, dimension) SELECT 'chunk_upsert', c.id, c.embedding_model, $2 FROM chunks c, generate_series(1, 2500) WHERE c.entry_id = $1",
      [hidden, direction(4).length],
    );
    const busy = await ask();
    assert.deepEqual(
      [busy.hits.map((hit) => hit.entry?.id), busy.warnings, busy.strategy],
      [[mine], [], idle.strategy],
      "the same answer as with an empty outbox",
    );
    // The caller's own backlog past the limit still warns: its results may miss its newest writes.
    const text = "x".repeat(2_100);
    await commitWithVectors(
      h.client,
      reader,
      "n",
      text,
      Array.from({ length: 2_100 }, (_, i) => direction(4, 5, (i % 7) / 10)),
    );
    const behind = await ask();
    assert.equal(behind.warnings.length, 1);
    assert.match(behind.warnings[0] ?? "", /more than 2000 changes behind/);
  } finally {
    await h.close();
  }
});

describe("the Qdrant backend's outbox", () => {
  let h: QdrantHarness;
  before(async () => {
    h = await startQdrantHarness();
  });
  after(async () => {
    await h?.close();
  });

  const pointsOf = async (entryId: string) =>
    (
      await h.direct.scroll(h.collection, {
        filter: { must: [{ key: "entry_id", match: { value: entryId } }] },
        with_payload: true,
        limit: 100,
      })
    ).points;
  const pointCount = async () => (await h.direct.count(h.collection, { exact: true })).count;
  const search = (caller: ReturnType<typeof principal>, vector: number[]) =>
    h.searchClient.semanticSearch({
      principal: caller,
      embeddingModel: vectorModel,
      vector: vectorToBytes(vector),
      limit: 10,
    });

  test("it describes itself as qdrant, and a point carries its entry's access and filter payload, kept current by grants", async () => {
    assert.equal((await h.client.describe({})).vectorBackend, "qdrant");
    const tenant = newTenant("payload");
    const a1 = principal(tenant, "a1");
    const id = await commitWithVectors(
      h.client,
      a1,
      "thread-p",
      "a note with two chunks of payload",
      [direction(0), direction(1)],
      { tags: ["alpha"] },
    );
    await h.settle();
    const points = await pointsOf(id);
    assert.equal(points.length, 2);
    const { created_at: createdAt, ...payload } = points[0]?.payload ?? {};
    assert.equal(typeof createdAt, "number");
    assert.deepEqual(
      { ...payload, ordinal: 0, start: 0, end: 0 },
      {
        entry_id: id,
        tenant,
        thread_id: "thread-p",
        owner: "a1",
        visibility: "private",
        source: "user",
        content_type: "text",
        trust_state: payload.trust_state,
        tags: ["alpha"],
        readers: [],
        embedding_model: vectorModel,
        dimension: 8,
        ordinal: 0,
        start: 0,
        end: 0,
      },
    );
    await h.client.share({
      principal: a1,
      entryIds: [id],
      grantees: [{ kind: storeV1.GranteeKind.GROUP, name: "ops" }],
      permission: storeV1.Permission.READ,
    });
    await h.client.share({
      principal: a1,
      threadId: "thread-p",
      grantees: [{ kind: storeV1.GranteeKind.SUBJECT, name: "a2" }],
      permission: storeV1.Permission.READ,
    });
    await h.settle();
    for (const point of await pointsOf(id))
      assert.deepEqual([point.payload?.visibility, point.payload?.readers], ["shared", ["group:ops", "subject:a2"]]);
    await h.client.unshare({ principal: a1, entryIds: [id] });
    await h.settle();
    for (const point of await pointsOf(id))
      assert.deepEqual(point.payload?.readers, ["subject:a2"], "the thread grant remains");
    await h.client.deleteEntries({ principal: a1, ids: [id] });
    await h.settle();
    assert.deepEqual(await pointsOf(id), [], "a deleted entry's points are removed");
  });

  test("the payload filter alone keeps out what the caller may not see (the PostgreSQL re-check is the second line)", async () => {
    const tenant = newTenant("payload-filter");
    const a1 = principal(tenant, "a1", { groups: ["eng"] });
    const a2 = principal(tenant, "a2");
    const query = direction(3);
    const own = await commitWithVectors(h.client, a1, "f", "own", [direction(3, 4, 0.3)], { tags: ["x"] });
    const hidden = await commitWithVectors(h.client, a2, "f", "private to a2", [query], { tags: ["x"] });
    const grantedToGroup = await commitWithVectors(h.client, a2, "f", "shared with eng", [direction(3, 4, 0.1)], {
      tags: ["x"],
    });
    const grantedToOther = await commitWithVectors(h.client, a2, "f", "shared with ops only", [direction(3, 4, 0.05)], {
      tags: ["x"],
    });
    const untagged = await commitWithVectors(h.client, a1, "f", "own, untagged", [direction(3, 4, 0.2)]);
    const elsewhere = await commitWithVectors(
      h.client,
      principal(newTenant("payload-filter-other"), "a1"),
      "f",
      "other tenant",
      [query],
      { tags: ["x"] },
    );
    await h.client.share({
      principal: a2,
      entryIds: [grantedToGroup],
      grantees: [{ kind: storeV1.GranteeKind.GROUP, name: "eng" }],
      permission: storeV1.Permission.READ,
    });
    await h.client.share({
      principal: a2,
      entryIds: [grantedToOther],
      grantees: [{ kind: storeV1.GranteeKind.GROUP, name: "ops" }],
      permission: storeV1.Permission.READ,
    });
    await h.settle();
    const entriesFor = async (caller: ReturnType<typeof principal>, tagsAny: string[]) => {
      const filter = toQdrantFilter(asPrincipal(caller), {
        model: vectorModel,
        vector: query,
        limit: 10,
        filter: { ...emptySearchFilter, tagsAny },
      });
      const { points } = await h.direct.query(h.collection, { query, filter, limit: 50, with_payload: true });
      return points.map((point) => point.payload?.entry_id);
    };
    assert.deepEqual(await entriesFor(a1, []), [grantedToGroup, untagged, own]);
    assert.deepEqual(await entriesFor(a1, ["x"]), [grantedToGroup, own]);
    assert.deepEqual(
      await entriesFor(a2, ["x"]),
      [hidden, grantedToOther, grantedToGroup],
      "positive control: the owner",
    );
    assert.ok(!(await entriesFor(a1, [])).includes(elsewhere));
  });

  test("delivery is idempotent: every row delivered again, and stale deletes replayed, change nothing", async () => {
    const a1 = principal(newTenant("redeliver"), "a1");
    const ids = [];
    for (let index = 0; index < 6; index++)
      ids.push(await commitWithVectors(h.client, a1, "r", `redelivered note ${index}`, [direction(2, 3, 0.1 * index)]));
    await h.client.deleteEntries({ principal: a1, ids: [ids[5] ?? ""] });
    await h.settle();
    const before = await search(a1, direction(2));
    const count = await pointCount();
    // Every chunk as an upsert, every entry as a refresh, and a delete for a chunk of a live entry (the relay checks PostgreSQL, so it keeps the point).
    await h.db.query(
      `INSERT INTO vector_outbox (op, target, embedding_model, dimension) SELECT 'chunk_upsert', c.id, c.embedding_model, 8 FROM chunks c
       UNION ALL SELECT 'entry_refresh', e.id, NULL, NULL FROM entries e
       UNION ALL SELECT 'chunk_delete', c.id, c.embedding_model, 8 FROM chunks c WHERE c.entry_id = $1`,
      [ids[0]],
    );
    await h.settle();
    assert.equal(await pointCount(), count);
    const after = await search(a1, direction(2));
    assert.deepEqual(
      after.hits.map((hit) => [hit.entry?.id, hit.score]),
      before.hits.map((hit) => [hit.entry?.id, hit.score]),
    );
    assert.deepEqual(
      after.hits.map((hit) => hit.entry?.id),
      ids.slice(0, 5),
    );
  });

  test("a chunk re-embedded in place (another model) leaves its old collection and enters the new one", async () => {
    const a1 = principal(newTenant("reembed"), "a1");
    const id = await commitWithVectors(h.client, a1, "m", "a note whose model changes", [direction(1)]);
    await h.settle();
    assert.equal((await pointsOf(id)).length, 1);
    await h.db.query(
      "UPDATE chunks SET embedding_model = 'replacement-model', embedding = embedding WHERE entry_id = $1",
      [id],
    );
    await h.settle();
    assert.deepEqual(await pointsOf(id), [], "gone from the old model's collection");
    const moved = collectionName(h.collection.slice(0, h.collection.lastIndexOf("_8d_")), "replacement-model", 8);
    const { points } = await h.direct.scroll(moved, { with_payload: true, limit: 10 });
    assert.deepEqual(
      points.map((point) => [point.payload?.entry_id, point.payload?.embedding_model]),
      [[id, "replacement-model"]],
    );
    const found = await h.searchClient.semanticSearch({
      principal: a1,
      embeddingModel: "replacement-model",
      vector: vectorToBytes(direction(1)),
      limit: 5,
    });
    assert.deepEqual([found.hits.map((hit) => hit.entry?.id), found.warnings], [[id], []]);
  });

  test("an outage: writes succeed, search answers from PostgreSQL with a warning, and the outbox catches up after a restart", async () => {
    const tenant = newTenant("outage");
    const a1 = principal(tenant, "a1");
    const a2 = principal(tenant, "a2");
    const standing = await commitWithVectors(h.client, a1, "o", "written before the outage", [direction(7, 0, 0.3)]);
    const doomed = await commitWithVectors(h.client, a1, "o", "deleted during the outage", [direction(7, 0, 0.2)]);
    await h.settle();
    await waitFor(
      "the lag gauge reading 0",
      async () => (await gaugeValue("contexthub_vector_outbox_lag_seconds")) === 0,
    );

    h.proxy.cut();
    const during = await commitWithVectors(h.client, a1, "o", "written during the outage", [direction(7, 0, 0.1)]);
    await h.client.deleteEntries({ principal: a1, ids: [doomed] });
    await h.client.share({
      principal: a1,
      entryIds: [standing],
      grantees: [{ kind: storeV1.GranteeKind.SUBJECT, name: "a2" }],
      permission: storeV1.Permission.READ,
    });
    const { rows } = await h.db.query<{ count: number }>("SELECT count(*)::integer AS count FROM vector_outbox");
    assert.ok((rows[0]?.count ?? 0) >= 3, "the changes wait in the outbox");

    const fallback = await search(a1, direction(7));
    assert.deepEqual(
      fallback.hits.map((hit) => hit.entry?.id),
      [during, standing],
    );
    assert.match(
      fallback.warnings.join("\n"),
      /the Qdrant vector index is unavailable .*these results come from the vectors kept in PostgreSQL/,
    );
    assert.deepEqual(
      (await search(a2, direction(7))).hits.map((hit) => hit.entry?.id),
      [standing],
      "the share is visible through the fallback, and nothing else",
    );

    // The relay keeps failing while the link is down; its gauges say how far behind it is.
    await h.restartStore();
    await waitFor(
      "the pending gauge reporting the backlog",
      async () => (await gaugeValue("contexthub_vector_outbox_pending")) >= 3,
    );
    assert.ok((await gaugeValue("contexthub_vector_outbox_lag_seconds")) > 0);

    h.proxy.restore();
    await h.settle();
    await waitFor(
      "the lag gauge returning to 0",
      async () => (await gaugeValue("contexthub_vector_outbox_lag_seconds")) === 0,
    );
    assert.equal(await gaugeValue("contexthub_vector_outbox_pending"), 0);
    const recovered = await search(a1, direction(7));
    assert.deepEqual(recovered.warnings, []);
    assert.deepEqual(
      recovered.hits.map((hit) => hit.entry?.id),
      [during, standing],
    );
    assert.deepEqual(await pointsOf(doomed), [], "the delete made during the outage reached Qdrant");
    assert.deepEqual((await pointsOf(during)).length, 1, "so did the write");
    assert.deepEqual((await pointsOf(standing))[0]?.payload?.readers, ["subject:a2"], "and the share");
  });
});
