/**
 * The store's integration suite, run unchanged against every database target
 * (PGlite in memory, PGlite on disk, a real PostgreSQL server). RPC tests
 * drive a started store over real gRPC; schema and predicate tests use SQL.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { contentHash, vectorToBytes } from "@context-hub/common";
import { commonV1 } from "@context-hub/proto";
import type { SqlDatabase } from "@context-hub/store";
import {
  accessPredicate,
  createSqlParams,
  createUuidV7,
  ginIndexes,
  isUuid,
  latestSchemaVersion,
  migrate,
  migrations,
  type AccessMode,
  type Principal,
} from "@context-hub/store/testing";
import {
  expectError,
  generatedFor,
  idsOf,
  insertEntryRow,
  insertGrant,
  logger,
  newTenant,
  openConnection,
  openDatabase,
  principal,
  startTestStore,
  textEntry,
  type StartedStore,
  type StoreClient,
  type StoreSuiteContext,
  type StoreTarget,
} from "./store-fixtures.js";
import { defineApiKeyTests } from "./store-api-keys-suite.js";
import { defineBatchTests } from "./store-batches-suite.js";
import { defineChangeTests } from "./store-changes-suite.js";
import { defineIdempotencyTests } from "./store-idempotency-suite.js";
import { defineReplyBudgetTests } from "./store-reply-budget-suite.js";
import { defineSearchVectorTests } from "./store-search-vector-suite.js";
import { defineEmbeddingTests } from "./store-embeddings-suite.js";
import { defineIsolationTests } from "./store-isolation-suite.js";
import { defineSharingTests } from "./store-sharing-suite.js";
import { defineThreadTests } from "./store-threads-suite.js";

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 9, 8, 7]);
const svg = new TextEncoder().encode(
  '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>',
);
const html = new TextEncoder().encode("<!DOCTYPE html><html><body><script>alert(1)</script></body></html>");

/** Registers the whole suite for one target. */
export function defineStoreSuite(target: StoreTarget): void {
  describe(`store on ${target.name}`, () => {
    let database: { options: Parameters<typeof openDatabase>[0]; dispose(): Promise<void> };
    let db: SqlDatabase;
    let store: StartedStore;
    let client: StoreClient;

    before(async () => {
      database = await target.createDatabase();
      db = await openDatabase(database.options, logger);
      store = await startTestStore(database.options, db);
      client = store.client;
    });

    after(async () => {
      await store?.close();
      await db?.close();
      await database?.dispose();
    });

    const context: StoreSuiteContext = {
      target,
      get client() {
        return client;
      },
      get db() {
        return db;
      },
      get options() {
        return database.options;
      },
    };

    test("migrations apply once, are idempotent, and a newer schema is refused", async () => {
      const fresh = await target.createDatabase();
      try {
        const connection = await openConnection(fresh.options);
        try {
          const first = await migrate(connection, logger);
          assert.deepEqual(
            first.applied,
            Array.from({ length: latestSchemaVersion }, (_, index) => index + 1),
          );
          const second = await migrate(connection, logger);
          assert.deepEqual(second.applied, []);
          assert.equal(second.schemaVersion, latestSchemaVersion);
          const recorded = await connection.query<{ version: number }>(
            "SELECT version FROM schema_migrations ORDER BY version",
          );
          assert.deepEqual(
            recorded.rows.map((row) => row.version),
            first.applied,
          );

          await connection.query("INSERT INTO schema_migrations (version, name) VALUES ($1, 'from a newer store')", [
            latestSchemaVersion + 1,
          ]);
          await assert.rejects(migrate(connection, logger), (error: Error) => {
            assert.match(
              error.message,
              new RegExp(
                `schema is at version ${latestSchemaVersion + 1}, newer than this store knows \\(${latestSchemaVersion}\\)`,
              ),
            );
            return true;
          });
        } finally {
          await connection.close();
        }
        if (target.persistent) {
          await assert.rejects(openDatabase(fresh.options, logger), /newer than this store knows/);
        }
      } finally {
        await fresh.dispose();
      }
    });

    test("every GIN index writes straight into its tree, with no pending list for searches to read through", async () => {
      // Tenants' BM25 indexes are not GIN; any GIN index a later migration adds must say fastupdate = off too.
      const { rows } = await db.query<{ name: string; options: string[] | null; pending: number }>(
        `SELECT c.relname AS name, c.reloptions AS options
         FROM pg_class c JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE a.amname = 'gin' AND n.nspname = current_schema() ORDER BY c.relname`,
      );
      assert.deepEqual(
        rows.map((row) => row.name),
        [...ginIndexes].sort(),
      );
      for (const row of rows) assert.ok(row.options?.includes("fastupdate=off"), `${row.name}: ${row.options}`);
    });

    test("a database written under an older schema migrates forward with its data intact", async () => {
      const fresh = await target.createDatabase();
      try {
        const connection = await openConnection(fresh.options);
        const id = createUuidV7();
        try {
          const first = await migrate(connection, logger, migrations.slice(0, 1));
          assert.deepEqual(first.applied, [1]);
          await insertEntryRow(connection, { id, tenant: "old", owner: "a1", text: "written under schema 1" });
          await insertGrant(connection, {
            tenant: "old",
            grantor: "a1",
            entryId: id,
            granteeKind: "subject",
            grantee: "a2",
          });
          const rest = await migrate(connection, logger);
          assert.deepEqual(
            rest.applied,
            Array.from({ length: latestSchemaVersion - 1 }, (_, index) => index + 2),
          );
          assert.equal(rest.schemaVersion, latestSchemaVersion);
          const { rows } = await connection.query<{ text: string; grants: number; keys: number }>(
            "SELECT e.text, (SELECT count(*)::integer FROM grants) AS grants, (SELECT count(*)::integer FROM idempotency_keys) AS keys FROM entries e WHERE e.id = $1",
            [id],
          );
          assert.deepEqual(rows, [{ text: "written under schema 1", grants: 1, keys: 0 }]);
        } finally {
          await connection.close();
        }
      } finally {
        await fresh.dispose();
      }
    });

    test("chunk vectors are stored in the column type the server supports", async () => {
      assert.equal(db.vectorType, await target.expectedVectorType(database.options));
      const tenant = newTenant("vectors");
      const text = "Vectors travel with their entry.";
      const ack = await client.commit({
        principal: principal(tenant, "a1"),
        entry: textEntry("t", text),
        generated: generatedFor(text),
      });
      const { rows } = await db.query<{ embedding: string; type: string; model: string }>(
        "SELECT embedding::text AS embedding, pg_typeof(embedding)::text AS type, embedding_model AS model FROM chunks WHERE entry_id = $1 ORDER BY ordinal",
        [ack.ack?.id],
      );
      assert.equal(rows.length, 2);
      assert.equal(rows[0]?.type, db.vectorType === "pgvector" ? "vector" : "real[]");
      const parsed = rows.map((row) => row.embedding.slice(1, -1).split(",").map(Number));
      assert.deepEqual(parsed, [
        [0.5, -0.25, 1, 0],
        [0.125, 2, -1.5, 0.75],
      ]);
      assert.equal(rows[0]?.model, "test-model");
    });

    test("commit then get returns everything that was written", async () => {
      const tenant = newTenant("roundtrip");
      const caller = principal(tenant, "a1");
      const text =
        "# Deploy notes\n\nThe canary   rolled out\tcleanly.\n\n## Rollback\n\nUse helm rollback with the previous revision.";
      const rollbackAt = text.indexOf("## Rollback");
      const before = Date.now();
      const reply = await client.commit({
        principal: caller,
        entry: textEntry("thread-1", text, {
          source: commonV1.Source.AGENT,
          tags: [" Deploy ", "deploy", "OPS"],
          metadata: { status: "open", attempt: 2, nested: { ok: true }, list: [1, "two", null] },
          images: [
            { mimeType: "image/png", data: png },
            { mimeType: "IMAGE/JPEG", data: jpeg },
          ],
        }),
        generated: generatedFor(text, {
          summary: "Canary went out; rollback is a helm command.",
          nodeSummaries: [
            {
              nodeId: "deploy-notes",
              heading: "Deploy notes",
              level: 1,
              span: { start: 0, end: rollbackAt },
              summary: "The canary rolled out.",
            },
            {
              nodeId: "deploy-notes/rollback",
              heading: "Rollback",
              level: 2,
              span: { start: rollbackAt, end: text.length },
              summary: "Use helm rollback.",
            },
          ],
        }),
      });
      const ack = reply.ack;
      assert.ok(ack !== undefined);
      assert.ok(isUuid(ack.id), ack.id);
      assert.equal(ack.id[14], "7", "ids are UUIDv7");
      assert.equal(ack.version, 1);
      assert.equal(ack.contentHash, contentHash(text));
      assert.equal(ack.deduplicated, false);
      assert.ok(ack.createdAt !== undefined && ack.updatedAt !== undefined);
      const createdAt = timestampDate(ack.createdAt);
      assert.ok(Math.abs(createdAt.getTime() - before) < 60_000);
      assert.deepEqual(timestampDate(ack.updatedAt), createdAt);

      const got = await client.getEntries({ principal: caller, ids: [ack.id], includeImages: true });
      assert.deepEqual(got.missing, []);
      assert.equal(got.entries.length, 1);
      const entry = got.entries[0]!;
      assert.equal(entry.id, ack.id);
      assert.equal(entry.threadId, "thread-1");
      assert.equal(entry.source, commonV1.Source.AGENT);
      assert.equal(entry.owner, "a1");
      assert.equal(entry.visibility, commonV1.Visibility.PRIVATE, "visibility defaults to private");
      assert.equal(entry.text, text);
      assert.equal(entry.textLength, text.length);
      assert.equal(
        entry.preview,
        "# Deploy notes The canary rolled out cleanly. ## Rollback Use helm rollback with the previous revision.",
      );
      assert.equal(entry.contentHash, contentHash(text));
      assert.deepEqual(entry.metadata, { status: "open", attempt: 2, nested: { ok: true }, list: [1, "two", null] });
      assert.deepEqual(entry.tags, ["deploy", "ops"]);
      assert.equal(entry.summary, "Canary went out; rollback is a helm command.");
      assert.equal(entry.version, 1);
      assert.deepEqual(entry.createdAt && timestampDate(entry.createdAt), createdAt);
      assert.equal(entry.contentType, "multimodal");
      assert.deepEqual(
        entry.images.map((image) => [image.ordinal, image.mimeType, image.byteSize, [...image.data]]),
        [
          [0, "image/png", png.length, [...png]],
          [1, "image/jpeg", jpeg.length, [...jpeg]],
        ],
      );
      assert.deepEqual(
        entry.nodeSummaries.map((node) => [
          node.nodeId,
          node.heading,
          node.level,
          node.span?.start,
          node.span?.end,
          node.summary,
        ]),
        [
          ["deploy-notes", "Deploy notes", 1, 0, rollbackAt, "The canary rolled out."],
          ["deploy-notes/rollback", "Rollback", 2, rollbackAt, text.length, "Use helm rollback."],
        ],
      );
      assert.equal(entry.embeddingModel, "test-model");
      assert.equal(entry.chunkCount, 2);

      const withoutImages = await client.getEntries({ principal: caller, ids: [ack.id] });
      assert.deepEqual(
        withoutImages.entries[0]?.images.map((image) => [image.byteSize, image.data.length]),
        [
          [png.length, 0],
          [jpeg.length, 0],
        ],
      );
    });

    test("list applies every filter, newest first, with limit, offset and has_more", async () => {
      const tenant = newTenant("list");
      const caller = principal(tenant, "a1");
      const longText = `${"word ".repeat(199)}end`;
      const commit = async (threadId: string, text: string, extra: Parameters<typeof textEntry>[2]) =>
        (
          await client.commit({
            principal: caller,
            entry: textEntry(threadId, text, extra),
            generated: generatedFor(text),
          })
        ).ack!.id;
      const e1 = await commit("t1", "first entry", {
        tags: ["alpha"],
        metadata: { status: "open", n: 1, arr: [1, 2] },
      });
      const e2 = await commit("t1", "second entry", {
        source: commonV1.Source.AGENT,
        tags: ["beta"],
        metadata: { status: "done" },
      });
      const e3 = await commit("t2", "third entry", {
        tags: ["alpha", "gamma"],
        metadata: { status: "open", arr: [1, 2, 3] },
        images: [{ mimeType: "image/png", data: png }],
      });
      const e4 = await commit("t2", longText, { source: commonV1.Source.AGENT });
      // Fixed creation times make the time filters exact; commits a few milliseconds apart could share one.
      for (const [id, month] of [
        [e1, 1],
        [e2, 2],
        [e3, 3],
        [e4, 4],
      ] as const) {
        await db.query("UPDATE entries SET created_at = $2::timestamptz WHERE id = $1", [
          id,
          `2024-0${month}-01T00:00:00Z`,
        ]);
      }
      const list = async (
        filter: Parameters<StoreClient["listEntries"]>[0]["filter"],
        page: { limit?: number; offset?: number } = {},
      ) => {
        const reply = await client.listEntries({ principal: caller, filter, ...page });
        return { ids: idsOf(reply.entries), hasMore: reply.hasMore, entries: reply.entries };
      };
      const value = (json: JsonValue) => fromJson(ValueSchema, json);

      const all = await list(undefined);
      assert.deepEqual(all.ids, [e4, e3, e2, e1]);
      assert.equal(all.hasMore, false);
      assert.ok(
        all.entries.every((entry) => entry.text === ""),
        "listings carry no full text",
      );
      const long = all.entries[0]!;
      assert.equal(long.textLength, longText.length);
      assert.ok(long.preview.endsWith("…") && long.preview.length <= 301, long.preview);
      assert.ok(!long.preview.slice(0, -1).endsWith("wor"), "the preview is cut at a word boundary");
      assert.deepEqual(
        all.entries[1]?.images.map((image) => image.mimeType),
        ["image/png"],
      );

      assert.deepEqual((await list({ threadId: "t1" })).ids, [e2, e1]);
      assert.deepEqual((await list({ source: commonV1.Source.AGENT })).ids, [e4, e2]);
      assert.deepEqual((await list({ tagsAny: [" ALPHA "] })).ids, [e3, e1]);
      assert.deepEqual((await list({ tagsAny: ["beta", "gamma"] })).ids, [e3, e2]);
      assert.deepEqual((await list({ metadata: [{ key: "status", value: value("open") }] })).ids, [e3, e1]);
      assert.deepEqual(
        (await list({ metadata: [{ key: "arr", value: value([1, 2]) }] })).ids,
        [e1],
        "arrays match exactly, not by containment",
      );
      assert.deepEqual(
        (
          await list({
            metadata: [
              { key: "status", value: value("open") },
              { key: "n", value: value(1) },
            ],
          })
        ).ids,
        [e1],
      );
      assert.deepEqual((await list({ metadata: [{ key: "status", value: value("missing") }] })).ids, []);
      assert.deepEqual(
        (
          await list({
            createdFrom: timestampFromDate(new Date("2024-02-01T00:00:00Z")),
            createdTo: timestampFromDate(new Date("2024-04-01T00:00:00Z")),
          })
        ).ids,
        [e3, e2],
        "created_from is inclusive, created_to exclusive",
      );
      assert.deepEqual((await list({ contentType: "multimodal" })).ids, [e3]);
      assert.deepEqual((await list({ contentType: "text" })).ids, [e4, e2, e1]);
      assert.deepEqual((await list({ threadId: "t2", source: commonV1.Source.USER })).ids, [e3]);

      assert.deepEqual(await list(undefined, { limit: 2 }).then((page) => [page.ids, page.hasMore]), [[e4, e3], true]);
      assert.deepEqual(await list(undefined, { limit: 2, offset: 2 }).then((page) => [page.ids, page.hasMore]), [
        [e2, e1],
        false,
      ]);
      assert.deepEqual(await list(undefined, { limit: 3, offset: 1 }).then((page) => [page.ids, page.hasMore]), [
        [e3, e2, e1],
        false,
      ]);
      assert.deepEqual(await list(undefined, { limit: 1, offset: 2 }).then((page) => [page.ids, page.hasMore]), [
        [e2],
        true,
      ]);

      await expectError(
        client.listEntries({ principal: caller, limit: 101 }),
        "INVALID_ARGUMENT",
        /limit must be 1 to 100/,
      );
      await expectError(
        client.listEntries({ principal: caller, offset: 10_001 }),
        "INVALID_ARGUMENT",
        /offset must be at most 10000/,
      );
      await expectError(
        client.listEntries({ principal: caller, filter: { contentType: "video" } }),
        "INVALID_ARGUMENT",
        /content_type/,
      );
      await expectError(
        client.listEntries({ principal: caller, filter: { metadata: [{ key: "status" }] } }),
        "INVALID_ARGUMENT",
        /metadata\[0\]\.value is required/,
      );
      await expectError(
        client.listEntries({
          principal: caller,
          filter: {
            createdFrom: timestampFromDate(new Date("2024-03-01")),
            createdTo: timestampFromDate(new Date("2024-02-01")),
          },
        }),
        "INVALID_ARGUMENT",
        /created_from must be before/,
      );
    });

    test("a retransmit folds into the caller's entry; version moves only when tags, metadata or images change", async () => {
      const tenant = newTenant("fold");
      const caller = principal(tenant, "a1");
      const text = "Same words, sent twice.";
      const entry = textEntry("t", text, { tags: ["x"], metadata: { a: 1 } });
      const first = (await client.commit({ principal: caller, entry, generated: generatedFor(text) })).ack!;
      const found = await client.findDuplicate({
        principal: caller,
        threadId: "t",
        source: commonV1.Source.USER,
        contentHash: contentHash(text),
      });
      assert.equal(found.entryId, first.id);

      const again = (await client.commit({ principal: caller, entry, generated: generatedFor(text) })).ack!;
      assert.deepEqual([again.id, again.version, again.deduplicated], [first.id, 1, true]);
      assert.deepEqual(timestampDate(again.createdAt!), timestampDate(first.createdAt!));
      assert.ok(timestampDate(again.updatedAt!) >= timestampDate(first.updatedAt!));

      const retagged = (await client.commit({ principal: caller, entry: { ...entry, tags: ["Y"] } })).ack!;
      assert.deepEqual([retagged.id, retagged.version, retagged.deduplicated], [first.id, 2, true]);
      const remeta = (await client.commit({ principal: caller, entry: { ...entry, tags: ["y"], metadata: { a: 2 } } }))
        .ack!;
      assert.equal(remeta.version, 3);
      const unchanged = (
        await client.commit({ principal: caller, entry: { ...entry, tags: ["y"], metadata: { a: 2 } } })
      ).ack!;
      assert.equal(unchanged.version, 3);
      const withImage = (
        await client.commit({
          principal: caller,
          entry: { ...entry, tags: ["y"], metadata: { a: 2 }, images: [{ mimeType: "image/png", data: png }] },
        })
      ).ack!;
      assert.equal(withImage.version, 4);

      const listed = await client.listEntries({ principal: caller, filter: { threadId: "t" } });
      assert.deepEqual(idsOf(listed.entries), [first.id], "no second row");
      const stored = (await client.getEntries({ principal: caller, ids: [first.id], includeImages: true })).entries[0]!;
      assert.deepEqual(stored.tags, ["y"]);
      assert.deepEqual(stored.metadata, { a: 2 });
      assert.equal(stored.contentType, "multimodal");
      assert.deepEqual([...stored.images[0]!.data], [...png]);
      assert.equal(stored.chunkCount, 2, "a fold keeps the original vectors");
    });

    test("an entry of the other source after the candidate suppresses the fold", async () => {
      const tenant = newTenant("opposite");
      const caller = principal(tenant, "a1");
      const hello = "hello";
      const hash = contentHash(hello);
      const first = (
        await client.commit({ principal: caller, entry: textEntry("t", hello), generated: generatedFor(hello) })
      ).ack!;
      await client.commit({
        principal: caller,
        entry: textEntry("t", "hi, how can I help?", { source: commonV1.Source.AGENT }),
        generated: generatedFor("hi, how can I help?"),
      });

      assert.equal(
        (
          await client.findDuplicate({
            principal: caller,
            threadId: "t",
            source: commonV1.Source.USER,
            contentHash: hash,
          })
        ).entryId,
        "",
      );
      await expectError(
        client.commit({ principal: caller, entry: textEntry("t", hello) }),
        "DUPLICATE_VANISHED",
        /nothing was stored/,
      );
      const second = (
        await client.commit({ principal: caller, entry: textEntry("t", hello), generated: generatedFor(hello) })
      ).ack!;
      assert.notEqual(second.id, first.id);
      assert.equal(second.deduplicated, false);
      // The new turn is now the latest user entry with nothing after it: a retransmit of it folds.
      const retransmit = (await client.commit({ principal: caller, entry: textEntry("t", hello) })).ack!;
      assert.deepEqual([retransmit.id, retransmit.deduplicated], [second.id, true]);
      assert.equal((await client.listEntries({ principal: caller, filter: { threadId: "t" } })).entries.length, 3);
    });

    test("a fold never crosses principals, and only visible entries suppress it", async () => {
      const tenant = newTenant("principals");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const text = "status: green";
      const hash = contentHash(text);
      const mine = (
        await client.commit({
          principal: a1,
          entry: textEntry("t", text, { visibility: commonV1.Visibility.TENANT }),
          generated: generatedFor(text),
        })
      ).ack!;

      assert.equal(
        (await client.findDuplicate({ principal: a2, threadId: "t", source: commonV1.Source.USER, contentHash: hash }))
          .entryId,
        "",
      );
      await expectError(client.commit({ principal: a2, entry: textEntry("t", text) }), "DUPLICATE_VANISHED");
      const theirs = (
        await client.commit({ principal: a2, entry: textEntry("t", text), generated: generatedFor(text) })
      ).ack!;
      assert.notEqual(theirs.id, mine.id);
      assert.equal(theirs.deduplicated, false);
      const original = (await client.getEntries({ principal: a1, ids: [mine.id] })).entries[0]!;
      assert.deepEqual([original.owner, original.version], ["a1", 1]);

      // A2's private agent reply is invisible to A1, so it cannot suppress A1's fold (nor reveal itself by doing so).
      await client.commit({
        principal: a2,
        entry: textEntry("t", "private reply", { source: commonV1.Source.AGENT }),
        generated: generatedFor("private reply"),
      });
      assert.equal(
        (await client.findDuplicate({ principal: a1, threadId: "t", source: commonV1.Source.USER, contentHash: hash }))
          .entryId,
        mine.id,
      );
      await client.commit({
        principal: a2,
        entry: textEntry("t", "public reply", {
          source: commonV1.Source.AGENT,
          visibility: commonV1.Visibility.TENANT,
        }),
        generated: generatedFor("public reply"),
      });
      assert.equal(
        (await client.findDuplicate({ principal: a1, threadId: "t", source: commonV1.Source.USER, contentHash: hash }))
          .entryId,
        "",
      );
    });

    test("FindDuplicates answers every check as its own caller, in order, and fails a check alone", async () => {
      const tenant = newTenant("checks");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const reader = principal(tenant, "r", { scopes: ["context:read"] });
      const text = "checked together";
      const mine = (
        await client.commit({
          principal: a1,
          entry: textEntry("t", text, { visibility: commonV1.Visibility.TENANT }),
          generated: generatedFor(text),
        })
      ).ack!;
      const check = (who: typeof a1, change: { threadId?: string; contentHash?: string; requestId?: string } = {}) => ({
        principal: who,
        threadId: "t",
        source: commonV1.Source.USER,
        contentHash: contentHash(text),
        ...change,
      });

      const { results } = await client.findDuplicates({
        checks: [
          check(a2),
          check(a1),
          check(reader, { requestId: "refused-check" }),
          check(a1, { threadId: "" }),
          check(a1, { contentHash: contentHash("other") }),
          check(a1),
        ],
      });
      assert.deepEqual(
        results.map((result) => [result.entryId, result.error?.code ?? ""]),
        [
          ["", ""], // a2 sees a1's tenant-wide entry, but it is not a2's own
          [mine.id, ""],
          ["", "PERMISSION_DENIED"],
          ["", "INVALID_ARGUMENT"],
          ["", ""],
          [mine.id, ""],
        ],
      );
      assert.match(results[2]!.error!.message, /context:write/);
      assert.match(results[3]!.error!.message, /thread_id/);
      // The refusal is audited under the request the check came from.
      const { rows } = await db.query<{ request_id: string }>(
        "SELECT request_id FROM audit_log WHERE tenant = $1 AND outcome = 'denied'",
        [tenant],
      );
      assert.deepEqual(
        rows.map((row) => row.request_id),
        ["refused-check"],
      );

      assert.deepEqual((await client.findDuplicates({ checks: [] })).results, []);
      await expectError(
        client.findDuplicates({ checks: Array.from({ length: 1001 }, () => check(a1)) }),
        "INVALID_ARGUMENT",
        /at most 1000/,
      );
    });

    test("a commit without generation output and no duplicate stores nothing (DUPLICATE_VANISHED)", async () => {
      const tenant = newTenant("vanished");
      const caller = principal(tenant, "a1");
      const error = await expectError(
        client.commit({ principal: caller, entry: textEntry("t", "never generated") }),
        "DUPLICATE_VANISHED",
      );
      assert.match((error as Error & { remedy?: string }).remedy ?? "", /commit it again/);
      assert.equal((await client.listEntries({ principal: caller })).entries.length, 0);

      // The fold re-asserts the hash it saw: once the row's text has changed, the same write is no longer a duplicate.
      const text = "original text";
      const ack = (
        await client.commit({ principal: caller, entry: textEntry("t2", text), generated: generatedFor(text) })
      ).ack!;
      await db.query("UPDATE entries SET text = 'edited text', content_hash = $2 WHERE id = $1", [
        ack.id,
        contentHash("edited text"),
      ]);
      await expectError(client.commit({ principal: caller, entry: textEntry("t2", text) }), "DUPLICATE_VANISHED");
    });

    test("identical commits racing each other create one entry", async () => {
      // A ~100 KB text keeps each transaction open long enough (its full-text vector is computed) for the racers to overlap.
      const text = "racing retransmit of a long report ".repeat(3000);
      for (let round = 0; round < 3; round++) {
        const caller = principal(newTenant("race"), "a1");
        const acks = await Promise.all(
          Array.from({ length: 16 }, () =>
            client.commit({ principal: caller, entry: textEntry("t", text), generated: generatedFor(text) }),
          ),
        );
        assert.equal(new Set(acks.map((reply) => reply.ack!.id)).size, 1, "every commit acknowledges the same entry");
        assert.equal(acks.filter((reply) => !reply.ack!.deduplicated).length, 1);
        assert.equal((await client.listEntries({ principal: caller })).entries.length, 1);
      }
    });

    test("ids resolve by full id or prefix, in request order, judged only among visible entries", async () => {
      const tenantA = newTenant("prefix-a");
      const tenantB = newTenant("prefix-b");
      const a1 = principal(tenantA, "a1");
      const a2 = principal(tenantA, "a2");
      const a3 = principal(tenantA, "a3");
      const b1 = principal(tenantB, "b1");
      const stem = randomBytes(6).toString("hex");
      // The ids share their first 12 hex digits and differ from the 13th on.
      const idOf = (n: number) => `${stem.slice(0, 8)}-${stem.slice(8, 12)}-7${n}00-8000-000000000000`;
      const [p1, p2, p3] = [idOf(1), idOf(2), idOf(3)];
      await insertEntryRow(db, { id: p1, tenant: tenantA, owner: "a1" });
      await insertEntryRow(db, { id: p2, tenant: tenantA, owner: "a2" });
      await insertEntryRow(db, { id: p3, tenant: tenantB, owner: "b1", visibility: "tenant" });
      const prefix = stem.slice(0, 8);
      const get = (caller: typeof a1, ids: string[]) => client.getEntries({ principal: caller, ids });

      assert.deepEqual(
        idsOf((await get(a1, [prefix])).entries),
        [p1],
        "A2's private entry and B's entry do not make A1's prefix ambiguous",
      );
      assert.deepEqual(idsOf((await get(a2, [prefix])).entries), [p2]);
      assert.deepEqual(idsOf((await get(b1, [prefix])).entries), [p3]);
      const hidden = await get(a3, [prefix]);
      const unused = await get(a3, ["00000000"]);
      assert.deepEqual([idsOf(hidden.entries), hidden.missing], [[], [prefix]]);
      assert.deepEqual(
        [idsOf(unused.entries), unused.missing],
        [[], ["00000000"]],
        "an invisible match looks exactly like no match",
      );

      await db.query("UPDATE entries SET visibility = 'tenant' WHERE id = $1", [p2]);
      const ambiguous = await expectError(
        get(a1, [prefix]),
        "AMBIGUOUS_ID_PREFIX",
        new RegExp(`"${prefix}" matches more than one entry`),
      );
      assert.deepEqual(ambiguous.details.candidates, [p1, p2], "only visible candidates are named");
      await expectError(get(a1, [`${stem.slice(0, 8).toUpperCase()}-${stem.slice(8, 12)}`]), "AMBIGUOUS_ID_PREFIX");
      assert.deepEqual(idsOf((await get(b1, [prefix])).entries), [p3], "B still sees only its own tenant");

      const full = p1.replace(/-/g, "").toUpperCase();
      const ordered = await get(a1, [p2, full, p1, p1.replace(/-/g, "").slice(0, 31), `${stem.slice(0, 8)}-ffff`, p3]);
      assert.deepEqual(idsOf(ordered.entries), [p2, p1], "request order, each entry once");
      assert.deepEqual(ordered.missing, [`${stem.slice(0, 8)}-ffff`, p3]);
      assert.equal(ordered.entries[0]?.text, `row ${p2}`);

      for (const bad of ["abc", "abcdef1", "0".repeat(33), "xyz12345", ""]) {
        await expectError(get(a1, [p1, bad]), "INVALID_ARGUMENT", /ids\[1\] .* is not an entry id/);
      }
      await expectError(get(a1, []), "INVALID_ARGUMENT", /ids must list 1 to 100 ids/);
      await expectError(
        get(
          a1,
          Array.from({ length: 101 }, () => p1),
        ),
        "INVALID_ARGUMENT",
        /ids must list 1 to 100 ids/,
      );
    });

    test("visibility and grants decide who sees an entry, on every read path", async () => {
      const tenantA = newTenant("access-a");
      const tenantB = newTenant("access-b");
      const a1 = principal(tenantA, "a1");
      const a2 = principal(tenantA, "a2");
      const a3 = principal(tenantA, "a3", { groups: ["ops"] });
      const b1 = principal(tenantB, "b1", { groups: ["ops"] });
      const adminA = principal(tenantA, "root", { scopes: ["context:read", "context:admin"] });
      const adminB = principal(tenantB, "root", { scopes: ["context:read", "context:admin"] });
      const write = async (threadId: string, text: string, visibility: commonV1.Visibility) =>
        (
          await client.commit({
            principal: a1,
            entry: textEntry(threadId, text, { visibility }),
            generated: generatedFor(text),
          })
        ).ack!.id;
      const priv = await write("general", "private note", commonV1.Visibility.UNSPECIFIED);
      const open = await write("general", "tenant note", commonV1.Visibility.TENANT);
      const toA2 = await write("general", "shared with a2", commonV1.Visibility.SHARED);
      const toOps = await write("ops-thread", "shared with ops", commonV1.Visibility.SHARED);
      const all = [priv, open, toA2, toOps];

      await insertGrant(db, { tenant: tenantA, grantor: "a1", entryId: toA2, granteeKind: "subject", grantee: "a2" });
      await insertGrant(db, {
        tenant: tenantA,
        grantor: "a1",
        threadId: "ops-thread",
        granteeKind: "group",
        grantee: "ops",
      });
      // Grants that must give nothing: made by someone who is not the owner, or recorded under another tenant.
      await insertGrant(db, { tenant: tenantA, grantor: "a2", entryId: toA2, granteeKind: "subject", grantee: "a3" });
      await insertGrant(db, { tenant: tenantB, grantor: "a1", entryId: priv, granteeKind: "subject", grantee: "b1" });
      await insertGrant(db, { tenant: tenantA, grantor: "a1", entryId: priv, granteeKind: "subject", grantee: "a2" });

      const expectations: [string, typeof a1, string[]][] = [
        ["owner", a1, all],
        ["A2 (entry grant)", a2, [open, toA2]],
        ["A3 (group thread grant)", a3, [open, toOps]],
        ["B1 (other tenant)", b1, []],
        ["tenant A admin", adminA, all],
        ["tenant B admin", adminB, []],
      ];
      for (const [who, caller, visible] of expectations) {
        const got = await client.getEntries({ principal: caller, ids: all });
        assert.deepEqual(idsOf(got.entries), visible, `${who}: get`);
        assert.deepEqual(
          got.missing,
          all.filter((id) => !visible.includes(id)),
          `${who}: the rest are missing, like ids that never existed`,
        );
        const listed = await client.listEntries({ principal: caller });
        assert.deepEqual(new Set(idsOf(listed.entries)), new Set(visible), `${who}: list`);
        const byThread = await client.listEntries({ principal: caller, filter: { threadId: "general" } });
        assert.deepEqual(
          new Set(idsOf(byThread.entries)),
          new Set(visible.filter((id) => id !== toOps)),
          `${who}: list by thread`,
        );
      }
      const ghost = createUuidV7();
      const b1View = await client.getEntries({ principal: b1, ids: [priv, ghost] });
      assert.deepEqual([b1View.entries.length, b1View.missing], [0, [priv, ghost]]);
    });

    test("the access predicate, composed into SQL, decides reads and writes", async () => {
      const tenantA = newTenant("predicate-a");
      const tenantB = newTenant("predicate-b");
      const id = () => createUuidV7();
      const rows = {
        priv: id(),
        open: id(),
        sharedEntry: id(),
        sharedThread: id(),
        sharedWrite: id(),
        privWithWriteGrant: id(),
        foreign: id(),
      };
      await insertEntryRow(db, { id: rows.priv, tenant: tenantA, owner: "a1" });
      await insertEntryRow(db, { id: rows.open, tenant: tenantA, owner: "a1", visibility: "tenant" });
      await insertEntryRow(db, { id: rows.sharedEntry, tenant: tenantA, owner: "a1", visibility: "shared" });
      await insertEntryRow(db, {
        id: rows.sharedThread,
        tenant: tenantA,
        owner: "a1",
        visibility: "shared",
        threadId: "team",
      });
      await insertEntryRow(db, { id: rows.sharedWrite, tenant: tenantA, owner: "a1", visibility: "shared" });
      await insertEntryRow(db, { id: rows.privWithWriteGrant, tenant: tenantA, owner: "a1" });
      await insertEntryRow(db, { id: rows.foreign, tenant: tenantB, owner: "b1", visibility: "tenant" });
      await insertGrant(db, {
        tenant: tenantA,
        grantor: "a1",
        entryId: rows.sharedEntry,
        granteeKind: "subject",
        grantee: "a2",
      });
      await insertGrant(db, {
        tenant: tenantA,
        grantor: "a1",
        threadId: "team",
        granteeKind: "group",
        grantee: "team",
      });
      await insertGrant(db, {
        tenant: tenantA,
        grantor: "a1",
        entryId: rows.sharedWrite,
        granteeKind: "subject",
        grantee: "a2",
        permission: "write",
      });
      await insertGrant(db, {
        tenant: tenantA,
        grantor: "a1",
        entryId: rows.privWithWriteGrant,
        granteeKind: "subject",
        grantee: "a2",
        permission: "write",
      });

      const visible = async (caller: Principal, mode: AccessMode) => {
        const params = createSqlParams();
        const scope = params.add([tenantA, tenantB]);
        const result = await db.query<{ id: string }>(
          `SELECT e.id FROM entries e WHERE e.tenant = ANY(${scope}::text[]) AND ${accessPredicate(caller, "e", params, mode)} ORDER BY e.id`,
          params.values,
        );
        return result.rows.map((row) => row.id);
      };
      const who = (
        tenant: string,
        subject: string,
        groups: string[] = [],
        scopes: string[] = ["context:read"],
      ): Principal => ({ tenant, subject, groups, scopes });
      const sorted = (...ids: string[]) => [...ids].sort();
      const inA = Object.entries(rows)
        .filter(([name]) => name !== "foreign")
        .map(([, value]) => value);

      assert.deepEqual(await visible(who(tenantA, "a1"), "read"), sorted(...inA));
      assert.deepEqual(await visible(who(tenantA, "a1"), "write"), sorted(...inA));
      assert.deepEqual(
        await visible(who(tenantA, "a2"), "read"),
        sorted(rows.open, rows.sharedEntry, rows.sharedWrite),
      );
      assert.deepEqual(
        await visible(who(tenantA, "a2"), "write"),
        sorted(rows.sharedWrite),
        "a read grant does not let you write; a write grant on a private entry gives nothing",
      );
      assert.deepEqual(await visible(who(tenantA, "a3", ["team"]), "read"), sorted(rows.open, rows.sharedThread));
      assert.deepEqual(await visible(who(tenantA, "a3", ["team"]), "write"), []);
      assert.deepEqual(await visible(who(tenantA, "a4"), "read"), sorted(rows.open));
      assert.deepEqual(await visible(who(tenantA, "boss", [], ["context:admin"]), "read"), sorted(...inA));
      assert.deepEqual(await visible(who(tenantA, "boss", [], ["context:admin"]), "write"), sorted(...inA));
      assert.deepEqual(await visible(who(tenantB, "b1", ["team"]), "read"), [rows.foreign]);
      assert.deepEqual(
        await visible(who(tenantB, "boss", [], ["context:admin"]), "read"),
        [rows.foreign],
        "admin never crosses tenants",
      );
      // The predicate runs before LIMIT: one visible row among newer invisible ones is still found.
      const params = createSqlParams();
      const limited = await db.query<{ id: string }>(
        `SELECT e.id FROM entries e WHERE e.tenant = ${params.add(tenantA)} AND ${accessPredicate(who(tenantA, "a4"), "e", params)} ORDER BY e.id DESC LIMIT 1`,
        params.values,
      );
      assert.deepEqual(
        limited.rows.map((row) => row.id),
        [rows.open],
      );
      assert.throws(
        () => accessPredicate(who(tenantA, "a1"), "e; DROP TABLE entries", createSqlParams()),
        /not a plain identifier/,
      );
    });

    test("scopes are enforced on every RPC and a bad principal is refused", async () => {
      const tenant = newTenant("scopes");
      const reader = principal(tenant, "r", { scopes: ["context:read"] });
      const writer = principal(tenant, "w", { scopes: ["context:write"] });
      const adminOnly = principal(tenant, "x", { scopes: ["context:admin"] });
      const text = "scoped";
      await expectError(
        client.commit({ principal: reader, entry: textEntry("t", text), generated: generatedFor(text) }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      await expectError(
        client.findDuplicate({
          principal: reader,
          threadId: "t",
          source: commonV1.Source.USER,
          contentHash: contentHash(text),
        }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      await expectError(client.listEntries({ principal: writer }), "PERMISSION_DENIED", /context:read/);
      await expectError(
        client.getEntries({ principal: writer, ids: [createUuidV7()] }),
        "PERMISSION_DENIED",
        /context:read/,
      );
      await expectError(client.listEntries({ principal: adminOnly }), "PERMISSION_DENIED", /context:read/);
      await expectError(
        client.commit({ entry: textEntry("t", text), generated: generatedFor(text) }),
        "UNAUTHENTICATED",
        /no principal/,
      );
      await expectError(
        client.commit({ principal: principal("", "w"), entry: textEntry("t", text), generated: generatedFor(text) }),
        "UNAUTHENTICATED",
        /tenant/,
      );
      await expectError(client.listEntries({ principal: principal(tenant, "") }), "UNAUTHENTICATED", /subject/);
      const { rows } = await db.query<{ count: number }>(
        "SELECT count(*)::integer AS count FROM entries WHERE tenant = $1",
        [tenant],
      );
      assert.equal(rows[0]?.count, 0);
    });

    test("every bad input is refused with a specific message and nothing is stored", async (t) => {
      const tenant = newTenant("invalid");
      const caller = principal(tenant, "a1");
      const text = "A valid text.";
      const base = textEntry("t", text);
      const generated = generatedFor(text);
      const cases: [string, Parameters<StoreClient["commit"]>[0], RegExp][] = [
        ["no entry", { principal: caller, generated }, /entry is required/],
        [
          "empty thread",
          { principal: caller, entry: { ...base, threadId: "" }, generated },
          /thread_id must be 1 to 256 characters \(got 0\)/,
        ],
        [
          "long thread",
          { principal: caller, entry: { ...base, threadId: "t".repeat(257) }, generated },
          /thread_id must be 1 to 256 characters \(got 257\)/,
        ],
        [
          "no source",
          { principal: caller, entry: { ...base, source: commonV1.Source.UNSPECIFIED }, generated },
          /source must be user or agent/,
        ],
        [
          "unknown visibility",
          { principal: caller, entry: { ...base, visibility: 9 as commonV1.Visibility }, generated },
          /visibility 9 is not a known visibility/,
        ],
        ["empty text", { principal: caller, entry: { ...base, text: "" }, generated }, /text must not be empty/],
        [
          "blank text",
          { principal: caller, entry: { ...base, text: " \n\t " }, generated },
          /text must not be empty or only whitespace/,
        ],
        [
          "NUL in text",
          { principal: caller, entry: { ...base, text: "a\u0000b" }, generated: generatedFor("a\u0000b") },
          /text must not contain NUL/,
        ],
        [
          "text too long",
          { principal: caller, entry: { ...base, text: "x".repeat(1_000_001) }, generated: generatedFor("x") },
          /text is 1000001 characters; the limit is 1000000/,
        ],
        [
          "11 images",
          {
            principal: caller,
            entry: { ...base, images: Array.from({ length: 11 }, () => ({ mimeType: "image/png", data: png })) },
            generated,
          },
          /images: at most 10 per entry \(got 11\)/,
        ],
        [
          "image too big",
          {
            principal: caller,
            entry: { ...base, images: [{ mimeType: "image/png", data: new Uint8Array(10 * 1024 * 1024 + 1) }] },
            generated,
          },
          /images\[0\] is 10485761 bytes; the limit is 10485760/,
        ],
        [
          "not an image",
          { principal: caller, entry: { ...base, images: [{ mimeType: "text/plain", data: png }] }, generated },
          /images\[0\]\.mime_type "text\/plain" is not a stored image type/,
        ],
        [
          "an SVG type",
          { principal: caller, entry: { ...base, images: [{ mimeType: "image/svg+xml", data: svg }] }, generated },
          /images\[0\]\.mime_type "image\/svg\+xml" is not a stored image type/,
        ],
        [
          "SVG bytes labelled PNG",
          {
            principal: caller,
            entry: {
              ...base,
              images: [
                { mimeType: "image/png", data: png },
                { mimeType: "image/png", data: svg },
              ],
            },
            generated,
          },
          /images\[1\] is declared image\/png but its bytes are SVG \(image\/svg\+xml\)/,
        ],
        [
          "PNG bytes labelled JPEG",
          { principal: caller, entry: { ...base, images: [{ mimeType: "image/jpeg", data: png }] }, generated },
          /images\[0\] is declared image\/jpeg but its bytes are image\/png/,
        ],
        [
          "HTML labelled GIF",
          { principal: caller, entry: { ...base, images: [{ mimeType: "image/gif", data: html }] }, generated },
          /images\[0\] is declared image\/gif but its bytes are HTML/,
        ],
        [
          "empty image",
          {
            principal: caller,
            entry: { ...base, images: [{ mimeType: "image/png", data: new Uint8Array() }] },
            generated,
          },
          /images\[0\] has no data/,
        ],
        [
          "51 tags",
          {
            principal: caller,
            entry: { ...base, tags: Array.from({ length: 51 }, (_, index) => `tag${index}`) },
            generated,
          },
          /tags: at most 50 tags \(got 51\)/,
        ],
        [
          "long tag",
          { principal: caller, entry: { ...base, tags: ["ok", "t".repeat(101)] }, generated },
          /tags\[1\] is 101 characters; the limit is 100/,
        ],
        ["blank tag", { principal: caller, entry: { ...base, tags: ["  "] }, generated }, /tags\[0\] is empty/],
        [
          "metadata too big",
          { principal: caller, entry: { ...base, metadata: { blob: "m".repeat(65_536) } }, generated },
          /metadata is 65547 bytes as JSON; the limit is 65536/,
        ],
        [
          "NUL in metadata",
          { principal: caller, entry: { ...base, metadata: { "k\u0000": 1 } }, generated },
          /metadata must not contain NUL/,
        ],
        [
          "span outside text",
          {
            principal: caller,
            entry: base,
            generated: {
              ...generated,
              chunks: [{ ordinal: 0, span: { start: 0, end: text.length + 1 }, vector: vectorToBytes([1, 2, 3, 4]) }],
            },
          },
          /chunks\[0\]\.span \[0, 14\) does not lie inside the text \(length 13\)/,
        ],
        [
          "empty span",
          {
            principal: caller,
            entry: base,
            generated: {
              ...generated,
              chunks: [{ ordinal: 0, span: { start: 3, end: 3 }, vector: vectorToBytes([1, 2, 3, 4]) }],
            },
          },
          /chunks\[0\]\.span \[3, 3\) does not lie inside/,
        ],
        [
          "no span",
          {
            principal: caller,
            entry: base,
            generated: { ...generated, chunks: [{ ordinal: 0, vector: vectorToBytes([1, 2, 3, 4]) }] },
          },
          /chunks\[0\]\.span is required/,
        ],
        [
          "wrong dimension",
          {
            principal: caller,
            entry: base,
            generated: {
              ...generated,
              chunks: [{ ordinal: 0, span: { start: 0, end: 4 }, vector: vectorToBytes([1, 2, 3]) }],
            },
          },
          /chunks\[0\]\.vector has 3 dimensions; embedding_dimension is 4/,
        ],
        [
          "vector bytes not whole float32 values",
          {
            principal: caller,
            entry: base,
            generated: {
              ...generated,
              chunks: [{ ordinal: 0, span: { start: 0, end: 4 }, vector: new Uint8Array(15) }],
            },
          },
          /generated\.chunks\[0\]\.vector is 15 bytes, not a whole number of float32 components/,
        ],
        [
          "zero dimension",
          { principal: caller, entry: base, generated: { ...generated, embeddingDimension: 0 } },
          /embedding_dimension must be greater than 0 when chunks are present/,
        ],
        [
          "no model",
          { principal: caller, entry: base, generated: { ...generated, embeddingModel: "" } },
          /embedding_model is required/,
        ],
        [
          "NaN in vector",
          {
            principal: caller,
            entry: base,
            generated: {
              ...generated,
              chunks: [{ ordinal: 0, span: { start: 0, end: 4 }, vector: vectorToBytes([1, Number.NaN, 3, 4]) }],
            },
          },
          /chunks\[0\]\.vector contains a value that is not a finite number/,
        ],
        [
          "repeated ordinal",
          {
            principal: caller,
            entry: base,
            generated: { ...generated, chunks: [generated.chunks[0]!, { ...generated.chunks[1]!, ordinal: 0 }] },
          },
          /chunks\[1\]\.ordinal 0 repeats/,
        ],
        [
          "node outside text",
          {
            principal: caller,
            entry: base,
            generated: {
              ...generated,
              nodeSummaries: [{ nodeId: "n", heading: "H", level: 1, span: { start: 2, end: 99 }, summary: "s" }],
            },
          },
          /node_summaries\[0\]\.span \[2, 99\) does not lie inside/,
        ],
        [
          "node level",
          {
            principal: caller,
            entry: base,
            generated: {
              ...generated,
              nodeSummaries: [{ nodeId: "n", heading: "H", level: 0, span: { start: 0, end: 2 }, summary: "s" }],
            },
          },
          /node_summaries\[0\]\.level must be 1 to 6/,
        ],
        [
          "repeated node",
          {
            principal: caller,
            entry: base,
            generated: {
              ...generated,
              nodeSummaries: [
                { nodeId: "n", heading: "H", level: 1, span: { start: 0, end: 2 }, summary: "s" },
                { nodeId: "n", heading: "H", level: 1, span: { start: 2, end: 4 }, summary: "s" },
              ],
            },
          },
          /node_summaries\[1\]\.node_id "n" repeats/,
        ],
      ];
      for (const [name, request, message] of cases) {
        await t.test(name, async () => {
          await expectError(client.commit(request), "INVALID_ARGUMENT", message);
        });
      }
      await expectError(
        client.findDuplicate({ principal: caller, threadId: "t", source: commonV1.Source.USER, contentHash: "abc" }),
        "INVALID_ARGUMENT",
        /content_hash must be a lowercase hex SHA-256/,
      );
      await expectError(
        client.findDuplicate({
          principal: caller,
          threadId: "",
          source: commonV1.Source.USER,
          contentHash: contentHash(text),
        }),
        "INVALID_ARGUMENT",
        /thread_id/,
      );
      await expectError(
        client.findDuplicate({ principal: caller, threadId: "t", contentHash: contentHash(text) }),
        "INVALID_ARGUMENT",
        /source must be user or agent/,
      );
      const counts = await db.query<{ entries: number; chunks: number }>(
        "SELECT (SELECT count(*)::integer FROM entries WHERE tenant = $1) AS entries, (SELECT count(*)::integer FROM chunks WHERE tenant = $1) AS chunks",
        [tenant],
      );
      assert.deepEqual(counts.rows[0], { entries: 0, chunks: 0 });
      // The same request made valid is accepted, so the refusals above were about their one defect.
      assert.equal((await client.commit({ principal: caller, entry: base, generated })).ack?.version, 1);
    });

    test("full-text vectors are generated even for text past PostgreSQL's tsvector limit", async () => {
      const tenant = newTenant("fts");
      const caller = principal(tenant, "a1");
      // ~990k characters of distinct tokens: their full tsvector exceeds PostgreSQL's 1 MB limit.
      const tokens: string[] = [];
      let length = 0;
      for (let index = 0; length < 990_000; index++) {
        const token = `tok${index.toString(36)}x${createHash("md5").update(String(index)).digest("hex").slice(0, 4)}`;
        tokens.push(token);
        length += token.length + 1;
      }
      const text = `needle ${tokens.join(" ")}`;
      await assert.rejects(db.query("SELECT to_tsvector('english', $1) AS v", [text]), /too long for tsvector/);
      const ack = (
        await client.commit({ principal: caller, entry: textEntry("t", text), generated: generatedFor(text) })
      ).ack!;
      const { rows } = await db.query<{ hit: boolean }>(
        "SELECT search_vector @@ plainto_tsquery('english', 'needle') AS hit FROM entries WHERE id = $1",
        [ack.id],
      );
      assert.equal(rows[0]?.hit, true);
      const stored = (await client.getEntries({ principal: caller, ids: [ack.id] })).entries[0]!;
      assert.equal(stored.text.length, text.length);
    });

    test("/readyz reports ready while the database answers", async () => {
      const response = await fetch(`http://127.0.0.1:${store.service.opsPort}/readyz`);
      assert.equal(response.status, 200);
    });

    defineChangeTests(context);
    defineBatchTests(context);
    defineThreadTests(context);
    defineSharingTests(context);
    defineIdempotencyTests(context);
    defineReplyBudgetTests(context);
    defineSearchVectorTests(context);
    defineEmbeddingTests(context);
    defineIsolationTests(context);
    defineApiKeyTests(context);
  });
}
