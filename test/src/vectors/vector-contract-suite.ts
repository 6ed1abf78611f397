/**
 * The vector-index contract: what semantic search must do whichever backend
 * answers it (pgvector inside PostgreSQL, or Qdrant fed from the outbox).
 * Run unchanged against each; every search goes through SearchService over
 * gRPC. `settle()` waits until the index has caught up with committed
 * writes; checks that must hold before it (deletes, revoked grants) run
 * without it, because the PostgreSQL re-check decides those at once.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fromJson, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { contentHash, vectorToBytes } from "@context-hub/common";
import { commonV1, storeV1 } from "@context-hub/proto";
import { commitWithVectors } from "../retrieval/retrieval-fixtures.js";
import { newTenant, principal, type PrincipalInit } from "../store/store-fixtures.js";
import { direction, vectorModel, type VectorHarness } from "./vector-fixtures.js";

type Filter = MessageInitShape<typeof storeV1.EntryFilterSchema>;

const subject = (name: string) => ({ kind: storeV1.GranteeKind.SUBJECT, name });
const group = (name: string) => ({ kind: storeV1.GranteeKind.GROUP, name });

export interface VectorTarget {
  name: string;
  start(): Promise<VectorHarness>;
}

/** Commits an entry whose chunks sit exactly at `vectors` (one chunk per vector, the text cut into equal spans). */
const commit = (
  h: VectorHarness,
  caller: PrincipalInit,
  thread: string,
  text: string,
  vectors: number[][],
  overrides: Parameters<typeof commitWithVectors>[5] = {},
) => commitWithVectors(h.client, caller, thread, text, vectors, overrides);

