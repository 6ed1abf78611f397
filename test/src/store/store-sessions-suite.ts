/** Session logs over the store's SessionsService: numbering, exactly-once events, concurrent appends, reads, ending and bad input. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { expectError, newTenant, principal, type StoreSuiteContext } from "./store-fixtures.js";
import { admin, event, readAll, sessionFootprint, share, start, type NewEvent } from "./store-sessions-fixtures.js";

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

    test("a page of large payloads stops at 1,000,000 characters and the next page continues after it", async () => {
      const { client } = context;
      const alice = principal(newTenant("sessions-large"), "alice");
      const session = await start(client, alice);
      const large = (n: number) => event("output", `${n}`.padEnd(59_990, "x"));
      for (const from of [0, 10])
        await client.appendSessionEvents({
          principal: alice,
          sessionId: session.id,
          events: Array.from({ length: 10 }, (_, index) => large(from + index)),
        });
      const first = await client.readSessionEvents({ principal: alice, sessionId: session.id, limit: 500 });
      assert.deepEqual(
        [first.events.length, first.nextAfterSeq],
        [16, 16],
        "16 payloads of 59,992 characters fit in 1,000,000; the 17th does not",
      );
      const rest = await client.readSessionEvents({ principal: alice, sessionId: session.id, afterSeq: 16 });
      assert.deepEqual([rest.events.map((e) => e.seq), rest.nextAfterSeq], [[17, 18, 19, 20], 0]);
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
  });
}
