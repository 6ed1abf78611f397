/** Named memories over the store's MemoriesService: upserts, compare-and-set, revisions, listings, tombstones, and who may see what. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { commonV1, storeV1 } from "@context-hub/proto";
import type { SqlExecutor } from "@context-hub/store/testing";
import {
  caught,
  expectError,
  expectIndistinguishable,
  generatedFor,
  newTenant,
  principal,
  principalTrio,
  type PrincipalInit,
  type StoreClient,
  type StoreSuiteContext,
} from "./store-fixtures.js";

/** Everything stored for memories in a tenant: what a refused call must leave unchanged. */
async function memoryFootprint(db: SqlExecutor, tenant: string): Promise<Record<string, unknown>> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT (SELECT count(*)::integer FROM memories WHERE tenant = $1) AS memories,
            (SELECT coalesce(sum(version), 0)::integer FROM memories WHERE tenant = $1) AS versions,
            (SELECT count(*)::integer FROM memory_versions WHERE tenant = $1) AS revisions,
            (SELECT string_agg(value, '|' ORDER BY id) FROM memories WHERE tenant = $1) AS "values",
            (SELECT count(*)::integer FROM idempotency_keys WHERE tenant = $1) AS idempotency_keys`,
    [tenant],
  );
  return rows[0] ?? {};
}

/** What a put may add to its name and value. */
interface PutExtra {
  kind?: string;
  tags?: string[];
  valueType?: string;
  owner?: string;
  visibility?: commonV1.Visibility;
  expectedVersion?: number;
  idempotency?: { key: string; fingerprint: string };
}

/**
 * Generation output for a memory's value as the store keeps it (a JSON value's normalised text), as the gateway
 * sends it with every put: the store refuses a put without it.
 */
function generatedForValue(value: string, valueType = "text") {
  return generatedFor(valueType === "json" ? JSON.stringify(JSON.parse(value)) : value);
}

async function put(
  client: StoreClient,
  caller: PrincipalInit,
  namespace: string,
  key: string,
  value: string,
  extra: PutExtra = {},
) {
  const generated = generatedForValue(value, extra.valueType);
  const reply = await client.putMemory({
    principal: caller,
    namespace,
    key,
    value,
    valueType: "text",
    generated,
    ...extra,
  });
  assert.ok(reply.memory !== undefined);
  return reply;
}

const subject = (name: string) => ({ kind: storeV1.GranteeKind.SUBJECT, name });

export function defineMemoryTests(context: StoreSuiteContext): void {
  describe("named memories", () => {
    test("a put upserts under (namespace, key): every put keeps a revision, read back by version, by time and as history", async () => {
      const { client } = context;
      const a1 = principal(newTenant("memories"), "a1");
      const first = await put(client, a1, "project-x", "plan", "step one", {
        kind: "plan",
        tags: ["Roadmap", "roadmap"],
      });
      assert.deepEqual(
        [first.created, first.memory!.version, first.memory!.owner, first.memory!.tags, first.memory!.visibility],
        [true, 1, "a1", ["roadmap"], commonV1.Visibility.SHARED],
      );
      const between = new Date(Date.now() + 5);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const second = await put(client, a1, "project-x", "plan", "step two");
      assert.deepEqual(
        [second.created, second.memory!.version, second.memory!.id, second.memory!.kind],
        [false, 2, first.memory!.id, ""],
      );

      const current = (await client.getMemory({ principal: a1, namespace: "project-x", key: "plan" })).memory!;
      assert.deepEqual([current.value, current.version], ["step two", 2]);
      assert.equal(
        (await client.getMemory({ principal: a1, namespace: "project-x", key: "plan", version: 1 })).memory!.value,
        "step one",
      );
      assert.equal(
        (
          await client.getMemory({
            principal: a1,
            namespace: "project-x",
            key: "plan",
            asOf: timestampFromDate(between),
          })
        ).memory!.value,
        "step one",
      );
      await expectError(
        client.getMemory({ principal: a1, namespace: "project-x", key: "plan", version: 3 }),
        "ENTRY_NOT_FOUND",
        /has no version 3/,
      );
      await expectError(
        client.getMemory({ principal: a1, namespace: "project-x", key: "plan", asOf: timestampFromDate(new Date(0)) }),
        "ENTRY_NOT_FOUND",
        /has no a value at/,
      );

      const history = await client.getMemoryHistory({ principal: a1, namespace: "project-x", key: "plan" });
      assert.deepEqual(
        history.revisions.map((revision) => [revision.version, revision.change, revision.value, revision.writtenBy]),
        [
          [2, "put", "step two", "a1"],
          [1, "put", "step one", "a1"],
        ],
      );
      assert.deepEqual([history.latestVersion, history.hasMore, history.tombstone], [2, false, undefined]);

      const own = await put(client, a1, "", "scratch", '{"b": 1, "a": [true]}', { valueType: "json" });
      assert.deepEqual(
        [own.memory!.namespace, own.memory!.value, own.memory!.valueType],
        ["a1", '{"b":1,"a":[true]}', "json"],
        "the default namespace is the caller's own",
      );
    });

    test("expected_version is compare-and-set: a stale or premature version is refused and writes nothing", async () => {
      const { client, db } = context;
      const tenant = newTenant("memories-cas");
      const a1 = principal(tenant, "a1");
      await put(client, a1, "ns", "k", "v1");
      await put(client, a1, "ns", "k", "v2");
      const before = await memoryFootprint(db, tenant);
      const stale = await expectError(
        client.putMemory({
          principal: a1,
          namespace: "ns",
          key: "k",
          value: "v3",
          expectedVersion: 1,
          generated: generatedForValue("v3"),
        }),
        "VERSION_CONFLICT",
        /is at version 2, not at the expected version 1/,
      );
      assert.deepEqual(stale.details, { expected_version: 1, current_version: 2 });
      await expectError(
        client.putMemory({
          principal: a1,
          namespace: "ns",
          key: "k",
          value: "v3",
          expectedVersion: 0,
          generated: generatedForValue("v3"),
        }),
        "VERSION_CONFLICT",
        /is at version 2/,
      );
      await expectError(
        client.putMemory({
          principal: a1,
          namespace: "ns",
          key: "new",
          value: "v",
          expectedVersion: 4,
          generated: generatedForValue("v"),
        }),
        "VERSION_CONFLICT",
        /does not exist/,
      );
      await expectError(
        client.deleteMemory({ principal: a1, namespace: "ns", key: "k", expectedVersion: 1 }),
        "VERSION_CONFLICT",
      );
      assert.deepEqual(await memoryFootprint(db, tenant), before);
      assert.equal((await put(client, a1, "ns", "k", "v3", { expectedVersion: 2 })).memory!.version, 3);
      assert.equal((await put(client, a1, "ns", "fresh", "v", { expectedVersion: 0 })).created, true);
    });

    test("concurrent puts of one key: each gets its own version and revision; of compare-and-set puts on one version, exactly one wins", async () => {
      const { client, db } = context;
      const tenant = newTenant("memories-race");
      const a1 = principal(tenant, "a1");
      const writers = 16;
      const first = await Promise.all(
        Array.from({ length: writers }, (_, index) => put(client, a1, "ns", "race", `writer ${index}`)),
      );
      assert.equal(first.filter((reply) => reply.created).length, 1, "one put created the memory");
      assert.deepEqual(
        first.map((reply) => reply.memory!.version).sort((a, b) => a - b),
        Array.from({ length: writers }, (_, index) => index + 1),
      );
      assert.equal(new Set(first.map((reply) => reply.memory!.id)).size, 1);
      const { rows } = await db.query<{ revisions: number }>(
        "SELECT count(*)::integer AS revisions FROM memory_versions v JOIN memories m ON m.id = v.memory_id WHERE m.tenant = $1",
        [tenant],
      );
      assert.equal(rows[0]?.revisions, writers);

      const settled = await Promise.allSettled(
        Array.from({ length: 8 }, (_, index) =>
          put(client, a1, "ns", "race", `cas ${index}`, { expectedVersion: writers }),
        ),
      );
      const won = settled.filter((outcome) => outcome.status === "fulfilled");
      assert.equal(won.length, 1, "exactly one compare-and-set put wins");
      for (const outcome of settled)
        if (outcome.status === "rejected")
          assert.match(String(outcome.reason), /is at version 17, not at the expected version 16/);
      assert.equal(
        (await client.getMemory({ principal: a1, namespace: "ns", key: "race" })).memory!.version,
        writers + 1,
      );
    });

    test("bad input gets a clear error and changes nothing", async () => {
      const { client, db } = context;
      const tenant = newTenant("memories-bad");
      const a1 = principal(tenant, "a1");
      await put(client, a1, "ns", "k", "v");
      const before = await memoryFootprint(db, tenant);
      await expectError(
        client.putMemory({ principal: a1, namespace: "ns", key: "", value: "v" }),
        "INVALID_ARGUMENT",
        /key must be 1 to 512 characters/,
      );
      await expectError(
        client.putMemory({ principal: a1, namespace: "ns", key: "k", value: "" }),
        "INVALID_ARGUMENT",
        /value must not be empty/,
      );
      await expectError(
        client.putMemory({ principal: a1, namespace: "ns", key: "k", value: "x".repeat(100_001) }),
        "INVALID_ARGUMENT",
        /at most 100000 characters/,
      );
      await expectError(
        client.putMemory({ principal: a1, namespace: "ns", key: "k", value: "{", valueType: "json" }),
        "INVALID_ARGUMENT",
        /not valid JSON/,
      );
      await expectError(
        client.putMemory({ principal: a1, namespace: "ns", key: "k", value: "v", valueType: "yaml" }),
        "INVALID_ARGUMENT",
        /value_type must be/,
      );
      await expectError(
        client.putMemory({ principal: a1, namespace: "x".repeat(300), key: "k", value: "v" }),
        "INVALID_ARGUMENT",
        /namespace must be/,
      );
      await expectError(
        client.listMemories({ principal: a1, cursor: "not-a-cursor" }),
        "INVALID_ARGUMENT",
        /cursor is not one list_memories gave/,
      );
      await expectError(
        client.getMemory({ principal: a1, namespace: "ns", key: "k", version: 1, asOf: timestampFromDate(new Date()) }),
        "INVALID_ARGUMENT",
        /not both/,
      );
      await expectError(
        client.putMemory({
          principal: principal(tenant, "a1", { scopes: ["context:read"] }),
          namespace: "ns",
          key: "k",
          value: "v",
        }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      assert.deepEqual(await memoryFootprint(db, tenant), before);
    });

    test("a listing shows one row per key with its latest value, filtered by namespace, key prefix, kind and tag, page by page", async () => {
      const { client } = context;
      const a1 = principal(newTenant("memories-list"), "a1");
      for (const key of ["task/3", "task/1", "note", "task/2", "task/4"])
        await put(client, a1, "ns", key, `${key} v1`, {
          kind: key.startsWith("task") ? "task" : "note",
          tags: key === "task/2" ? ["urgent"] : [],
        });
      await put(client, a1, "ns", "task/1", "task/1 v2");
      await put(client, a1, "other", "task/9", "elsewhere");
      await put(client, a1, "ns", "long", "y".repeat(1_500));
      await put(client, a1, "ns", "gone", "soon deleted");
      await client.deleteMemory({ principal: a1, namespace: "ns", key: "gone", reason: "obsolete" });

      const keys = async (request: { namespace?: string; keyPrefix?: string; kind?: string; tag?: string }) =>
        (await client.listMemories({ principal: a1, ...request })).memories.map(
          (memory) => `${memory.namespace}:${memory.key}`,
        );
      assert.deepEqual(await keys({ namespace: "ns" }), [
        "ns:long",
        "ns:note",
        "ns:task/1",
        "ns:task/2",
        "ns:task/3",
        "ns:task/4",
      ]);
      assert.deepEqual(await keys({ keyPrefix: "task/" }), [
        "ns:task/1",
        "ns:task/2",
        "ns:task/3",
        "ns:task/4",
        "other:task/9",
      ]);
      assert.deepEqual(await keys({ kind: "note" }), ["ns:note"]);
      assert.deepEqual(await keys({ tag: "Urgent" }), ["ns:task/2"]);
      const listed = (await client.listMemories({ principal: a1, namespace: "ns" })).memories;
      assert.equal(listed.find((memory) => memory.key === "task/1")?.value, "task/1 v2");
      const long = listed.find((memory) => memory.key === "long")!;
      assert.deepEqual([long.value.length, long.valueChars, long.truncated], [1_000, 1_500, true]);

      const pages: string[][] = [];
      let cursor = "";
      do {
        const page = await client.listMemories({ principal: a1, keyPrefix: "task/", limit: 2, cursor });
        pages.push(page.memories.map((memory) => memory.key));
        cursor = page.nextCursor;
      } while (cursor !== "");
      assert.deepEqual(pages, [["task/1", "task/2"], ["task/3", "task/4"], ["task/9"]]);
    });

    test("a delete leaves a tombstone with its reason; the key reads as missing until a put revives it at the next version", async () => {
      const { client } = context;
      const tenant = newTenant("memories-delete");
      const a1 = principal(tenant, "a1");
      await put(client, a1, "ns", "k", "before");
      const deleted = await client.deleteMemory({
        principal: a1,
        namespace: "ns",
        key: "k",
        reason: "superseded by the design doc",
      });
      assert.equal(deleted.version, 2);
      await expectError(
        client.getMemory({ principal: a1, namespace: "ns", key: "k" }),
        "ENTRY_NOT_FOUND",
        /no memory "ns"\/"k"/,
      );
      await expectError(client.deleteMemory({ principal: a1, namespace: "ns", key: "k" }), "ENTRY_NOT_FOUND");
      const history = await client.getMemoryHistory({ principal: a1, namespace: "ns", key: "k" });
      assert.deepEqual(
        [history.tombstone?.reason, history.tombstone?.deletedBy],
        ["superseded by the design doc", "a1"],
      );
      assert.deepEqual(
        history.revisions.map((revision) => [revision.version, revision.change, revision.reason]),
        [
          [2, "delete", "superseded by the design doc"],
          [1, "put", ""],
        ],
      );
      assert.equal(
        (await client.getMemory({ principal: a1, namespace: "ns", key: "k", version: 1 })).memory!.value,
        "before",
        "the owner still reads earlier versions",
      );
      const revived = await put(client, a1, "ns", "k", "after");
      assert.deepEqual([revived.created, revived.memory!.version], [true, 3]);
      const audit = await client.getAuditLog({
        principal: principal(tenant, "admin", { scopes: ["context:read", "context:admin"] }),
        filter: { targetId: revived.memory!.id },
      });
      assert.deepEqual(
        audit.records.map((record) => record.action),
        ["memory.put", "memory.delete", "memory.put"],
      );
      const [chain] = (await client.verifyAuditLog({ tenant })).tenants;
      assert.equal(chain?.intact, true);
    });

    test("an idempotency key replays the first put's answer and refuses other arguments", async () => {
      const { client, db } = context;
      const tenant = newTenant("memories-idem");
      const a1 = principal(tenant, "a1");
      const idempotency = { key: "put-1", fingerprint: "f1" };
      const first = await put(client, a1, "ns", "k", "v", { idempotency });
      const before = await memoryFootprint(db, tenant);
      const again = await put(client, a1, "ns", "k", "v", { idempotency });
      assert.deepEqual(again, first);
      assert.deepEqual(await memoryFootprint(db, tenant), before);
      await expectError(
        client.putMemory({
          principal: a1,
          namespace: "ns",
          key: "k",
          value: "other",
          idempotency: { key: "put-1", fingerprint: "f2" },
          generated: generatedForValue("other"),
        }),
        "INVALID_ARGUMENT",
        /already used with different arguments/,
      );
    });

    test("planted neighbours: another principal of the tenant and one of another tenant can neither read, list, overwrite, delete nor infer a memory", async () => {
      const { client, db } = context;
      const { tenantA, a1, a2, b1 } = principalTrio("memories");
      const secret = await put(client, a1, "plans", "secret", "launch on friday", { kind: "plan", tags: ["t"] });
      const footprint = await memoryFootprint(db, tenantA);
      for (const [label, caller] of [
        ["same tenant", a2],
        ["other tenant", b1],
      ] as const) {
        const hiddenAndMissing = async (call: (key: string) => Promise<unknown>, what: string) => {
          await expectIndistinguishable(
            call("secret"),
            "secret",
            call("no-such-key"),
            "no-such-key",
            `${label}: ${what}`,
          );
        };
        await hiddenAndMissing((key) => client.getMemory({ principal: caller, namespace: "plans", key }), "get");
        await hiddenAndMissing(
          (key) => client.getMemory({ principal: caller, namespace: "plans", key, owner: "a1" }),
          "get naming the owner",
        );
        await hiddenAndMissing(
          (key) => client.getMemory({ principal: caller, namespace: "plans", key, owner: "a1", version: 1 }),
          "get a version",
        );
        await hiddenAndMissing(
          (key) => client.getMemoryHistory({ principal: caller, namespace: "plans", key, owner: "a1" }),
          "history",
        );
        await hiddenAndMissing(
          (key) =>
            client.putMemory({
              principal: caller,
              namespace: "plans",
              key,
              owner: "a1",
              value: "overwritten",
              generated: generatedForValue("overwritten"),
            }),
          "overwrite",
        );
        await hiddenAndMissing(
          (key) =>
            client.putMemory({
              principal: caller,
              namespace: "plans",
              key,
              owner: "a1",
              value: "overwritten",
              expectedVersion: 1,
              generated: generatedForValue("overwritten"),
            }),
          "compare-and-set",
        );
        await hiddenAndMissing(
          (key) => client.deleteMemory({ principal: caller, namespace: "plans", key, owner: "a1" }),
          "delete",
        );
        for (const filter of [
          {},
          { namespace: "plans" },
          { keyPrefix: "sec" },
          { kind: "plan" },
          { tag: "t" },
          { owner: "a1" },
        ]) {
          assert.deepEqual(
            (await client.listMemories({ principal: caller, ...filter })).memories,
            [],
            `${label}: list ${JSON.stringify(filter)}`,
          );
        }
      }
      assert.deepEqual(await memoryFootprint(db, tenantA), footprint, "nothing changed");

      // A neighbour's own put under the same name is their own memory, and a1's stays as it was.
      const theirs = await put(client, a2, "plans", "secret", "a2's value");
      assert.deepEqual([theirs.created, theirs.memory!.owner, theirs.memory!.version], [true, "a2", 1]);
      assert.equal(
        (await client.getMemory({ principal: a1, namespace: "plans", key: "secret" })).memory!.value,
        "launch on friday",
      );
      assert.notEqual(theirs.memory!.id, secret.memory!.id);

      // An admin of the other tenant sees nothing either.
      const foreignAdmin = principal(b1.tenant!, "root", {
        scopes: ["context:read", "context:write", "context:admin"],
      });
      assert.deepEqual((await client.listMemories({ principal: foreignAdmin })).memories, []);
      await expectError(
        client.getMemory({ principal: foreignAdmin, namespace: "plans", key: "secret", owner: "a1" }),
        "ENTRY_NOT_FOUND",
      );
    });

    test("sharing the namespace as a thread opens the owner's shared memories in it: a read grant reads, a write grant writes, private stays private", async () => {
      const { client } = context;
      const { a1, a2, b1 } = principalTrio("memories-share");
      const a3 = principal(a1.tenant!, "a3");
      await put(client, a1, "team", "status", "green");
      await put(client, a1, "team", "diary", "mine alone", { visibility: commonV1.Visibility.PRIVATE });
      await put(client, a1, "open", "motd", "hello all", { visibility: commonV1.Visibility.TENANT });
      await client.share({
        principal: a1,
        threadId: "team",
        grantees: [subject("a2")],
        permission: storeV1.Permission.READ,
      });

      assert.equal(
        (await client.getMemory({ principal: a2, namespace: "team", key: "status" })).memory!.value,
        "green",
        "the only visible owner's memory is found without naming the owner",
      );
      assert.deepEqual(
        (await client.listMemories({ principal: a2, namespace: "team" })).memories.map((memory) => memory.key),
        ["status"],
      );
      await expectIndistinguishable(
        client.getMemory({ principal: a2, namespace: "team", key: "diary" }),
        "diary",
        client.getMemory({ principal: a2, namespace: "team", key: "none" }),
        "none",
        "a private memory in a shared namespace",
      );
      await expectError(
        client.putMemory({
          principal: a2,
          namespace: "team",
          key: "status",
          owner: "a1",
          value: "red",
          generated: generatedForValue("red"),
        }),
        "PERMISSION_DENIED",
        /may read memory .* but not change it/,
      );
      await expectError(
        client.getMemory({ principal: a3, namespace: "team", key: "status", owner: "a1" }),
        "ENTRY_NOT_FOUND",
      );
      assert.equal(
        (await client.getMemory({ principal: a3, namespace: "open", key: "motd" })).memory!.value,
        "hello all",
        "tenant visibility reaches the tenant",
      );
      await expectError(
        client.getMemory({ principal: b1, namespace: "open", key: "motd", owner: "a1" }),
        "ENTRY_NOT_FOUND",
      );

      // A memory made shared later keeps what it held while private to its owner.
      await put(client, a1, "team", "draft", "private thoughts", { visibility: commonV1.Visibility.PRIVATE });
      await put(client, a1, "team", "draft", "ready to share", { visibility: commonV1.Visibility.SHARED });
      const draftHistory = await client.getMemoryHistory({ principal: a2, namespace: "team", key: "draft" });
      assert.deepEqual(
        draftHistory.revisions.map((revision) => [
          revision.version,
          revision.value,
          revision.redacted,
          revision.contentHash === "",
        ]),
        [
          [2, "ready to share", false, false],
          [1, "", true, true],
        ],
      );
      await expectError(
        client.getMemory({ principal: a2, namespace: "team", key: "draft", version: 1 }),
        "ENTRY_NOT_FOUND",
        /has no version 1/,
      );
      assert.equal(
        (await client.getMemoryHistory({ principal: a1, namespace: "team", key: "draft" })).revisions[1]!.value,
        "private thoughts",
        "the owner sees it all",
      );

      await client.share({
        principal: a1,
        threadId: "team",
        grantees: [subject("a2")],
        permission: storeV1.Permission.WRITE,
      });
      const written = await put(client, a2, "team", "status", "amber", { owner: "a1", expectedVersion: 1 });
      assert.deepEqual(
        [written.memory!.owner, written.memory!.updatedBy, written.memory!.version, written.created],
        ["a1", "a2", 2, false],
      );
      await expectError(
        client.putMemory({
          principal: a2,
          namespace: "team",
          key: "status",
          owner: "a1",
          value: "x",
          visibility: commonV1.Visibility.TENANT,
          generated: generatedForValue("x"),
        }),
        "PERMISSION_DENIED",
        /only the owner/,
      );
      await expectError(
        client.putMemory({
          principal: a2,
          namespace: "team",
          key: "diary",
          owner: "a1",
          value: "x",
          generated: generatedForValue("x"),
        }),
        "ENTRY_NOT_FOUND",
        /no memory "team"\/"diary" of "a1" that you can see/,
      );

      // Two visible owners of one name: the caller's own wins; a third party must choose.
      await put(client, a2, "team", "status", "a2's own");
      assert.equal((await client.getMemory({ principal: a2, namespace: "team", key: "status" })).memory!.owner, "a2");
      await client.share({
        principal: a2,
        threadId: "team",
        grantees: [subject("a3")],
        permission: storeV1.Permission.READ,
      });
      await client.share({
        principal: a1,
        threadId: "team",
        grantees: [subject("a3")],
        permission: storeV1.Permission.READ,
      });
      const ambiguous = await caught(client.getMemory({ principal: a3, namespace: "team", key: "status" }));
      assert.deepEqual([ambiguous.code, ambiguous.message.includes("owners: a1, a2")], ["INVALID_ARGUMENT", true]);
      assert.equal(
        (await client.getMemory({ principal: a3, namespace: "team", key: "status", owner: "a1" })).memory!.value,
        "amber",
      );
      assert.ok(timestampDate(written.memory!.updatedAt!) >= timestampDate(written.memory!.createdAt!));
    });
  });
}