export function defineVectorContractSuite(target: VectorTarget): void {
  describe(`vector index contract on ${target.name}`, () => {
    let h: VectorHarness;
    before(async () => {
      h = await target.start();
    });
    after(async () => {
      await h?.close();
    });

    const search = async (caller: PrincipalInit, vector: number[], extra: { filter?: Filter; limit?: number } = {}) =>
      h.searchClient.semanticSearch({
        principal: caller,
        embeddingModel: vectorModel,
        vector: vectorToBytes(vector),
        ...extra,
      });
    const ids = async (...args: Parameters<typeof search>) =>
      (await search(...args)).hits.map((hit) => hit.entry?.id ?? "");

    test("the nearest entries come back nearest first, each with its best chunk and its cosine similarity", async () => {
      const a1 = principal(newTenant("nearest"), "a1");
      const far = await commit(h, a1, "t", "far entry about nothing", [direction(0, 1, 0.9)]);
      const near = await commit(h, a1, "t", "near entry about the query", [direction(0, 1, 0.1)]);
      // Two chunks: the second one is the nearest of all, and its span must be the one reported.
      const split = await commit(h, a1, "t", "first half unrelated / second half on point", [
        direction(3),
        direction(0, 1, 0.05),
      ]);
      await h.settle();
      const reply = await search(a1, direction(0), { limit: 3 });
      assert.deepEqual(
        reply.hits.map((hit) => hit.entry?.id),
        [split, near, far],
      );
      const text = "first half unrelated / second half on point";
      const half = Math.floor(text.length / 2);
      assert.deepEqual(
        [reply.hits[0]?.chunk?.start, reply.hits[0]?.chunk?.end],
        [half, text.length],
        "the best chunk of a two-chunk entry",
      );
      assert.ok(
        Math.abs((reply.hits[0]?.score ?? 0) - Math.cos(0.05)) < 1e-4,
        `score ${reply.hits[0]?.score} is the cosine similarity`,
      );
      assert.ok(Math.abs((reply.hits[2]?.score ?? 0) - Math.cos(0.9)) < 1e-4);
      assert.deepEqual(reply.warnings, []);
      assert.deepEqual(await ids(a1, direction(0), { limit: 1 }), [split], "limit 1");
    });

    test("a neighbour the caller may not see, with the very same vector, never surfaces; the grants that open it do", async () => {
      const tenant = newTenant("planted");
      const a1 = principal(tenant, "a1", { groups: ["eng"] });
      const a2 = principal(tenant, "a2");
      const stranger = principal(newTenant("planted-other"), "a1", { groups: ["eng"] });
      const query = direction(2);
      const own = await commit(h, a1, "p", "own note, a little off the query", [direction(2, 3, 0.3)]);
      const planted = await commit(h, a2, "p", "private note with the query's exact vector", [query]);
      const foreign = await commit(h, stranger, "p", "another tenant's note with the same vector, same subject name", [
        query,
      ]);
      const openToTenant = await commit(h, a2, "p", "tenant-visible note", [direction(2, 3, 0.2)], {
        visibility: commonV1.Visibility.TENANT,
      });
      const sharedWithGroup = await commit(h, a2, "p", "note shared with eng", [direction(2, 3, 0.25)]);
      await h.client.share({
        principal: a2,
        entryIds: [sharedWithGroup],
        grantees: [group("eng")],
        permission: storeV1.Permission.READ,
      });
      await h.settle();
      const seen = await ids(a1, query, { limit: 10 });
      assert.deepEqual(seen, [openToTenant, sharedWithGroup, own]);
      assert.ok(!seen.includes(planted) && !seen.includes(foreign));
      assert.deepEqual((await ids(a2, query, { limit: 1 }))[0], planted, "positive control: the owner finds it first");
      assert.deepEqual(await ids(stranger, query, { limit: 10 }), [foreign], "the other tenant sees only its own");
      const admin = principal(tenant, "root", { scopes: ["context:read", "context:admin"] });
      assert.deepEqual(
        (await ids(admin, query, { limit: 10 })).sort(),
        [own, planted, openToTenant, sharedWithGroup].sort(),
        "an admin sees the whole tenant, nothing beyond",
      );
    });

    test("filters do not starve the top k: 60 nearer entries filtered out, the 3 nearest that match come back in order", async () => {
      const a1 = principal(newTenant("starve"), "a1");
      for (let index = 0; index < 60; index++)
        await commit(h, a1, "crowd", `crowd entry ${index}`, [direction(4, 5, 0.001 * index)]);
      const tagged: string[] = [];
      for (let index = 0; index < 5; index++) {
        tagged.push(
          await commit(h, a1, "crowd", `tagged entry ${index}`, [direction(4, 5, 0.5 + 0.05 * index)], {
            tags: ["wanted"],
            metadata: { rank: index },
          }),
        );
      }
      await h.settle();
      assert.deepEqual(
        await ids(a1, direction(4), { limit: 3, filter: { tagsAny: ["wanted"] } }),
        tagged.slice(0, 3),
        "a tag filter (in the payload)",
      );
      const metadataOnly: Filter = {
        metadata: [
          { key: "rank", operator: storeV1.MetadataOperator.GTE, value: fromJson(ValueSchema, 1 as JsonValue) },
        ],
      };
      assert.deepEqual(
        await ids(a1, direction(4), { limit: 3, filter: metadataOnly }),
        tagged.slice(1, 4),
        "a metadata filter (only the re-check can apply it)",
      );
      assert.deepEqual(
        await ids(a1, direction(4), { limit: 10, filter: { threadId: "elsewhere" } }),
        [],
        "nothing in another thread",
      );
      assert.equal((await ids(a1, direction(4), { limit: 10 })).length, 10, "positive control");
    });

    test("a deleted entry vanishes at once, and a replaced text's old chunks never come back", async () => {
      const a1 = principal(newTenant("delete"), "a1");
      const keep = await commit(h, a1, "d", "the entry that stays", [direction(6, 7, 0.3)]);
      const doomed = await commit(h, a1, "d", "the entry that goes", [direction(6)]);
      const rewritten = await commit(h, a1, "d", "the entry that is rewritten", [direction(6, 7, 0.1)]);
      await h.settle();
      assert.deepEqual(await ids(a1, direction(6), { limit: 5 }), [doomed, rewritten, keep]);
      await h.client.deleteEntries({ principal: a1, ids: [doomed] });
      assert.deepEqual(
        await ids(a1, direction(6), { limit: 5 }),
        [rewritten, keep],
        "gone before the index has caught up",
      );
      const newText = "rewritten to point elsewhere entirely";
      await h.client.updateEntries({
        principal: a1,
        updates: [
          {
            id: rewritten,
            text: newText,
            generated: {
              embeddingModel: vectorModel,
              embeddingDimension: 8,
              chunks: [{ ordinal: 0, span: { start: 0, end: newText.length }, vector: vectorToBytes(direction(1)) }],
              summary: "",
              nodeSummaries: [],
              textHash: contentHash(newText),
            },
          },
        ],
      });
      const early = await search(a1, direction(6), { limit: 5 });
      assert.ok(
        !early.hits.some((hit) => hit.entry?.id === rewritten && hit.score > 0.5),
        "the old chunk never answers, even before the index catches up",
      );
      assert.equal(early.hits[0]?.entry?.id, keep);
      await h.settle();
      const late = await search(a1, direction(6), { limit: 5 });
      assert.deepEqual(
        late.hits.map((hit) => [hit.entry?.id, Math.round(hit.score * 1000) / 1000, hit.chunk?.end]),
        [
          [keep, Math.round(Math.cos(0.3) * 1000) / 1000, "the entry that stays".length],
          [rewritten, 0, newText.length],
        ],
        "the rewritten entry answers only through its new chunk, orthogonal to the query",
      );
      assert.deepEqual((await ids(a1, direction(1), { limit: 1 }))[0], rewritten);
    });

    test("sharing, unsharing and visibility changes reach the index", async () => {
      const tenant = newTenant("share");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2", { groups: ["ops"] });
      const a3 = principal(tenant, "a3");
      const note = await commit(h, a1, "s", "a note shared and unshared", [direction(5)]);
      const threadNote = await commit(h, a1, "shared-thread", "a note in a thread shared with ops", [
        direction(5, 6, 0.2),
      ]);
      await h.settle();
      assert.deepEqual(await ids(a2, direction(5)), [], "private to a1 at first");

      await h.client.share({
        principal: a1,
        entryIds: [note],
        grantees: [subject("a2")],
        permission: storeV1.Permission.READ,
      });
      await h.client.share({
        principal: a1,
        threadId: "shared-thread",
        grantees: [group("ops")],
        permission: storeV1.Permission.WRITE,
      });
      await h.settle();
      assert.deepEqual(
        await ids(a2, direction(5)),
        [note, threadNote],
        "a subject grant and a thread grant to a group open them",
      );
      assert.deepEqual(await ids(a3, direction(5)), [], "no one else");

      await h.client.unshare({ principal: a1, entryIds: [note] });
      assert.deepEqual(await ids(a2, direction(5)), [threadNote], "revoked: gone before the index catches up");
      await h.client.unshare({ principal: a1, threadId: "shared-thread" });
      await h.settle();
      assert.deepEqual(await ids(a2, direction(5)), [], "both revoked");

      await h.client.updateEntries({ principal: a1, updates: [{ id: note, visibility: commonV1.Visibility.TENANT }] });
      await h.settle();
      assert.deepEqual(await ids(a3, direction(5)), [note], "tenant visibility opens it to everyone in the tenant");
      await h.client.updateEntries({ principal: a1, updates: [{ id: note, visibility: commonV1.Visibility.PRIVATE }] });
      assert.deepEqual(await ids(a3, direction(5)), [], "and closing it takes effect at once");
    });

    test("a collection's grants reach the index: its owner's members open, later members too, and a revoke closes them", async () => {
      const tenant = newTenant("collection");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2", { groups: ["ops"] });
      const a3 = principal(tenant, "a3");
      const member = await commit(h, a1, "c", "a member of a shared collection", [direction(1)]);
      const outside = await commit(h, a1, "c", "an entry outside the collection", [direction(1, 2, 0.1)]);
      const { collection } = await h.client.createCollection({ principal: a1, name: "shared picks" });
      const id = collection!.id;
      await h.client.addToCollection({ principal: a1, id, entryIds: [member] });
      await h.client.share({
        principal: a1,
        collectionId: id,
        grantees: [group("ops")],
        permission: storeV1.Permission.READ,
      });
      await h.settle();
      assert.deepEqual(await ids(a2, direction(1)), [member], "the grant opens the member, not the entry outside");
      assert.deepEqual(await ids(a3, direction(1)), [], "no one else");

      const later = await commit(h, a1, "c", "a later member", [direction(1, 2, 0.2)]);
      await h.client.addToCollection({ principal: a1, id, entryIds: [later] });
      await h.settle();
      assert.deepEqual(await ids(a2, direction(1)), [member, later], "a later member opens too");
      assert.deepEqual(await ids(a2, direction(1), { filter: { collectionId: id } }), [member, later]);

      await h.client.removeFromCollection({ principal: a1, id, entryIds: [later] });
      assert.deepEqual(await ids(a2, direction(1)), [member], "removed: gone before the index catches up");
      await h.client.unshare({ principal: a1, collectionId: id });
      await h.settle();
      assert.deepEqual(await ids(a2, direction(1)), [], "revoked");
      assert.deepEqual(await ids(a1, direction(1)), [member, outside, later], "the owner still finds all three");
    });
  });
}
