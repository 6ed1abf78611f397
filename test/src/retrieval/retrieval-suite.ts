/**
 * The retrieval suite, run unchanged against PGlite (pgvector, HNSW) and a
 * real PostgreSQL server (pgvector when the server has it, else `real[]` and
 * exact search). Searches go through SearchService over gRPC, except where a
 * test needs to choose the vector strategy, which uses search in-process on
 * the same database.
 */
import { vectorToBytes } from "@context-hub/common";
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fromJson, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import { commonV1, searchV1, storeV1 } from "@context-hub/proto";
import { openDatabase } from "@context-hub/store";
import {
  defaultSearchConfig,
  hnswIndexName,
  nastyQueries,
  openSearch,
  type Principal,
} from "@context-hub/store/testing";
import { defineAsOfIndexTests } from "./as-of-index-suite.js";
import { defineMetadataOperatorTests } from "./metadata-operators-suite.js";
import { defineTimelinesTests } from "./timelines-suite.js";
import {
  annFirstConfig,
  commitWithVectors,
  dimension,
  direction,
  startRetrievalHarness,
  testModel,
  type RetrievalHarness,
  type RetrievalTarget,
} from "./retrieval-fixtures.js";
import {
  commitText,
  expectError,
  expectIndistinguishable,
  logger,
  newTenant,
  principal,
  randomId,
  startTestStore as startTestStoreOn,
  type PrincipalInit,
} from "../store/store-fixtures.js";

type Filter = MessageInitShape<typeof storeV1.EntryFilterSchema>;
const { FullTextMode, GrepOutput } = searchV1;
const { MetadataOperator } = storeV1;

const asPrincipal = (init: PrincipalInit): Principal => ({
  tenant: init.tenant ?? "",
  subject: init.subject ?? "",
  groups: init.groups ?? [],
  scopes: init.scopes ?? [],
});
const condition = (key: string, operator: storeV1.MetadataOperator, value: JsonValue) => ({
  key,
  operator,
  value: fromJson(ValueSchema, value),
});
const sorted = (ids: readonly string[]) => [...ids].sort();

