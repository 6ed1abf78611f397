/** Who sees a session log over the store's SessionsService: listings, namespace grants and planted neighbours. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  expectError,
  expectIndistinguishable,
  newTenant,
  principal,
  principalTrio,
  randomId,
  type PrincipalInit,
  type StoreSuiteContext,
} from "./store-fixtures.js";
import { admin, event, readAll, sessionFootprint, share, start } from "./store-sessions-fixtures.js";

export function defineSessionAccessTests(context: StoreSuiteContext): void {
  describe("who sees a session log", () => {
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
      const byAdmin = await client.appendSessionEvents({
        principal: admin(tenantA),
        sessionId: open.id,
        events: [event("note", "reviewed")],
      });
      assert.deepEqual(
        [byAdmin.events[0]?.seq, byAdmin.session?.owner],
        [2, "a1"],
        "and may append to it, as it writes memories",
      );
    });
  });
}
