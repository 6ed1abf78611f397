/** Handoffs over the store's HandoffsService: creation, the accept/complete/cancel states, compare-and-set, listings, and who may see what. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { storeV1 } from "@context-hub/proto";
import type { SqlExecutor } from "@context-hub/store/testing";
import {
  expectError,
  expectIndistinguishable,
  newTenant,
  principal,
  principalTrio,
  randomId,
  type PrincipalInit,
  type StoreClient,
  type StoreSuiteContext,
} from "./store-fixtures.js";

/** Everything stored for handoffs in a tenant: what a refused call must leave unchanged. */
async function handoffFootprint(db: SqlExecutor, tenant: string): Promise<Record<string, unknown>> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT (SELECT count(*)::integer FROM handoffs WHERE tenant = $1) AS handoffs,
            (SELECT coalesce(sum(version), 0)::integer FROM handoffs WHERE tenant = $1) AS versions,
            (SELECT string_agg(status || ':' || holder, '|' ORDER BY id) FROM handoffs WHERE tenant = $1) AS states,
            (SELECT count(*)::integer FROM audit_log WHERE tenant = $1 AND outcome = 'ok') AS audited,
            (SELECT count(*)::integer FROM idempotency_keys WHERE tenant = $1) AS idempotency_keys`,
    [tenant],
  );
  return rows[0] ?? {};
}

type CreateInit = Omit<MessageInitShape<typeof storeV1.CreateHandoffRequestSchema>, "principal" | "$typeName">;
type CreateExtra = Omit<CreateInit, "recipient" | "title">;
type ListInit = Omit<MessageInitShape<typeof storeV1.ListHandoffsRequestSchema>, "principal" | "$typeName">;

async function create(
  client: StoreClient,
  caller: PrincipalInit,
  recipient: { kind: string; name: string },
  title: string,
  extra: CreateExtra = {},
) {
  const reply = await client.createHandoff({
    principal: caller,
    recipient,
    title,
    summary: `${title}: summary`,
    ...extra,
  });
  assert.ok(reply.handoff !== undefined);
  return reply.handoff;
}

const to = (name: string) => ({ kind: "subject", name });
const admin = (tenant: string) =>
  principal(tenant, "root", { scopes: ["context:read", "context:write", "context:admin"] });

export function defineHandoffTests(context: StoreSuiteContext): void {
  describe("handoffs", () => {
    test("a handoff carries its content to its recipient, who accepts and completes it; every change is audited", async () => {
      const { client } = context;
      const tenant = newTenant("handoffs");
      const [alice, bob] = [principal(tenant, "alice"), principal(tenant, "bob")];
      const created = await create(client, alice, to("bob"), "Finish the billing migration", {
        nextSteps: ["dry run on staging", "cut over"],
        openQuestions: ["keep the old table a week?"],
        links: [
          { type: "entry", ref: "0190-entry" },
          { type: "memory", ref: "project-x/plan" },
          { type: "artifact", ref: "sha256:ab12" },
        ],
        priority: "high",
      });
      assert.deepEqual(
        [created.status, created.version, created.creator, created.holder, created.priority, created.recipient?.name],
        ["open", 1, "alice", "", "high", "bob"],
      );
      assert.deepEqual(
        created.links.map((link) => `${link.type}:${link.ref}`),
        ["entry:0190-entry", "memory:project-x/plan", "artifact:sha256:ab12"],
      );
      const seen = (await client.getHandoff({ principal: bob, id: created.id })).handoff!;
      assert.deepEqual(
        [seen.title, seen.nextSteps, seen.openQuestions],
        [created.title, created.nextSteps, created.openQuestions],
      );

      const accepted = (await client.acceptHandoff({ principal: bob, id: created.id, expectedVersion: 1 })).handoff!;
      assert.deepEqual(
        [accepted.status, accepted.holder, accepted.version, accepted.updatedBy],
        ["accepted", "bob", 2, "bob"],
      );
      const again = (await client.acceptHandoff({ principal: bob, id: created.id })).handoff!;
      assert.equal(again.version, 2, "a repeated accept by the holder changes nothing");
      const completed = (
        await client.completeHandoff({
          principal: bob,
          id: created.id,
          outcome: "cut over on Tuesday; old table dropped",
        })
      ).handoff!;
      assert.deepEqual(
        [completed.status, completed.outcome, completed.version],
        ["completed", "cut over on Tuesday; old table dropped", 3],
      );
      assert.equal((await client.getHandoff({ principal: alice, id: created.id })).handoff!.status, "completed");

      const audit = await client.getAuditLog({ principal: admin(tenant), filter: { targetId: created.id } });
      assert.deepEqual(
        audit.records.map((record) => record.action),
        ["handoff.complete", "handoff.accept", "handoff.create"],
        "newest first",
      );
      const [chain] = (await client.verifyAuditLog({ tenant })).tenants;
      assert.equal(chain?.intact, true);
    });

    test("who may change what: a second accept names the holder, only the holder completes, only the creator cancels, a finished handoff stays finished", async () => {
      const { client, db } = context;
      const tenant = newTenant("handoffs-states");
      const [alice, bob, carol] = [
        principal(tenant, "alice"),
        principal(tenant, "bob", { groups: ["ops"] }),
        principal(tenant, "carol", { groups: ["ops"] }),
      ];
      const handoff = await create(client, alice, { kind: "group", name: "ops" }, "Rotate the keys");
      await expectError(
        client.completeHandoff({ principal: bob, id: handoff.id, outcome: "done" }),
        "VERSION_CONFLICT",
        /is open: nobody has accepted it yet/,
      );
      await expectError(
        client.acceptHandoff({ principal: alice, id: handoff.id }),
        "PERMISSION_DENIED",
        /not addressed to you/,
      );
      await client.acceptHandoff({ principal: carol, id: handoff.id });
      const held = await expectError(
        client.acceptHandoff({ principal: bob, id: handoff.id }),
        "VERSION_CONFLICT",
        /already accepted by "carol"/,
      );
      assert.deepEqual(held.details, { status: "accepted", holder: "carol", current_version: 2 });
      await expectError(
        client.completeHandoff({ principal: bob, id: handoff.id, outcome: "x" }),
        "PERMISSION_DENIED",
        /held by "carol"; only its holder/,
      );
      await expectError(
        client.cancelHandoff({ principal: carol, id: handoff.id }),
        "PERMISSION_DENIED",
        /only the creator .*"alice"/,
      );
      await expectError(
        client.completeHandoff({ principal: carol, id: handoff.id, outcome: "  " }),
        "INVALID_ARGUMENT",
        /outcome must not be empty/,
      );
      await expectError(
        client.cancelHandoff({ principal: alice, id: handoff.id, expectedVersion: 1 }),
        "VERSION_CONFLICT",
        /is at version 2, not at the expected version 1/,
      );
      const before = await handoffFootprint(db, tenant);
      const cancelled = (
        await client.cancelHandoff({ principal: alice, id: handoff.id, reason: "rotated by the vendor" })
      ).handoff!;
      assert.deepEqual(
        [cancelled.status, cancelled.cancelReason, cancelled.holder, cancelled.version],
        ["cancelled", "rotated by the vendor", "carol", 3],
      );
      assert.notDeepEqual(await handoffFootprint(db, tenant), before);
      await expectError(
        client.completeHandoff({ principal: carol, id: handoff.id, outcome: "done" }),
        "VERSION_CONFLICT",
        /already cancelled/,
      );
      await expectError(
        client.cancelHandoff({ principal: alice, id: handoff.id }),
        "VERSION_CONFLICT",
        /already cancelled/,
      );
      const denied = await client.getAuditLog({ principal: admin(tenant), filter: { targetId: handoff.id } });
      assert.ok(
        denied.records.some((record) => record.action === "handoff.accept" && record.outcome === "denied"),
        "a refused accept is audited as denied",
      );
    });

    test("concurrent accepts of one handoff: exactly one recipient wins, the others are told who holds it", async () => {
      const { client, db } = context;
      const tenant = newTenant("handoffs-race");
      const alice = principal(tenant, "alice");
      const handoff = await create(client, alice, { kind: "group", name: "oncall" }, "Page review");
      const agents = Array.from({ length: 12 }, (_, index) =>
        principal(tenant, `agent-${index}`, { groups: ["oncall"] }),
      );
      const settled = await Promise.allSettled(
        agents.map((agent) => client.acceptHandoff({ principal: agent, id: handoff.id })),
      );
      const won = settled.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value.handoff!] : []));
      assert.equal(won.length, 1, "exactly one accept wins");
      const holder = won[0]!.holder;
      for (const outcome of settled)
        if (outcome.status === "rejected")
          assert.match(String(outcome.reason), new RegExp(`already accepted by "${holder}"`));
      const { rows } = await db.query<{ version: number; holder: string; accepts: number }>(
        `SELECT h.version, h.holder, (SELECT count(*)::integer FROM audit_log a WHERE a.tenant = h.tenant AND a.action = 'handoff.accept' AND a.outcome = 'ok') AS accepts
         FROM handoffs h WHERE h.id = $1`,
        [handoff.id],
      );
      assert.deepEqual(rows[0], { version: 2, holder, accepts: 1 });
    });

    test("bad input gets a clear error and changes nothing", async () => {
      const { client, db } = context;
      const tenant = newTenant("handoffs-bad");
      const alice = principal(tenant, "alice");
      await create(client, alice, to("bob"), "kept");
      const before = await handoffFootprint(db, tenant);
      const bad = (extra: Partial<CreateInit>) =>
        client.createHandoff({ principal: alice, recipient: to("bob"), title: "t", summary: "s", ...extra });
      await expectError(
        client.createHandoff({ principal: alice, title: "t", summary: "s" }),
        "INVALID_ARGUMENT",
        /recipient is required/,
      );
      await expectError(bad({ recipient: { kind: "team", name: "x" } }), "INVALID_ARGUMENT", /recipient kind must be/);
      await expectError(bad({ recipient: to("") }), "INVALID_ARGUMENT", /recipient subject must not be empty/);
      await expectError(bad({ title: " " }), "INVALID_ARGUMENT", /title must not be empty/);
      await expectError(bad({ title: "x".repeat(201) }), "INVALID_ARGUMENT", /title must be at most 200 characters/);
      await expectError(bad({ summary: "" }), "INVALID_ARGUMENT", /summary must not be empty/);
      await expectError(bad({ priority: "asap" }), "INVALID_ARGUMENT", /priority must be/);
      await expectError(bad({ nextSteps: ["ok", ""] }), "INVALID_ARGUMENT", /next_steps\[1\] must not be empty/);
      await expectError(
        bad({ links: [{ type: "Entry!", ref: "x" }] }),
        "INVALID_ARGUMENT",
        /links\[0\]\.type must be a lowercase word/,
      );
      await expectError(bad({ summary: "a\u0000b" }), "INVALID_ARGUMENT", /NUL/);
      await expectError(
        client.listHandoffs({ principal: alice, cursor: "nope" }),
        "INVALID_ARGUMENT",
        /cursor is not one list_handoffs gave/,
      );
      await expectError(client.listHandoffs({ principal: alice, role: "mine" }), "INVALID_ARGUMENT", /role must be/);
      await expectError(
        client.listHandoffs({ principal: alice, status: "done" }),
        "INVALID_ARGUMENT",
        /status must be/,
      );
      await expectError(
        client.createHandoff({
          principal: principal(tenant, "alice", { scopes: ["context:read"] }),
          recipient: to("bob"),
          title: "t",
          summary: "s",
        }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      assert.deepEqual(await handoffFootprint(db, tenant), before);
    });

    test("listings: to me, from me and by status, oldest first unless asked, page by page", async () => {
      const { client } = context;
      const tenant = newTenant("handoffs-list");
      const [alice, bob] = [principal(tenant, "alice"), principal(tenant, "bob")];
      const titles = ["one", "two", "three", "four", "five"];
      for (const title of titles) await create(client, alice, to("bob"), title);
      const back = await create(client, bob, to("alice"), "back to alice");
      await client.acceptHandoff({ principal: alice, id: back.id });
      const list = async (caller: PrincipalInit, request: ListInit = {}) =>
        (await client.listHandoffs({ principal: caller, ...request })).handoffs.map((handoff) => handoff.title);
      assert.deepEqual(await list(bob, { role: "to_me" }), titles);
      assert.deepEqual(await list(bob, { role: "from_me" }), ["back to alice"]);
      assert.deepEqual(await list(bob), [...titles, "back to alice"]);
      assert.deepEqual(await list(bob, { order: "newest", limit: 2 }), ["back to alice", "five"]);
      assert.deepEqual(await list(alice, { role: "to_me", status: "accepted" }), ["back to alice"]);
      assert.deepEqual(await list(alice, { role: "from_me", status: "accepted" }), []);
      const pages: string[][] = [];
      let cursor = "";
      do {
        const page = await client.listHandoffs({ principal: bob, role: "to_me", limit: 2, cursor });
        pages.push(page.handoffs.map((handoff) => handoff.title));
        cursor = page.nextCursor;
      } while (cursor !== "");
      assert.deepEqual(pages, [["one", "two"], ["three", "four"], ["five"]]);
      const first = await client.listHandoffs({ principal: bob, limit: 1 });
      await expectError(
        client.listHandoffs({ principal: bob, order: "newest", cursor: first.nextCursor }),
        "INVALID_ARGUMENT",
        /other order/,
      );
    });

    test("a namespace handoff reaches whoever the creator shared the namespace with, and nobody else", async () => {
      const { client } = context;
      const { a1, a2, b1 } = principalTrio("handoffs-ns");
      const a3 = principal(a1.tenant!, "a3");
      const handoff = await create(client, a1, { kind: "namespace", name: "project-x" }, "Pick up the release");
      const missing = randomId();
      await expectIndistinguishable(
        client.getHandoff({ principal: a2, id: handoff.id }),
        handoff.id,
        client.getHandoff({ principal: a2, id: missing }),
        missing,
        "before the share",
      );
      await client.share({
        principal: a1,
        threadId: "project-x",
        grantees: [{ kind: storeV1.GranteeKind.SUBJECT, name: "a2" }],
        permission: storeV1.Permission.READ,
      });
      assert.deepEqual(
        (await client.listHandoffs({ principal: a2, role: "to_me" })).handoffs.map((h) => h.id),
        [handoff.id],
      );
      // a2's grant on a thread of that name reaches a2's own things, not a1's handoff: only the creator's grants count.
      await client.share({
        principal: a2,
        threadId: "project-x",
        grantees: [{ kind: storeV1.GranteeKind.SUBJECT, name: "a3" }],
        permission: storeV1.Permission.WRITE,
      });
      assert.deepEqual((await client.listHandoffs({ principal: a3 })).handoffs, []);
      assert.deepEqual((await client.listHandoffs({ principal: b1 })).handoffs, []);
      assert.equal((await client.acceptHandoff({ principal: a2, id: handoff.id })).handoff!.holder, "a2");
    });

    test("an idempotency key replays the first creation's answer and refuses other arguments", async () => {
      const { client, db } = context;
      const tenant = newTenant("handoffs-idem");
      const alice = principal(tenant, "alice");
      const idempotency = { key: "handoff-1", fingerprint: "f1" };
      const first = await create(client, alice, to("bob"), "once", { idempotency });
      const before = await handoffFootprint(db, tenant);
      assert.deepEqual(await create(client, alice, to("bob"), "once", { idempotency }), first);
      assert.deepEqual(await handoffFootprint(db, tenant), before);
      await expectError(
        client.createHandoff({
          principal: alice,
          recipient: to("bob"),
          title: "other",
          summary: "s",
          idempotency: { key: "handoff-1", fingerprint: "f2" },
        }),
        "INVALID_ARGUMENT",
        /already used with different arguments/,
      );
    });

    test("planted neighbours: a principal of the tenant, its admin and one of another tenant can neither read, list, accept, complete, cancel nor infer a handoff", async () => {
      const { client, db } = context;
      const { tenantA, a1, a2, b1 } = principalTrio("handoffs", { groups: ["staff"] });
      const bob = principal(tenantA, "bob");
      const secret = await create(client, a1, to("bob"), "Acquisition due diligence", { summary: "confidential" });
      const accepted = await create(client, a1, to("bob"), "Accepted one");
      await client.acceptHandoff({ principal: bob, id: accepted.id });
      const footprint = await handoffFootprint(db, tenantA);
      const missing = randomId();
      for (const [label, caller] of [
        ["same tenant", a2],
        ["tenant admin", admin(tenantA)],
        ["other tenant", b1],
        ["other tenant's admin", admin(b1.tenant!)],
      ] as const) {
        for (const target of [secret, accepted]) {
          const probe = async (call: (id: string) => Promise<unknown>, what: string) =>
            expectIndistinguishable(call(target.id), target.id, call(missing), missing, `${label}: ${what}`);
          await probe((id) => client.getHandoff({ principal: caller, id }), "get");
          await probe((id) => client.acceptHandoff({ principal: caller, id }), "accept");
          await probe(
            (id) => client.acceptHandoff({ principal: caller, id, expectedVersion: 1 }),
            "accept with a version",
          );
          await probe((id) => client.completeHandoff({ principal: caller, id, outcome: "done" }), "complete");
          await probe((id) => client.cancelHandoff({ principal: caller, id }), "cancel");
        }
        for (const filter of [{}, { role: "to_me" }, { role: "from_me" }, { status: "open" }, { status: "accepted" }])
          assert.deepEqual(
            (await client.listHandoffs({ principal: caller, ...filter })).handoffs,
            [],
            `${label}: list ${JSON.stringify(filter)}`,
          );
      }
      assert.deepEqual(await handoffFootprint(db, tenantA), footprint, "nothing changed");
    });
  });
}