export function defineRetrievalSuite(target: RetrievalTarget): void {
  describe(`retrieval on ${target.name}`, () => {
    let h: RetrievalHarness;
    before(async () => {
      h = await startRetrievalHarness(target);
    });
    after(async () => {
      await h?.close();
    });

    const fts = async (
      caller: PrincipalInit,
      query: string,
      mode: searchV1.FullTextMode,
      extra: { filter?: Filter; limit?: number; offset?: number; language?: string; highlight?: boolean } = {},
    ) => h.searchClient.fullTextSearch({ principal: caller, query, mode, ...extra });
    const ftsIds = async (...args: Parameters<typeof fts>) =>
      (await fts(...args)).hits.map((hit) => hit.entry?.id ?? "");
    const semantic = (
      caller: PrincipalInit,
      vector: number[],
      extra: { filter?: Filter; limit?: number; offset?: number } = {},
    ) =>
      h.searchClient.semanticSearch({
        principal: caller,
        embeddingModel: testModel,
        vector: vectorToBytes(vector),
        ...extra,
      });

    describe("full text", () => {
      const tenant = newTenant("fts");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const ids: Record<string, string> = {};
      before(async () => {
        ids.turbine = (
          await commitText(h.client, a1, "notes", "The turbine blade cracked near the root section during inspection.")
        ).id;
        ids.config = (
          await commitText(h.client, a1, "notes", "Configuration of the server fleet is state-of-the-art.")
        ).id;
        ids.bearing = (
          await commitText(h.client, a1, "notes", "Bearing vibration spectrum shows drift; the blade is fine.")
        ).id;
        ids.foreign = (await commitText(h.client, a2, "notes", "turbine blade turbine blade turbine blade cracked")).id;
      });

      test("each mode finds what it should, and never another principal's entry", async () => {
        assert.deepEqual(await ftsIds(a1, "turbine blade", FullTextMode.MATCH), [ids.turbine]);
        assert.deepEqual(
          await ftsIds(a1, "inspected", FullTextMode.MATCH),
          [ids.turbine],
          "stemmed: inspected meets inspection",
        );
        assert.deepEqual(await ftsIds(a1, "config serv", FullTextMode.PREFIX), [ids.config]);
        assert.deepEqual(await ftsIds(a1, "blade cracked", FullTextMode.PHRASE), [ids.turbine]);
        assert.deepEqual(await ftsIds(a1, "cracked blade", FullTextMode.PHRASE), [], "a phrase keeps its order");
        assert.deepEqual(await ftsIds(a1, '"turbine blade" OR bearing -drift', FullTextMode.BOOLEAN), [ids.turbine]);
        assert.deepEqual(
          sorted(await ftsIds(a1, "bearing turbine", FullTextMode.ANY)),
          sorted([ids.turbine!, ids.bearing!]),
        );
        assert.deepEqual(
          await ftsIds(a2, "turbine blade", FullTextMode.MATCH),
          [ids.foreign],
          "positive control: the owner finds its own",
        );
      });

      test("ranks by cover density, best first, with 1-based ranks and has_more", async () => {
        const reply = await fts(a1, "blade", FullTextMode.MATCH, { limit: 1 });
        assert.equal(reply.hits.length, 1);
        assert.equal(reply.hits[0]?.rank, 1);
        assert.ok((reply.hits[0]?.score ?? 0) > 0);
        assert.equal(reply.hasMore, true);
        const second = await fts(a1, "blade", FullTextMode.MATCH, { limit: 1, offset: 1 });
        assert.equal(second.hits[0]?.rank, 2);
        assert.equal(second.hasMore, false);
        assert.notEqual(second.hits[0]?.entry?.id, reply.hits[0]?.entry?.id);
      });

      test("highlighting marks the matching words in fragments of the text", async () => {
        const [hit] = (await fts(a1, "turbine blade", FullTextMode.MATCH, { highlight: true })).hits;
        const fragment = hit?.highlights[0];
        assert.ok(fragment !== undefined && fragment.matches.length >= 2, JSON.stringify(hit?.highlights));
        assert.deepEqual(
          fragment.matches.map((span) => fragment.text.slice(span.start, span.end).toLowerCase()).sort(),
          ["blade", "turbine"],
        );
        assert.equal((await fts(a1, "turbine", FullTextMode.MATCH)).hits[0]?.highlights.length, 0, "none unless asked");
      });

      test("a ranking of ids only, called past the point where a prepared statement goes generic, leaves the listed ranking as it was", async () => {
        const ranking = (reply: searchV1.FullTextSearchResponse) =>
          reply.hits.map((hit) => [hit.entryId, hit.score, hit.rank]);
        const listed = await fts(a1, "turbine blade bearing", FullTextMode.ANY, { limit: 10 });
        assert.ok(listed.hits.length >= 2, "positive control: the query matches");
        assert.ok(listed.hits.every((hit) => hit.entry?.id === hit.entryId));
        // Hybrid's call pattern: a deeper page of ids, with and without feedback, more than five times (PostgreSQL's generic-plan threshold).
        for (let round = 0; round < 8; round++) {
          const idsOnly = await h.searchClient.fullTextSearch({
            principal: a1,
            query: "turbine blade bearing",
            mode: FullTextMode.ANY,
            limit: 101,
            idsOnly: true,
            ...(round % 2 === 1 ? { feedback: {} } : {}),
          });
          assert.ok(
            idsOnly.hits.every((hit) => hit.entry === undefined && hit.entryId !== ""),
            "ids and scores only",
          );
          if (round % 2 === 0)
            assert.deepEqual(ranking(idsOnly), ranking(listed), "the same ranking, without listings");
        }
        assert.deepEqual(
          ranking(await fts(a1, "turbine blade bearing", FullTextMode.ANY, { limit: 10 })),
          ranking(listed),
          "the listed ranking is unchanged after hybrid's calls",
        );
        await expectError(
          h.searchClient.fullTextSearch({
            principal: a1,
            query: "blade",
            mode: FullTextMode.MATCH,
            highlight: true,
            idsOnly: true,
          }),
          "INVALID_ARGUMENT",
          /highlight/,
        );
      });

      test("hostile and degenerate input never fails, in any mode", async () => {
        for (const query of nastyQueries) {
          for (const mode of [
            FullTextMode.MATCH,
            FullTextMode.PREFIX,
            FullTextMode.PHRASE,
            FullTextMode.BOOLEAN,
            FullTextMode.ANY,
          ]) {
            const call = fts(a1, query, mode, { highlight: true });
            // Only a blank query is refused, and with a clear message; everything else is a (possibly empty) result.
            if (query.trim() === "") await expectError(call, "INVALID_ARGUMENT", /query must not be empty/);
            else await assert.doesNotReject(call, `${FullTextMode[mode]} ${JSON.stringify(query)}`);
          }
        }
        const stopWords = await fts(a1, "the and of", FullTextMode.MATCH);
        assert.deepEqual(stopWords.hits, []);
        assert.match(stopWords.warnings.join(" "), /no searchable words/);
        await expectError(fts(a1, "   ", FullTextMode.MATCH), "INVALID_ARGUMENT", /query must not be empty/);
      });

      test("a query language comes from the allow-list", async () => {
        assert.deepEqual(
          await ftsIds(a1, "inspected", FullTextMode.MATCH, { language: "simple" }),
          [],
          "simple does not stem the query",
        );
        assert.deepEqual(await ftsIds(a1, "inspect", FullTextMode.MATCH, { language: "simple" }), [ids.turbine]);
        assert.equal((await fts(a1, "blade", FullTextMode.MATCH)).language, "english");
        await expectError(
          fts(a1, "blade", FullTextMode.MATCH, { language: "klingon" }),
          "INVALID_ARGUMENT",
          /is not offered; choose one of: .*english/,
        );
      });

      test("limit and offset stop at the ranking depth", async () => {
        await expectError(
          fts(a1, "blade", FullTextMode.MATCH, { limit: 100, offset: 401 }),
          "INVALID_ARGUMENT",
          /offset \+ limit must be at most 500/,
        );
        await expectError(
          fts(a1, "blade", FullTextMode.MATCH, { limit: 501 }),
          "INVALID_ARGUMENT",
          /limit must be 1 to 500/,
        );
      });
    });

    describe("filters", () => {
      const tenant = newTenant("filters");
      const a1 = principal(tenant, "a1");
      const ids: Record<string, string> = {};
      const report = (name: string, thread: string, overrides: Parameters<typeof commitWithVectors>[5], axis = 0) =>
        commitWithVectors(
          h.client,
          a1,
          thread,
          `weekly report ${name} with enough words to chunk`,
          [direction(axis, 1, 0.1)],
          overrides,
        ).then((id) => {
          ids[name] = id;
        });
      let between: { from: Date; to: Date };
      before(async () => {
        await report("alpha", "t1", {
          tags: ["ops", "urgent"],
          metadata: { priority: 3, status: "open", owner: "Team-Rotor", labels: ["a", "b"], due: "2026-02-01" },
        });
        await report("beta", "t1", {
          tags: ["ops"],
          metadata: { priority: 1, status: "closed", owner: "team-blade" },
          source: commonV1.Source.AGENT,
        });
        const from = new Date();
        await report("gamma", "t2", {
          tags: ["urgent"],
          metadata: { priority: 5, status: "open", labels: ["c"], due: "2026-03-15" },
        });
        await report("delta", "t2", { metadata: { priority: "high" } });
        between = { from, to: new Date(Date.now() + 60_000) };
      });

      const both = async (filter: Filter): Promise<string[]> => {
        const names = (found: string[]) =>
          Object.entries(ids)
            .filter(([, id]) => found.includes(id))
            .map(([name]) => name)
            .sort();
        const byText = names(await ftsIds(a1, "weekly report", FullTextMode.MATCH, { filter, limit: 50 }));
        const byVector = names(
          (await semantic(a1, direction(0), { filter, limit: 50 })).hits.map((hit) => hit.entry?.id ?? ""),
        );
        assert.deepEqual(byVector, byText, "both legs apply the same filter");
        return byText;
      };

      test("thread, source, tags any and all, dates and content type", async () => {
        assert.deepEqual(await both({ threadId: "t1" }), ["alpha", "beta"]);
        assert.deepEqual(await both({ source: commonV1.Source.AGENT }), ["beta"]);
        assert.deepEqual(await both({ tagsAny: ["URGENT", "nothing"] }), ["alpha", "gamma"]);
        assert.deepEqual(await both({ tagsAll: ["ops", "urgent"] }), ["alpha"]);
        assert.deepEqual(
          await both({ createdFrom: timestampFromDate(between.from), createdTo: timestampFromDate(between.to) }),
          ["delta", "gamma"],
        );
        assert.deepEqual(await both({ contentType: "multimodal" }), []);
      });

      test("metadata operators", async () => {
        const cases: [storeV1.MetadataOperator, string, JsonValue, string[]][] = [
          [MetadataOperator.EQ, "status", "open", ["alpha", "gamma"]],
          [MetadataOperator.NE, "status", "open", ["beta", "delta"]],
          [MetadataOperator.GT, "priority", 1, ["alpha", "gamma"]],
          [MetadataOperator.GTE, "priority", 3, ["alpha", "gamma"]],
          [MetadataOperator.LT, "priority", 3, ["beta"]],
          [MetadataOperator.LTE, "due", "2026-02-01", ["alpha"]],
          [MetadataOperator.GT, "priority", "a", ["delta"]],
          [MetadataOperator.IN, "priority", [1, 5, "high"], ["beta", "delta", "gamma"]],
          [MetadataOperator.NOT_IN, "priority", [1, 5], ["alpha", "delta"]],
          [MetadataOperator.EXISTS, "labels", true, ["alpha", "gamma"]],
          [MetadataOperator.EXISTS, "labels", false, ["beta", "delta"]],
          [MetadataOperator.CONTAINS, "owner", "ROTOR", ["alpha"]],
          [MetadataOperator.CONTAINS, "labels", "c", ["gamma"]],
          [MetadataOperator.STARTS_WITH, "owner", "team-", ["beta"]],
        ];
        for (const [operator, key, value, expected] of cases) {
          assert.deepEqual(
            await both({ metadata: [condition(key, operator, value)] }),
            expected,
            `${MetadataOperator[operator]} ${key} ${JSON.stringify(value)}`,
          );
        }
        assert.deepEqual(
          await both({
            metadata: [condition("status", MetadataOperator.EQ, "open"), condition("priority", MetadataOperator.GT, 4)],
          }),
          ["gamma"],
          "conditions combine with AND",
        );
        await expectError(
          fts(a1, "report", FullTextMode.MATCH, {
            filter: { metadata: [condition("priority", MetadataOperator.GT, true)] },
          }),
          "INVALID_ARGUMENT",
          /number or a string for gt/,
        );
      });
    });

    describe("semantic", () => {
      const tenant = newTenant("semantic");
      const a1 = principal(tenant, "a1");
      const ids: Record<string, string> = {};
      before(async () => {
        // Three chunks each; the middle chunk of "near" points almost exactly at axis 0.
        ids.near = await commitWithVectors(
          h.client,
          a1,
          "s",
          "first part about weather. middle part about rotors. last part about lunch.",
          [direction(3), direction(0, 1, 0.05), direction(4)],
        );
        ids.middle = await commitWithVectors(h.client, a1, "s", "only one chunk here, moderately close to the query", [
          direction(0, 1, 0.6),
        ]);
        ids.far = await commitWithVectors(h.client, a1, "s", "two chunks, both unrelated to the query direction", [
          direction(5),
          direction(6),
        ]);
      });

      test("one result per entry, ranked by its best chunk, whose span comes back", async () => {
        const reply = await semantic(a1, direction(0));
        assert.deepEqual(
          reply.hits.map((hit) => hit.entry?.id),
          [ids.near, ids.middle, ids.far],
        );
        const [best] = reply.hits;
        assert.ok(Math.abs((best?.score ?? 0) - Math.cos(0.05)) < 1e-4, `cosine similarity ${best?.score}`);
        const text = "first part about weather. middle part about rotors. last part about lunch.";
        const step = Math.floor(text.length / 3);
        assert.deepEqual({ start: best?.chunk?.start, end: best?.chunk?.end }, { start: step, end: 2 * step });
        assert.equal(reply.strategy, "exact", "a small tenant is searched exactly");
        assert.equal(reply.hits[1]?.rank, 2);
      });

      test("vectors of another model or dimension are never compared", async () => {
        const otherModel = await h.searchClient.semanticSearch({
          principal: a1,
          embeddingModel: "other-model",
          vector: vectorToBytes(direction(0)),
        });
        assert.deepEqual(otherModel.hits, []);
        assert.match(
          otherModel.warnings.join(" "),
          /no stored vectors you can search were made by other-model \(8 dimensions\)/,
        );
        assert.deepEqual((await semantic(a1, [1, 0, 0])).hits, [], "another dimension");
        await expectError(semantic(a1, [1, Number.NaN, 0, 0, 0, 0, 0, 0]), "INVALID_ARGUMENT", /finite/);
      });
    });

    describe("nothing the caller may not see ever surfaces, and filters apply before the limit", () => {
      const tenant = newTenant("planted");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const b1 = principal(newTenant("planted-other"), "a1");
      const query = direction(2);
      const visible: string[] = [];
      before(async () => {
        visible.push(await commitWithVectors(h.client, a1, "p", "falcon launch window notes", [direction(2, 3, 0.5)]));
        visible.push(await commitWithVectors(h.client, a1, "p", "falcon launch checklist", [direction(2, 3, 0.6)]));
        // 50 better matches the caller may not see: same tenant (private to a2) and another tenant (with the caller's very subject name).
        for (let index = 0; index < 25; index++) {
          const noise = direction(2, 3, 0.001 * (index + 1));
          await commitWithVectors(h.client, a2, "p", `falcon launch falcon launch falcon launch ${index}`, [noise]);
          await commitWithVectors(h.client, b1, "p", `falcon launch falcon launch falcon launch ${index}`, [noise]);
        }
      });

      test("full text: 2 visible matches and 50 better invisible ones, limit 5, give exactly 2", async () => {
        for (const mode of [FullTextMode.MATCH, FullTextMode.ANY, FullTextMode.PREFIX, FullTextMode.BOOLEAN]) {
          const reply = await fts(a1, "falcon launch", mode, { limit: 5 });
          assert.deepEqual(sorted(reply.hits.map((hit) => hit.entry?.id ?? "")), sorted(visible), FullTextMode[mode]);
          assert.equal(reply.hasMore, false);
        }
        assert.equal(
          (await fts(a2, "falcon launch", FullTextMode.MATCH, { limit: 5 })).hits.length,
          5,
          "positive control: the owner of the better matches gets them",
        );
      });

      test("semantic, exact and approximate: exactly the 2 visible entries", async () => {
        const viaGrpc = await semantic(a1, query, { limit: 5 });
        assert.deepEqual(sorted(viaGrpc.hits.map((hit) => hit.entry?.id ?? "")), sorted(visible));
        if (h.db.vectorType === "pgvector") await h.search.vectors.buildIndex(testModel, dimension);
        const inProcess = await h.search.service.semantic(asPrincipal(a1), {
          model: testModel,
          vector: query,
          filter: undefined,
          limit: 5,
          offset: 0,
        });
        assert.deepEqual(sorted(inProcess.hits.map((hit) => hit.entryId)), sorted(visible));
        const owner = await h.search.service.semantic(asPrincipal(a2), {
          model: testModel,
          vector: query,
          filter: undefined,
          limit: 5,
          offset: 0,
        });
        assert.equal(owner.hits.length, 5, "positive control");
        if (h.db.vectorType === "pgvector") assert.equal(owner.strategy, "ann", "the HNSW index answered the owner");
      });

      test("ids-only legs and the page's listings: exactly the visible entries, in the order asked", async () => {
        const ftsIdsOnly = await h.searchClient.fullTextSearch({
          principal: a1,
          query: "falcon launch",
          mode: FullTextMode.ANY,
          limit: 5,
          idsOnly: true,
          feedback: {},
        });
        assert.deepEqual(sorted(ftsIdsOnly.hits.map((hit) => hit.entryId)), sorted(visible));
        assert.ok(ftsIdsOnly.hits.every((hit) => hit.entry === undefined));
        const semanticIdsOnly = await h.searchClient.semanticSearch({
          principal: a1,
          embeddingModel: testModel,
          vector: vectorToBytes(query),
          limit: 5,
          idsOnly: true,
        });
        assert.deepEqual(sorted(semanticIdsOnly.hits.map((hit) => hit.entryId)), sorted(visible));
        assert.ok(semanticIdsOnly.hits.every((hit) => hit.entry === undefined && hit.chunk !== undefined));
        const foreign = (await fts(a2, "falcon", FullTextMode.MATCH, { limit: 1 })).hits[0]?.entryId ?? "";
        const other = (await fts(b1, "falcon", FullTextMode.MATCH, { limit: 1 })).hits[0]?.entryId ?? "";
        const ghost = randomId();
        const ids = [foreign, visible[1] ?? "", other, ghost, visible[0] ?? ""];
        const listed = await h.searchClient.getListings({ principal: a1, ids });
        assert.deepEqual(
          listed.entries.map((entry) => entry.id),
          [visible[1], visible[0]],
          "hidden, foreign and missing ids are left out alike; the rest keep their order",
        );
        assert.ok(
          listed.entries.every((entry) => entry.preview !== "" && entry.text === ""),
          "listings: a preview, no text",
        );
        assert.deepEqual(
          (await h.searchClient.getListings({ principal: a2, ids })).entries.map((entry) => entry.id),
          [foreign],
          "positive control: the owner sees its own",
        );
        assert.deepEqual(
          (await h.searchClient.getListings({ principal: a1, ids, filter: { threadId: "elsewhere" } })).entries,
          [],
          "the filter applies again",
        );
        await expectError(
          h.searchClient.getListings({ principal: a1, ids: ["not-an-id"] }),
          "INVALID_ARGUMENT",
          /ids\[0\]/,
        );
        await expectError(
          h.searchClient.getListings({ principal: a1, ids, filter: { asOf: timestampFromDate(new Date()) } }),
          "INVALID_ARGUMENT",
          /as_of/,
        );
      });

      test("passages, outline, ranges and grep refuse what the caller cannot see", async () => {
        const foreign = (await fts(a2, "falcon", FullTextMode.MATCH, { limit: 1 })).hits[0]?.entry?.id ?? "";
        const ghost = randomId();
        const passages = await h.searchClient.getPassages({
          principal: a1,
          query: "falcon",
          items: [{ entryId: foreign }, { entryId: visible[0] ?? "" }, { entryId: ghost }],
        });
        assert.deepEqual(
          passages.passages.map((passage) => passage.entryId),
          [visible[0]],
        );
        await expectIndistinguishable(
          h.searchClient.navigateEntry({ principal: a1, id: foreign }),
          foreign,
          h.searchClient.navigateEntry({ principal: a1, id: ghost }),
          ghost,
          "navigate",
        );
        // With a move too, a hidden entry answers as a missing one: before any node is looked up in it.
        for (const nodeId of ["falcon", "no-such-node"])
          await expectIndistinguishable(
            h.searchClient.navigateEntry({ principal: a1, id: foreign, nodeId, move: searchV1.OutlineMove.NEXT }),
            foreign,
            h.searchClient.navigateEntry({ principal: a1, id: ghost, nodeId, move: searchV1.OutlineMove.NEXT }),
            ghost,
            "navigate with a move",
          );
        await expectIndistinguishable(
          h.searchClient.readRange({
            principal: a1,
            id: foreign,
            range: { case: "lines", value: { start: 1, end: 1 } },
          }),
          foreign,
          h.searchClient.readRange({ principal: a1, id: ghost, range: { case: "lines", value: { start: 1, end: 1 } } }),
          ghost,
          "read range",
        );
        const grep = await h.searchClient.grep({ principal: a1, pattern: "falcon", output: GrepOutput.COUNT });
        assert.deepEqual(sorted(grep.entries.map((entry) => entry.entryId)), sorted(visible));
        assert.equal(grep.totalMatches, 2);
        assert.equal(
          (await h.searchClient.grep({ principal: a2, pattern: "falcon", output: GrepOutput.COUNT })).totalMatches,
          75,
          "positive control: 25 entries × 3",
        );
      });

      test("a deleted entry is gone from every search at once", async () => {
        const doomed = await commitWithVectors(h.client, a1, "p", "ephemeral falcon memo", [direction(2, 3, 0.4)]);
        assert.ok((await ftsIds(a1, "ephemeral", FullTextMode.MATCH)).includes(doomed));
        await h.client.deleteEntries({ principal: a1, ids: [doomed] });
        assert.deepEqual(await ftsIds(a1, "ephemeral", FullTextMode.MATCH), []);
        assert.ok(!(await semantic(a1, query, { limit: 10 })).hits.some((hit) => hit.entry?.id === doomed));
        assert.equal((await h.searchClient.grep({ principal: a1, pattern: "ephemeral" })).entries.length, 0);
      });
    });

    describe("the semantic plan and its warnings come from what the caller can see", () => {
      const tenant = newTenant("plan");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const b1 = principal(newTenant("plan-other"), "a1");
      const noFilter = {
        threadId: "",
        source: undefined,
        tagsAny: [],
        tagsAll: [],
        metadata: [],
        createdFrom: undefined,
        createdTo: undefined,
        contentType: "",
      };
      before(async () => {
        for (let index = 0; index < 10; index++)
          await commitWithVectors(h.client, a1, "p", `a1's launch note ${index}`, [direction(4, 5, 0.1 * (index + 1))]);
        // 30 entries in the same thread that a1 cannot see, in its tenant and in another one under its very subject name.
        for (let index = 0; index < 30; index++) {
          await commitWithVectors(h.client, a2, "p", `a2's private launch note ${index}`, [
            direction(4, 5, 0.01 * (index + 1)),
          ]);
          await commitWithVectors(h.client, b1, "p", `another tenant's launch note ${index}`, [
            direction(4, 5, 0.01 * (index + 1)),
          ]);
        }
      });

      test("exact below the caller's own candidate count, whatever its tenant or thread holds beside them", async () => {
        const search = await openSearch(
          h.db,
          { ...annFirstConfig, vectors: { ...annFirstConfig.vectors, exactBelowChunks: 20 } },
          logger,
        );
        try {
          if (h.db.vectorType === "pgvector") await search.vectors.buildIndex(testModel, dimension);
          const ask = (caller: PrincipalInit, threadId = "") =>
            search.service.semantic(asPrincipal(caller), {
              model: testModel,
              vector: direction(4),
              filter: { ...noFilter, threadId },
              limit: 5,
              offset: 0,
            });
          for (const threadId of ["", "p"]) {
            const own = await ask(a1, threadId);
            assert.equal(own.hits.length, 5);
            assert.equal(
              own.strategy,
              "exact",
              `a1 sees 10 candidates (thread ${JSON.stringify(threadId)}); the 60 it cannot see must not move the plan`,
            );
            const owner = await ask(a2, threadId);
            assert.equal(
              owner.strategy,
              h.db.vectorType === "pgvector" ? "ann" : "exact",
              "positive control: a2 sees 30 candidates, above the line",
            );
          }
        } finally {
          await search.close();
        }
      });

      test("a caller who can see no vectors is not told whether anyone else stored some", async () => {
        const stranger = principal(newTenant("plan-empty"), "a1");
        for (const model of [testModel, "other-model"]) {
          const reply = await h.searchClient.semanticSearch({
            principal: stranger,
            embeddingModel: model,
            vector: vectorToBytes(direction(4)),
          });
          assert.deepEqual([reply.hits, reply.warnings], [[], []], model);
        }
        const seen = await h.searchClient.semanticSearch({
          principal: a1,
          embeddingModel: "other-model",
          vector: vectorToBytes(direction(4)),
        });
        assert.match(
          seen.warnings.join(" "),
          /no stored vectors you can search were made by other-model/,
          "positive control: a1's own entries were embedded by another model",
        );
      });
    });

    describe("a filter cannot starve the approximate top k", () => {
      const tenant = newTenant("starve");
      const a1 = principal(tenant, "a1");
      const tagged: string[] = [];
      before(async () => {
        // 300 untagged entries nearer to the query than any tagged one.
        for (let index = 0; index < 300; index++)
          await commitWithVectors(h.client, a1, "crowd", `crowd entry ${index}`, [direction(6, 7, 0.0005 * index)]);
        for (let index = 0; index < 12; index++)
          tagged.push(
            await commitWithVectors(
              h.client,
              a1,
              "crowd",
              `tagged entry ${index}`,
              [direction(6, 7, 0.4 + 0.01 * index)],
              { tags: ["wanted"] },
            ),
          );
        if (h.db.vectorType === "pgvector") await h.search.vectors.buildIndex(testModel, dimension);
      });

      test("limit 10 with a tag filter gives the 10 nearest tagged entries, in order", async () => {
        const result = await h.search.service.semantic(asPrincipal(a1), {
          model: testModel,
          vector: direction(6),
          filter: {
            threadId: "",
            source: undefined,
            tagsAny: ["wanted"],
            tagsAll: [],
            metadata: [],
            createdFrom: undefined,
            createdTo: undefined,
            contentType: "",
          },
          limit: 10,
          offset: 0,
        });
        assert.deepEqual(
          result.hits.map((hit) => hit.entryId),
          tagged.slice(0, 10),
        );
        if (h.db.vectorType === "pgvector")
          assert.equal(result.strategy, "ann", "iterative scans served it from the index");
      });
    });

    describe("start-up", () => {
      test("a store large enough to use one builds the HNSW index of every stored embedding space, and analyses a small store's tables only then", async () => {
        const database = await target.createDatabase();
        const db = await openDatabase(database.options, logger);
        try {
          const { rows: spaces } = await db.query<{ dimension: number }>(
            "SELECT dimension FROM embedding_spaces WHERE embedding_model = $1",
            [testModel],
          );
          assert.deepEqual(spaces, [], "a fresh database has no spaces");
          const tenant = newTenant("startup");
          const store = await startTestStoreOn(database.options, db);
          try {
            await commitWithVectors(
              store.client,
              principal(tenant, "a1"),
              "s",
              "one entry is enough to register the space",
              [direction(0)],
            );
          } finally {
            await store.close();
          }
          assert.deepEqual(
            (
              await db.query<{ dimension: number }>(
                "SELECT dimension FROM embedding_spaces WHERE embedding_model = $1",
                [testModel],
              )
            ).rows,
            [{ dimension }],
            "the trigger registered it",
          );
          const indexValid = async () =>
            (
              await db.query<{ valid: boolean | null }>(
                "SELECT (SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass($1)) AS valid",
                [hnswIndexName(testModel, dimension)],
              )
            ).rows[0]?.valid ?? null;
          const entriesTuples = async () =>
            Number(
              (await db.query<{ tuples: number }>("SELECT reltuples AS tuples FROM pg_class WHERE relname = 'entries'"))
                .rows[0]?.tuples,
            );
          const small = await openSearch(db, defaultSearchConfig, logger);
          const found = await small.service.semantic(asPrincipal(principal(tenant, "a1")), {
            model: testModel,
            vector: direction(0),
            filter: {
              threadId: "",
              source: undefined,
              tagsAny: [],
              tagsAll: [],
              metadata: [],
              createdFrom: undefined,
              createdTo: undefined,
              contentType: "",
            },
            limit: 10,
            offset: 0,
          });
          assert.equal(found.hits.length, 1, "a search meeting the space finds the entry exactly…");
          await small.close();
          assert.equal(
            await indexValid(),
            null,
            "…and builds no graph: below exactBelowChunks chunks every search compares exactly",
          );
          // Statistics of one entry would make PostgreSQL plan for an empty table (search-statistics.ts); PGlite plans from the size on disk.
          if (db.kind === "pglite")
            assert.equal(await entriesTuples(), -1, "PGlite's entries table, under a megabyte, has not been analysed");
          const large = await openSearch(
            db,
            { ...defaultSearchConfig, vectors: { ...defaultSearchConfig.vectors, exactBelowChunks: 1 } },
            logger,
          );
          await large.close();
          assert.equal(
            await indexValid(),
            db.vectorType === "pgvector" ? true : null,
            "then an HNSW index with pgvector, none with real[]",
          );
          // The build records the size of chunks as ANALYZE would; the tables planned with it are analysed with it, whatever their size.
          if (db.kind === "pglite")
            assert.equal(
              await entriesTuples(),
              db.vectorType === "pgvector" ? 1 : -1,
              "after an index build, PGlite's entries table has been analysed",
            );
        } finally {
          await db.close();
          await database.dispose();
        }
      });
    });

    defineTimelinesTests(() => h);
    defineAsOfIndexTests(target, () => h);
    defineMetadataOperatorTests(() => h);

    describe("navigation, ranges and grep", () => {
      const tenant = newTenant("navigate");
      const a1 = principal(tenant, "a1");
      const doc = [
        "# Runbook",
        "Intro.",
        "## Restart",
        "Run restart.sh",
        "## Rollback",
        "Run rollback.sh",
        "then verify",
      ].join("\n");
      let id = "";
      before(async () => {
        const reply = await h.client.commit({
          principal: a1,
          entry: { threadId: "ops", source: commonV1.Source.AGENT, text: doc },
          generated: {
            embeddingModel: testModel,
            embeddingDimension: dimension,
            chunks: [{ ordinal: 0, span: { start: 0, end: doc.length }, vector: vectorToBytes(direction(1)) }],
            summary: "How to restart and roll back.",
            nodeSummaries: [
              {
                nodeId: "runbook/rollback",
                heading: "Rollback",
                level: 2,
                span: { start: doc.indexOf("## Rollback"), end: doc.length },
                summary: "Roll back, then verify.",
              },
            ],
            textHash: (await import("@context-hub/common")).contentHash(doc),
          },
        });
        id = reply.ack?.id ?? "";
      });

      test("the outline lists every section with stable ids, lines and stored summaries; a prefix works", async () => {
        const reply = await h.searchClient.navigateEntry({ principal: a1, id: id.slice(0, 13) });
        assert.equal(reply.entry?.id, id);
        assert.equal(reply.entry?.text, "", "no full text in the outline");
        assert.equal(reply.lineCount, 7);
        assert.deepEqual(
          reply.nodes.map((node) => [node.nodeId, node.startLine, node.endLine, node.summary, node.childCount]),
          [
            ["runbook", 1, 7, "", 2],
            ["runbook/restart", 3, 4, "", 0],
            ["runbook/rollback", 5, 7, "Roll back, then verify.", 0],
          ],
        );
      });

      test("ranges by node, lines and characters, cut at max_chars", async () => {
        const node = await h.searchClient.readRange({
          principal: a1,
          id,
          range: { case: "nodeId", value: "runbook/rollback" },
        });
        assert.deepEqual(
          [node.text, node.heading, node.startLine, node.endLine, node.truncated],
          ["## Rollback\nRun rollback.sh\nthen verify", "Rollback", 5, 7, false],
        );
        const lines = await h.searchClient.readRange({
          principal: a1,
          id,
          range: { case: "lines", value: { start: 3, end: 4 } },
        });
        assert.equal(lines.text, "## Restart\nRun restart.sh\n");
        const cut = await h.searchClient.readRange({
          principal: a1,
          id,
          range: { case: "chars", value: { start: 0, end: 1000 } },
          maxChars: 10,
        });
        assert.deepEqual(
          [cut.text, cut.truncated, cut.span?.end, cut.textLength],
          ["# Runbook\n", true, 10, doc.length],
        );
        await expectError(
          h.searchClient.readRange({ principal: a1, id, range: { case: "nodeId", value: "nope" } }),
          "INVALID_ARGUMENT",
          /no outline node/,
        );
        await expectError(
          h.searchClient.readRange({ principal: a1, id }),
          "INVALID_ARGUMENT",
          /give the range to read/,
        );
      });

      test("grep: literal and regex, modes, context, limits", async () => {
        const content = await h.searchClient.grep({
          principal: a1,
          pattern: "^Run (\\w+)\\.sh$",
          regex: true,
          contextLines: 1,
          filter: { threadId: "ops" },
        });
        assert.equal(content.entries.length, 1);
        const [entry] = content.entries;
        assert.deepEqual(
          entry?.matches.map((match) => [match.line, match.lineText, match.before, match.after]),
          [
            [4, "Run restart.sh", ["## Restart"], ["## Rollback"]],
            [6, "Run rollback.sh", ["## Rollback"], ["then verify"]],
          ],
        );
        assert.equal(doc.slice(entry?.matches[0]?.span?.start, entry?.matches[0]?.span?.end), "Run restart.sh");
        assert.equal(
          (
            await h.searchClient.grep({
              principal: a1,
              pattern: "RUN",
              caseInsensitive: true,
              output: GrepOutput.COUNT,
              filter: { threadId: "ops" },
            })
          ).totalMatches,
          3,
          "Runbook, and the two Run lines",
        );
        assert.equal(
          (await h.searchClient.grep({ principal: a1, pattern: "RUN", filter: { threadId: "ops" } })).entries.length,
          0,
          "literals are case-sensitive by default",
        );
        const limited = await h.searchClient.grep({
          principal: a1,
          pattern: "Run",
          maxMatches: 1,
          filter: { threadId: "ops" },
        });
        assert.deepEqual([limited.entries[0]?.matches.length, limited.truncated], [1, true]);
        await expectError(
          h.searchClient.grep({ principal: a1, pattern: "(unclosed", regex: true }),
          "INVALID_ARGUMENT",
          /not a valid regular expression/,
        );
      });

      test("a catastrophic regular expression is stopped and reported, and the store keeps answering", async () => {
        await commitText(h.client, a1, "evil", `${"a".repeat(40)}!`);
        const started = performance.now();
        const [stuck, meanwhile] = await Promise.all([
          h.searchClient.grep({ principal: a1, pattern: "^(a+)+$", regex: true, filter: { threadId: "evil" } }),
          h.searchClient.fullTextSearch({ principal: a1, query: "restart", mode: FullTextMode.MATCH }),
        ]);
        assert.ok(performance.now() - started < 5_000);
        assert.equal(stuck.entries[0]?.timedOut, true);
        assert.match(stuck.warnings.join(" "), /took too long/);
        assert.equal(meanwhile.hits[0]?.entry?.id, id);
      });
    });

    test("changing the text-search language rebuilds the index in that language", async () => {
      const database = await target.createDatabase();
      const db = await openDatabase(database.options, logger);
      try {
        const tenant = newTenant("language");
        const caller = asPrincipal(principal(tenant, "a1"));
        await db.query(
          `INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash)
           VALUES ($1, $2, 't', 'user', 'a1', 'private', 'Die Häuser wurden gebaut', 24, 'Die Häuser wurden gebaut', repeat('0', 64))`,
          [randomId(), tenant],
        );
        const english = await openSearch(db, defaultSearchConfig, logger);
        const query = {
          query: "Haus",
          mode: "match" as const,
          language: "",
          filter: undefined,
          limit: 10,
          offset: 0,
          highlight: false,
        };
        assert.equal(
          (await english.service.fullText(caller, query)).hits.length,
          0,
          "English does not stem Häuser to haus",
        );
        await english.close();
        const german = await openSearch(db, { ...annFirstConfig, language: "german" }, logger);
        assert.equal(german.language, "german");
        assert.equal(
          (await german.service.fullText(caller, query)).hits.length,
          1,
          "German does, once the index is rebuilt",
        );
        await german.close();
        await assert.rejects(
          openSearch(db, defaultSearchConfig, logger, "verify"),
          /built for german, but STORE_SEARCH_LANGUAGE is english/,
        );
      } finally {
        await db.close();
        await database.dispose();
      }
    });
  });
}
