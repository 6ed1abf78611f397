/** Session logs over the store's SessionsService: numbering, exactly-once events, reads, listings, ending, and who may see what. */
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

/** Everything stored for sessions in a tenant: what a refused call must leave unchanged. */
async function sessionFootprint(db: SqlExecutor, tenant: string): Promise<Record<string, unknown>> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT (SELECT count(*)::integer FROM sessions WHERE tenant = $1) AS sessions,
            (SELECT string_agg(status || ':' || last_seq || ':' || summary, '|' ORDER BY id) FROM sessions WHERE tenant = $1) AS states,
            (SELECT count(*)::integer FROM session_events WHERE tenant = $1) AS events,
            (SELECT count(*)::integer FROM audit_log WHERE tenant = $1 AND outcome = 'ok') AS audited,
            (SELECT count(*)::integer FROM idempotency_keys WHERE tenant = $1) AS idempotency_keys`,
    [tenant],
  );
  return rows[0] ?? {};
}

type NewEvent = Omit<MessageInitShape<typeof storeV1.NewSessionEventSchema>, "$typeName">;

const event = (kind: string, payload: unknown, idempotencyKey = ""): NewEvent => ({
  kind,
  payloadJson: JSON.stringify(payload),
  idempotencyKey,
});

async function start(client: StoreClient, caller: PrincipalInit, namespace = "", thread = "") {
  const reply = await client.startSession({ principal: caller, surface: "cli", agent: "coder", namespace, thread });
  assert.ok(reply.session !== undefined);
  return reply.session;
}

async function readAll(client: StoreClient, caller: PrincipalInit, sessionId: string, kinds: string[] = []) {
  const events: storeV1.SessionEvent[] = [];
  let afterSeq = 0;
  do {
    const page = await client.readSessionEvents({ principal: caller, sessionId, afterSeq, kinds, limit: 3 });
    events.push(...page.events);
    afterSeq = page.nextAfterSeq;
  } while (afterSeq !== 0);
  return events;
}

const admin = (tenant: string) =>
  principal(tenant, "root", { scopes: ["context:read", "context:write", "context:admin"] });

function share(client: StoreClient, owner: PrincipalInit, namespace: string, group: string, write: boolean) {
  return client.share({
    principal: owner,
    threadId: namespace,
    grantees: [{ kind: storeV1.GranteeKind.GROUP, name: group }],
    permission: write ? storeV1.Permission.WRITE : storeV1.Permission.READ,
  });
}

export function defineSessionTests(context: StoreSuiteContext): void {
  describe("session logs", () => {
    test("a session logs batches numbered 1, 2, 3, … and reads them back oldest first, by kind and page by page", async () => {
      const { client } = context;
      const tenant = newTenant("sessions");
      const alice = principal(tenant, "alice");
      const session = await start(client, alice, "project-x");
      assert.deepEqual(
        [session.owner, session.namespace, session.thread, session.status, session.lastSeq],
        ["alice", "project-x", "project-x", "open", 0],
      );
      const first = await client.appendSessionEvents({
        principal: alice,
        sessionId: session.id,
        events: [event("note", { text: "read the plan" }), event("tool_call", { tool: "grep", args: ["TODO"] })],
      });
      assert.deepEqual(
        first.events.map((e) => [e.seq, e.kind, e.duplicate]),
        [
          [1, "note", false],
          [2, "tool_call", false],
        ],
      );
      await client.appendSessionEvents({
        principal: alice,
        sessionId: session.id,
        events: [event("note", "plain string payload"), event("decision", { pick: "b" }), event("note", [1, 2])],
      });
      const all = await readAll(client, alice, session.id);
      assert.deepEqual(
        all.map((e) => [e.seq, e.kind, JSON.parse(e.payloadJson), e.writtenBy]),
        [
          [1, "note", { text: "read the plan" }, "alice"],
          [2, "tool_call", { tool: "grep", args: ["TODO"] }, "alice"],
          [3, "note", "plain string payload", "alice"],
          [4, "decision", { pick: "b" }, "alice"],
          [5, "note", [1, 2], "alice"],
        ],
      );
      assert.deepEqual(
        (await readAll(client, alice, session.id, ["note"])).map((e) => e.seq),
        [1, 3, 5],
      );
      const tail = await client.readSessionEvents({ principal: alice, sessionId: session.id, afterSeq: 3 });
      assert.deepEqual([tail.events.map((e) => e.seq), tail.nextAfterSeq, tail.session?.lastSeq], [[4, 5], 0, 5]);
      const audit = await client.getAuditLog({ principal: admin(tenant), filter: { targetId: session.id } });
      assert.deepEqual(
        audit.records.map((record) => record.action),
        ["session.append", "session.append", "session.start"],
        "newest first",
      );
      const [chain] = (await client.verifyAuditLog({ tenant })).tenants;
      assert.equal(chain?.intact, true);
    });

    test("an event sent again with its idempotency key keeps its first number and is stored once; a reused key is refused", async () => {
      const { client, db } = context;
      const tenant = newTenant("sessions-idem");
      const alice = principal(tenant, "alice");
      const session = await start(client, alice);
      const batch = [event("note", { n: 1 }, "k1"), event("note", { n: 2 }), event("note", { n: 3 }, "k3")];
      const first = await client.appendSessionEvents({ principal: alice, sessionId: session.id, events: batch });
      assert.deepEqual(
        first.events.map((e) => e.seq),
        [1, 2, 3],
      );
      const retried = await client.appendSessionEvents({
        principal: alice,
        sessionId: session.id,
        events: [event("note", { n: 3 }, "k3"), event("note", { n: 4 }, "k4"), event("note", { n: 1 }, "k1")],
      });
      assert.deepEqual(
        retried.events.map((e) => [e.seq, e.idempotencyKey, e.duplicate]),
        [
          [3, "k3", true],
          [4, "k4", false],
          [1, "k1", true],
        ],
      );
      assert.equal(retried.session?.lastSeq, 4);
      const before = await sessionFootprint(db, tenant);
      await expectError(
        client.appendSessionEvents({
          principal: alice,
          sessionId: session.id,
          events: [event("note", { n: 5 }, "k5"), event("note", { n: "other" }, "k1")],
        }),
        "INVALID_ARGUMENT",
        /events\[1\]\.idempotency_key "k1" already logged event 1 with a different kind or payload/,
      );
      await expectError(
        client.appendSessionEvents({
          principal: alice,
          sessionId: session.id,
          events: [event("note", 1, "same"), event("note", 2, "same")],
        }),
        "INVALID_ARGUMENT",
        /appears twice in this append/,
      );
      assert.deepEqual(await sessionFootprint(db, tenant), before, "a refused batch stores none of its events");
      const keys = await readAll(client, alice, session.id);
      assert.deepEqual(
        keys.map((e) => `${e.seq}:${e.idempotencyKey}`),
        ["1:k1", "2:", "3:k3", "4:k4"],
      );
    });

    test("16 concurrent appenders to one session get distinct, consecutive numbers, and their concurrent retries add nothing", async () => {
      const { client, db } = context;
      const tenant = newTenant("sessions-race");
      const alice = principal(tenant, "alice");
      const session = await start(client, alice, "race");
      await share(client, alice, "race", "crew", true);
      const writers = Array.from({ length: 16 }, (_, index) =>
        principal(tenant, `agent-${index}`, { groups: ["crew"] }),
      );
      const batchOf = (writer: number) =>
        Array.from({ length: 5 }, (_, index) => event("step", { writer, index }, `w${writer}-e${index}`));
      const append = () =>
        Promise.all(
          writers.map((writer, index) =>
            client.appendSessionEvents({ principal: writer, sessionId: session.id, events: batchOf(index) }),
          ),
        );
      const replies = await append();
      const seqs = replies.flatMap((reply) => reply.events.map((e) => e.seq)).sort((a, b) => a - b);
      assert.deepEqual(
        seqs,
        Array.from({ length: 80 }, (_, index) => index + 1),
        "80 distinct numbers, 1 to 80, no gap",
      );
      for (const reply of replies) {
        const own = reply.events.map((e) => e.seq);
        assert.deepEqual(
          own,
          own.map((_, index) => own[0]! + index),
          "one append's events are consecutive",
        );
      }
      const retries = await append();
      assert.ok(retries.every((reply) => reply.events.every((e) => e.duplicate)));
      assert.deepEqual(
        retries.map((reply) => reply.events.map((e) => e.seq)),
        replies.map((reply) => reply.events.map((e) => e.seq)),
        "every retried event answers with its first number",
      );
      const { rows } = await db.query<{ events: number; max: number; last_seq: number }>(
        `SELECT count(*)::integer AS events, max(e.seq)::integer AS max, s.last_seq FROM session_events e JOIN sessions s ON s.id = e.session_id
         WHERE e.session_id = $1 GROUP BY s.last_seq`,
        [session.id],
      );
      assert.deepEqual(rows[0], { events: 80, max: 80, last_seq: 80 });
      const read = await readAll(client, alice, session.id);
      for (const e of read) {
        const { writer, index } = JSON.parse(e.payloadJson) as { writer: number; index: number };
        assert.equal(e.writtenBy, `agent-${writer}`);
        assert.equal(e.idempotencyKey, `w${writer}-e${index}`);
      }
    });

    test("ending a session keeps its summary; an ended session takes no new events but answers a retried one", async () => {
      const { client, db } = context;
      const tenant = newTenant("sessions-end");
      const alice = principal(tenant, "alice");
      const session = await start(client, alice);
      await client.appendSessionEvents({ principal: alice, sessionId: session.id, events: [event("note", 1, "k")] });
      const ended = (await client.endSession({ principal: alice, id: session.id, summary: "shipped the fix" }))
        .session!;
      assert.deepEqual([ended.status, ended.summary, ended.lastSeq], ["ended", "shipped the fix", 1]);
      assert.ok(ended.endedAt !== undefined);
      const again = (await client.endSession({ principal: alice, id: session.id, summary: "shipped the fix" }))
        .session!;
      assert.deepEqual(again, ended, "ending it again as before is answered as the first end");
      const before = await sessionFootprint(db, tenant);
      await expectError(
        client.endSession({ principal: alice, id: session.id, summary: "something else" }),
        "VERSION_CONFLICT",
        /has ended/,
      );
      await expectError(
        client.appendSessionEvents({ principal: alice, sessionId: session.id, events: [event("note", 2)] }),
        "VERSION_CONFLICT",
        /has ended/,
      );
      const retry = await client.appendSessionEvents({
        principal: alice,
        sessionId: session.id,
        events: [event("note", 1, "k")],
      });
      assert.deepEqual(
        retry.events.map((e) => [e.seq, e.duplicate]),
        [[1, true]],
      );
      assert.deepEqual(await sessionFootprint(db, tenant), before);
    });

    test("bad input gets a clear error and changes nothing", async () => {
      const { client, db } = context;
      const tenant = newTenant("sessions-bad");
      const alice = principal(tenant, "alice");
      const session = await start(client, alice);
      await client.appendSessionEvents({ principal: alice, sessionId: session.id, events: [event("note", 1)] });
      const before = await sessionFootprint(db, tenant);
      const append = (events: NewEvent[]) =>
        client.appendSessionEvents({ principal: alice, sessionId: session.id, events });
      await expectError(append([]), "INVALID_ARGUMENT", /at least one event/);
      await expectError(append([event("Note!", 1)]), "INVALID_ARGUMENT", /events\[0\]\.kind must be a lowercase word/);
      await expectError(
        append([event("note", 1), { kind: "note", payloadJson: "{not json" }]),
        "INVALID_ARGUMENT",
        /events\[1\]\.payload is not valid JSON/,
      );
      await expectError(append([event("note", "x".repeat(64_000))]), "INVALID_ARGUMENT", /at most 64000 characters/);
      await expectError(
        append(Array.from({ length: 101 }, () => event("note", 1))),
        "INVALID_ARGUMENT",
        /at most 100 per append/,
      );
      await expectError(append([event("note", "a\u0000b")]), "INVALID_ARGUMENT", /NUL/);
      await expectError(
        client.startSession({ principal: alice, surface: "", agent: "a" }),
        "INVALID_ARGUMENT",
        /surface must not be empty/,
      );
      await expectError(
        client.startSession({ principal: alice, surface: "cli", agent: "a", namespace: "x".repeat(300) }),
        "INVALID_ARGUMENT",
        /namespace must be 1 to 256 characters/,
      );
      await expectError(
        client.readSessionEvents({ principal: alice, sessionId: session.id, limit: 501 }),
        "INVALID_ARGUMENT",
        /limit must be 1 to 500/,
      );
      await expectError(
        client.readSessionEvents({ principal: alice, sessionId: session.id, kinds: ["Bad Kind"] }),
        "INVALID_ARGUMENT",
        /kinds\[0\] must be a lowercase word/,
      );
      await expectError(
        client.listSessions({ principal: alice, cursor: "nope" }),
        "INVALID_ARGUMENT",
        /cursor is not one list_sessions gave/,
      );
      await expectError(client.listSessions({ principal: alice, role: "to_me" }), "INVALID_ARGUMENT", /role must be/);
      await expectError(
        client.listSessions({ principal: alice, status: "done" }),
        "INVALID_ARGUMENT",
        /status must be/,
      );
      await expectError(
        client.endSession({ principal: alice, id: session.id, summary: "s".repeat(20_001) }),
        "INVALID_ARGUMENT",
        /summary must be at most 20000 characters/,
      );
      await expectError(
        client.appendSessionEvents({
          principal: principal(tenant, "alice", { scopes: ["context:read"] }),
          sessionId: session.id,
          events: [event("note", 1)],
        }),
        "PERMISSION_DENIED",
        /context:write/,
      );
      assert.deepEqual(await sessionFootprint(db, tenant), before);
    });

    test("listings: mine or all I can see, by namespace, thread and status, newest first, page by page", async () => {
      const { client } = context;
      const tenant = newTenant("sessions-list");
      const [alice, bob] = [principal(tenant, "alice"), principal(tenant, "bob", { groups: ["team"] })];
      const a1 = await start(client, alice, "proj", "design");
      const a2 = await start(client, alice, "proj", "build");
      const a3 = await start(client, alice, "private-notes");
      const b1 = await start(client, bob, "proj", "build");
      await client.endSession({ principal: alice, id: a1.id, summary: "" });
      await share(client, alice, "proj", "team", false);
      const list = async (caller: PrincipalInit, request: Record<string, unknown> = {}) =>
        (await client.listSessions({ principal: caller, ...request })).sessions.map((session) => session.id);
      assert.deepEqual(await list(alice), [a3.id, a2.id, a1.id]);
      assert.deepEqual(await list(bob), [b1.id, a2.id, a1.id], "alice's sessions in the shared namespace only");
      assert.deepEqual(await list(bob, { role: "mine" }), [b1.id]);
      assert.deepEqual(await list(bob, { namespace: "proj", thread: "build" }), [b1.id, a2.id]);
      assert.deepEqual(await list(bob, { status: "ended" }), [a1.id]);
      assert.deepEqual(await list(bob, { namespace: "private-notes" }), []);
      const pages: string[][] = [];
      let cursor = "";
      do {
        const page = await client.listSessions({ principal: alice, limit: 2, cursor });
        pages.push(page.sessions.map((session) => session.id));
        cursor = page.nextCursor;
      } while (cursor !== "");
      assert.deepEqual(pages, [[a3.id, a2.id], [a1.id]]);
    });

    test("a read grant on the namespace shows a session but does not let its holder append or end it; a write grant does", async () => {
      const { client, db } = context;
      const tenant = newTenant("sessions-grants");
      const alice = principal(tenant, "alice");
      const [reader, writer] = [
        principal(tenant, "rita", { groups: ["readers"] }),
        principal(tenant, "will", { groups: ["writers"] }),
      ];
      const session = await start(client, alice, "proj");
      await share(client, alice, "proj", "readers", false);
      await share(client, alice, "proj", "writers", true);
      await client.appendSessionEvents({ principal: alice, sessionId: session.id, events: [event("note", 1)] });
      assert.equal((await client.getSession({ principal: reader, id: session.id })).session?.lastSeq, 1);
      assert.equal((await readAll(client, reader, session.id)).length, 1);
      const before = await sessionFootprint(db, tenant);
      await expectError(
        client.appendSessionEvents({ principal: reader, sessionId: session.id, events: [event("note", 2)] }),
        "PERMISSION_DENIED",
        /you may read session .* but not change it/,
      );
      await expectError(
        client.endSession({ principal: reader, id: session.id, summary: "" }),
        "PERMISSION_DENIED",
        /not change it/,
      );
      assert.deepEqual(await sessionFootprint(db, tenant), before, "nothing stored");
      const appended = await client.appendSessionEvents({
        principal: writer,
        sessionId: session.id,
        events: [event("note", 2)],
      });
      assert.equal(appended.events[0]?.seq, 2);
      const denied = await client.getAuditLog({ principal: admin(tenant), filter: { targetId: session.id } });
      assert.ok(
        denied.records.some((record) => record.action === "session.append" && record.outcome === "denied"),
        "a refused append is audited as denied",
      );
    });

    test("a start with an idempotency key replays the first start", async () => {
      const { client, db } = context;
      const tenant = newTenant("sessions-start-idem");
      const alice = principal(tenant, "alice");
      const idempotency = { key: "start-1", fingerprint: "f1" };
      const request = { principal: alice, surface: "cli", agent: "coder", idempotency };
      const first = (await client.startSession(request)).session!;
      const before = await sessionFootprint(db, tenant);
      assert.deepEqual((await client.startSession(request)).session, first);
      assert.deepEqual(await sessionFootprint(db, tenant), before);
    });

    test("planted neighbours: a principal of the tenant and one of another tenant can neither read, list, append to, end nor infer a session", async () => {
      const { client, db } = context;
      const { tenantA, a1, a2, b1 } = principalTrio("sessions", { groups: ["staff"] });
      const open = await start(client, a1, "secret-project");
      await client.appendSessionEvents({ principal: a1, sessionId: open.id, events: [event("note", "confidential")] });
      const ended = await start(client, a1, "secret-project");
      await client.endSession({ principal: a1, id: ended.id, summary: "done" });
      const footprint = await sessionFootprint(db, tenantA);
      const missing = randomId();
      for (const [label, caller] of [
        ["same tenant", a2],
        ["other tenant", b1],
        ["other tenant's admin", admin(b1.tenant!)],
      ] as const) {
        for (const target of [open, ended]) {
          const probe = async (call: (id: string) => Promise<unknown>, what: string) =>
            expectIndistinguishable(call(target.id), target.id, call(missing), missing, `${label}: ${what}`);
          await probe((id) => client.getSession({ principal: caller, id }), "get");
          await probe((id) => client.readSessionEvents({ principal: caller, sessionId: id }), "read");
          await probe(
            (id) => client.appendSessionEvents({ principal: caller, sessionId: id, events: [event("note", 1, "k")] }),
            "append",
          );
          await probe((id) => client.endSession({ principal: caller, id, summary: "" }), "end");
        }
        for (const filter of [{}, { role: "mine" }, { namespace: "secret-project" }, { status: "ended" }])
          assert.deepEqual(
            (await client.listSessions({ principal: caller, ...filter })).sessions,
            [],
            `${label}: list ${JSON.stringify(filter)}`,
          );
      }
      assert.deepEqual(await sessionFootprint(db, tenantA), footprint, "nothing changed");
      assert.equal(
        (await client.getSession({ principal: admin(tenantA), id: open.id })).session?.id,
        open.id,
        "the tenant's admin sees it, as it sees memories",
      );
    });
  });
}
