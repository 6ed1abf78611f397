/** Resource subscriptions and watches over the store's ResourceWatchService: what is reported, to whom, and the limits. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { metricsRegistry } from "@context-hub/common";
import { commonV1, storeV1 } from "@context-hub/proto";
import {
  commitText,
  expectError,
  principal,
  principalTrio,
  type PrincipalInit,
  type StoreClient,
  type StoreSuiteContext,
  startTestStore,
} from "./store-fixtures.js";

const subject = (name: string) => ({ kind: storeV1.GranteeKind.SUBJECT, name });
const entryUri = (id: string) => `context-hub://entries/${id}`;
/** How long a message that must come may take; a missing one fails the test instead of hanging it. */
const messageTimeoutMs = 20_000;

/** An open watch: its messages one at a time, and a cancel. */
interface OpenWatch {
  next(): Promise<storeV1.WatchResourcesResponse>;
  /** The next message, which must be the change of `uri`. */
  expectChange(uri: string, label?: string): Promise<void>;
  cancel(): Promise<void>;
}

function openWatch(
  client: StoreClient,
  caller: PrincipalInit,
  watched: { uris: string[] } | { sessionId: string },
): OpenWatch {
  const controller = new AbortController();
  const request =
    "uris" in watched
      ? { principal: caller, watched: { case: "uris" as const, value: { uris: watched.uris } } }
      : { principal: caller, watched: { case: "sessionId" as const, value: watched.sessionId } };
  const iterator = client.watchResources(request, { signal: controller.signal })[Symbol.asyncIterator]();
  const next = async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("no watch message arrived in time")), messageTimeoutMs);
    });
    try {
      const result = await Promise.race([iterator.next(), timeout]);
      assert.ok(result.done !== true, "the watch ended");
      return result.value;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    next,
    async expectChange(uri, label = uri) {
      const message = await next();
      assert.deepEqual({ ready: message.ready, uri: message.uri }, { ready: false, uri }, label);
    },
    async cancel() {
      controller.abort();
      await iterator.return?.(undefined).catch(() => undefined);
    },
  };
}

/** Opens a watch and waits for its `ready`, which must come first. */
async function watchReady(
  client: StoreClient,
  caller: PrincipalInit,
  watched: { uris: string[] } | { sessionId: string },
): Promise<OpenWatch> {
  const watch = openWatch(client, caller, watched);
  const first = await watch.next();
  assert.deepEqual({ ready: first.ready, uri: first.uri }, { ready: true, uri: "" }, "ready comes first");
  return watch;
}

let edits = 0;
/** An edit a reader can observe (a new title). */
async function edit(client: StoreClient, caller: PrincipalInit, id: string): Promise<void> {
  await client.updateEntries({ principal: caller, updates: [{ id, title: `edit ${++edits}` }] });
}

async function watcherGauge(): Promise<number> {
  const metric = metricsRegistry.getSingleMetric("contexthub_resource_watchers");
  assert.ok(metric !== undefined, "the store exports contexthub_resource_watchers");
  return (await metric.get()).values[0]?.value ?? 0;
}

async function subscriptionRows(context: StoreSuiteContext, tenant: string) {
  const { rows } = await context.db.query<{ subject: string; session_id: string; uri: string }>(
    "SELECT subject, session_id, uri FROM resource_subscriptions WHERE tenant = $1 ORDER BY subject, session_id, uri",
    [tenant],
  );
  return rows.map((row) => `${row.subject} ${row.session_id} ${row.uri}`);
}

export function defineResourceWatchTests(context: StoreSuiteContext): void {
  describe("resource watches", () => {
    test("subscribe, unsubscribe and end a session: idempotent, and per principal", async () => {
      const { client } = context;
      const { tenantA, a1, a2 } = principalTrio("watch-subscribe");
      const sub = (caller: PrincipalInit, sessionId: string, uri: string) =>
        client.subscribeResource({ principal: caller, sessionId, uri });

      assert.equal((await sub(a1, "s1", "docs://a")).added, true);
      assert.equal((await sub(a1, "s1", "docs://a")).added, false, "subscribing again is a no-op");
      assert.equal((await sub(a1, "s1", "docs://b")).added, true);
      assert.equal(
        (await sub(a2, "s1", "docs://a")).added,
        true,
        "another principal's session of the same id is its own",
      );
      assert.deepEqual(await subscriptionRows(context, tenantA), [
        "a1 s1 docs://a",
        "a1 s1 docs://b",
        "a2 s1 docs://a",
      ]);

      const unsub = (caller: PrincipalInit, uri: string) =>
        client.unsubscribeResource({ principal: caller, sessionId: "s1", uri });
      assert.equal((await unsub(a1, "docs://b")).removed, true);
      assert.equal((await unsub(a1, "docs://b")).removed, false, "removing what is not there is a no-op");
      assert.equal((await unsub(a1, "docs://never")).removed, false);

      assert.deepEqual(await subscriptionRows(context, tenantA), ["a1 s1 docs://a", "a2 s1 docs://a"]);
    });

    test("a session holds at most 100 URIs, and a principal at most 20 sessions: the longest idle one is dropped", async () => {
      const { client } = context;
      const { tenantA, a1, a2 } = principalTrio("watch-limits");
      for (let index = 0; index < 100; index++)
        await client.subscribeResource({ principal: a1, sessionId: "full", uri: `docs://${index}` });
      await expectError(
        client.subscribeResource({ principal: a1, sessionId: "full", uri: "docs://one-more" }),
        "INVALID_ARGUMENT",
        /the session subscribes to 100 URIs, the most one session may \(100\)/,
      );
      assert.equal((await subscriptionRows(context, tenantA)).length, 100, "nothing was added");
      assert.equal(
        (await client.subscribeResource({ principal: a1, sessionId: "full", uri: "docs://0" })).added,
        false,
        "subscribing again to a URI a full session holds is still a no-op",
      );

      // Another principal's sessions: 20 of them, then s0 subscribes again, so s1's latest subscription is the oldest.
      for (let index = 0; index < 20; index++)
        await client.subscribeResource({ principal: a2, sessionId: `s${index}`, uri: "docs://x" });
      await client.subscribeResource({ principal: a2, sessionId: "s0", uri: "docs://y" });
      assert.equal((await client.subscribeResource({ principal: a2, sessionId: "s20", uri: "docs://x" })).added, true);
      const rows = (await subscriptionRows(context, tenantA)).map((row) => row.split(" "));
      const sessions = new Set(rows.filter(([subject]) => subject === "a2").map(([, session]) => session));
      assert.equal(sessions.size, 20);
      assert.equal(rows.filter(([subject]) => subject === "a1").length, 100, "a1's session is not a2's to drop");
      assert.ok(!sessions.has("s1"), "the session idle longest was dropped");
      assert.ok(sessions.has("s0") && sessions.has("s20") && sessions.has("s2"));
    });

    test("invalid requests each fail with their own error and change nothing", async () => {
      const { client } = context;
      const { tenantA, a1 } = principalTrio("watch-invalid");
      await client.subscribeResource({ principal: a1, sessionId: "s", uri: "docs://kept" });
      const before = await subscriptionRows(context, tenantA);
      const sub = (sessionId: string, uri: string) => client.subscribeResource({ principal: a1, sessionId, uri });
      const cases: [string, () => Promise<unknown>, RegExp][] = [
        ["an empty session id", () => sub("", "docs://a"), /session_id must not be empty/],
        ["a long session id", () => sub("s".repeat(129), "docs://a"), /session_id is 129 characters; the limit is 128/],
        ["a session id with a space", () => sub("a b", "docs://a"), /session_id must be visible ASCII/],
        ["an empty URI", () => sub("s", ""), /uri must not be empty/],
        ["a relative URI", () => sub("s", "docs/a"), /uri must be an absolute URI/],
        ["a scheme alone", () => sub("s", "docs:"), /uri must be an absolute URI/],
        ["a long URI", () => sub("s", `docs://${"a".repeat(4_090)}`), /uri is 4097 characters; the limit is 4096/],
        ["a URI with a space", () => sub("s", "docs://a b"), /uri holds a space, a control or a non-ASCII character/],
        [
          "unsubscribe with a bad session id",
          () => client.unsubscribeResource({ principal: a1, sessionId: "", uri: "docs://kept" }),
          /session_id must not be empty/,
        ],
        [
          "unsubscribe with a session id that is not visible ASCII",
          () => client.unsubscribeResource({ principal: a1, sessionId: "\u00e9", uri: "docs://kept" }),
          /session_id must be visible ASCII/,
        ],
      ];
      for (const [label, call, message] of cases)
        await expectError(call(), "INVALID_ARGUMENT", message).catch((error: unknown) => {
          throw new Error(`${label}: ${(error as Error).message}`);
        });
      await expectError(
        client.subscribeResource({ sessionId: "s", uri: "docs://a" }),
        "UNAUTHENTICATED",
        /the call carries no principal/,
      );
      await expectError(
        client.subscribeResource({
          principal: principal(tenantA, "a1", { scopes: [] }),
          sessionId: "s",
          uri: "docs://a",
        }),
        "PERMISSION_DENIED",
        /context:read/,
      );
      assert.deepEqual(await subscriptionRows(context, tenantA), before, "nothing changed");

      const watchFails = async (watched: Parameters<typeof openWatch>[2] | undefined, message: RegExp) => {
        const watch =
          watched === undefined
            ? client.watchResources({ principal: a1 })[Symbol.asyncIterator]()
            : client
                .watchResources(
                  "uris" in watched
                    ? { principal: a1, watched: { case: "uris", value: { uris: watched.uris } } }
                    : { principal: a1, watched: { case: "sessionId", value: watched.sessionId } },
                )
                [Symbol.asyncIterator]();
        await expectError(watch.next(), "INVALID_ARGUMENT", message);
      };
      await watchFails(undefined, /give uris or session_id/);
      await watchFails({ uris: [] }, /uris must name at least one URI/);
      await watchFails(
        { uris: Array.from({ length: 101 }, (_, index) => `docs://${index}`) },
        /uris names 101 URIs; one watch takes at most 100/,
      );
      await watchFails({ uris: ["docs://fine", "nope"] }, /uris\[1\] must be an absolute URI/);
      await watchFails({ sessionId: "" }, /session_id must not be empty/);
      assert.equal(await watcherGauge(), 0, "no refused watch stays open");
    });

    test("a fixed watch: ready first, each change of a watched entry, nothing for others; cancel removes the watcher", async () => {
      const { client, db } = context;
      const { a1 } = principalTrio("watch-fixed");
      const watched = await commitText(client, a1, "t", "Watched entry.");
      const marker = await commitText(client, a1, "t", "Watched as well, to mark where silence ends.");
      const other = await commitText(client, a1, "t", "Unwatched entry.");
      const before = await watcherGauge();
      const watch = await watchReady(client, a1, {
        uris: [
          entryUri(watched.id),
          `${entryUri(watched.id)}/images/0`,
          "context-hub://entries/not-an-id",
          entryUri(marker.id),
        ],
      });
      assert.equal(await watcherGauge(), before + 1);

      await edit(client, a1, watched.id);
      await watch.expectChange(entryUri(watched.id));
      await watch.expectChange(`${entryUri(watched.id)}/images/0`, "every URI naming the entry");
      await edit(client, a1, other.id);
      await commitText(client, a1, "t", "A new entry.");
      // Reads, and bookkeeping no reader sees (search vectors rebuilt, a column set to what it was), are silent.
      await client.getEntries({ principal: a1, ids: [watched.id] });
      await db.query("UPDATE entries SET search_vector = entry_search_vector(text) WHERE id = $1", [watched.id]);
      await db.query("UPDATE entries SET title = title, tags = tags WHERE id = $1", [watched.id]);
      await edit(client, a1, marker.id);
      await watch.expectChange(entryUri(marker.id), "unrelated writes, reads and bookkeeping reported nothing");

      await client.deleteEntries({ principal: a1, ids: [watched.id] });
      await watch.expectChange(entryUri(watched.id), "a delete is a change");
      await watch.expectChange(`${entryUri(watched.id)}/images/0`);

      await watch.cancel();
      for (let waited = 0; (await watcherGauge()) !== before; waited++) {
        assert.ok(waited < 200, "the cancelled watch's watcher is removed");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    });

    test("a session watch follows the session's subscriptions as they change while it is open", async () => {
      const { client } = context;
      const { a1 } = principalTrio("watch-session");
      const first = await commitText(client, a1, "t", "First.");
      const second = await commitText(client, a1, "t", "Second.");
      await client.subscribeResource({ principal: a1, sessionId: "live", uri: entryUri(first.id) });
      const watch = await watchReady(client, a1, { sessionId: "live" });

      await edit(client, a1, first.id);
      await watch.expectChange(entryUri(first.id));
      await edit(client, a1, second.id);
      await client.subscribeResource({ principal: a1, sessionId: "live", uri: entryUri(second.id) });
      await edit(client, a1, second.id);
      await watch.expectChange(entryUri(second.id), "a subscription added while open is honoured for the next write");

      await client.unsubscribeResource({ principal: a1, sessionId: "live", uri: entryUri(first.id) });
      await edit(client, a1, first.id);
      await edit(client, a1, second.id);
      await watch.expectChange(entryUri(second.id), "an unsubscribed URI is silent");

      // Another principal's session of the same id, and the same principal's other session, are not this one.
      const { a2 } = { a2: principal(a1.tenant as string, "a2") };
      await client.subscribeResource({ principal: a2, sessionId: "live", uri: entryUri(first.id) });
      await client.subscribeResource({ principal: a1, sessionId: "other", uri: entryUri(first.id) });
      await edit(client, a1, first.id);
      await edit(client, a1, second.id);
      await watch.expectChange(entryUri(second.id));

      // However late the watch reads a new subscription's state, a write committed after it (here: in the same
      // transaction, announced after it) is reported.
      const third = await commitText(client, a1, "t", "Third.");
      await context.db.transaction(async (tx) => {
        await tx.query(
          "INSERT INTO resource_subscriptions (tenant, subject, session_id, uri, created_at) VALUES ($1, 'a1', 'live', $2, now())",
          [a1.tenant, entryUri(third.id)],
        );
        await tx.query("UPDATE entries SET title = 'changed with the subscription' WHERE id = $1", [third.id]);
      });
      await watch.expectChange(entryUri(third.id), "the write that followed the subscription");
      await edit(client, a1, second.id);
      await watch.expectChange(entryUri(second.id), "once");

      for (const uri of [entryUri(second.id), entryUri(third.id)])
        await client.unsubscribeResource({ principal: a1, sessionId: "live", uri });
      await client.subscribeResource({ principal: a1, sessionId: "live", uri: entryUri(first.id) });
      await edit(client, a1, second.id);
      await edit(client, a1, first.id);
      await watch.expectChange(entryUri(first.id), "after the session let go of every URI and took one again, only it");
      await watch.cancel();
    });

    test("an entry the watcher may not read is silent; sharing, edits while shared, and exactly one change on unshare", async () => {
      const { client } = context;
      const { a1: bob, a2: alice } = principalTrio("watch-access");
      const secret = await commitText(client, bob, "t", "Bob's private note.");
      const own = await commitText(client, alice, "t", "Alice's own note.");
      const watch = await watchReady(client, alice, { uris: [entryUri(secret.id), entryUri(own.id)] });

      await edit(client, bob, secret.id);
      await edit(client, alice, own.id);
      await watch.expectChange(entryUri(own.id), "bob's edits of an entry alice cannot read: nothing");

      await client.share({
        principal: bob,
        entryIds: [secret.id],
        grantees: [subject("a2")],
        permission: storeV1.Permission.READ,
      });
      await watch.expectChange(entryUri(secret.id), "shared with alice");
      await edit(client, alice, own.id);
      await watch.expectChange(entryUri(own.id), "a share is one change");

      await edit(client, bob, secret.id);
      await watch.expectChange(entryUri(secret.id), "an edit alice can read");

      await client.unshare({ principal: bob, entryIds: [secret.id] });
      await watch.expectChange(entryUri(secret.id), "unshared: once");
      await edit(client, bob, secret.id);
      await edit(client, bob, secret.id);
      await edit(client, alice, own.id);
      await watch.expectChange(entryUri(own.id), "exactly one change on unshare, then nothing");

      // Quarantine hides it as well.
      await client.share({
        principal: bob,
        entryIds: [secret.id],
        grantees: [subject("a2")],
        permission: storeV1.Permission.READ,
      });
      await watch.expectChange(entryUri(secret.id));
      await context.db.query("UPDATE entries SET trust_state = 'quarantined' WHERE id = $1", [secret.id]);
      await watch.expectChange(entryUri(secret.id), "quarantined: once");
      // Below the RPCs: an edit through them would screen the entry again and release it.
      await context.db.query("UPDATE entries SET tags = '{changed}' WHERE id = $1", [secret.id]);
      await edit(client, alice, own.id);
      await watch.expectChange(entryUri(own.id), "a quarantined entry is silent");
      await watch.cancel();
    });

    test("thread and collection grants, and collection membership, open and close an entry: once each way", async () => {
      const { client } = context;
      const { a1: bob, a2: alice } = principalTrio("watch-grants");
      const note = await commitText(client, bob, "plans", "Bob's plan.");
      const listed = await commitText(client, bob, "elsewhere", "Bob's listed note.");
      const own = await commitText(client, alice, "t", "Alice's own note.");
      const watch = await watchReady(client, alice, {
        uris: [entryUri(note.id), entryUri(listed.id), entryUri(own.id)],
      });
      const read = { grantees: [subject("a2")], permission: storeV1.Permission.READ };

      await client.share({ principal: bob, threadId: "plans", ...read });
      await watch.expectChange(entryUri(note.id), "a thread grant opens the thread's entries");
      await edit(client, alice, own.id);
      await watch.expectChange(entryUri(own.id), "one change for the grant");
      await client.unshare({ principal: bob, threadId: "plans" });
      await watch.expectChange(entryUri(note.id), "revoked: once");
      await edit(client, bob, note.id);
      await edit(client, alice, own.id);
      await watch.expectChange(entryUri(own.id), "then silent");

      // Shared with nobody yet: a collection grant is what opens it.
      await client.share({
        principal: bob,
        entryIds: [listed.id],
        grantees: [subject("a3")],
        ...{ permission: read.permission },
      });
      const { collection } = await client.createCollection({ principal: bob, name: "reading list", description: "" });
      await client.share({ principal: bob, collectionId: collection!.id, ...read });
      await edit(client, alice, own.id);
      await watch.expectChange(entryUri(own.id), "a grant on an empty collection opens nothing");
      await client.addToCollection({ principal: bob, id: collection!.id, entryIds: [listed.id] });
      await watch.expectChange(entryUri(listed.id), "joining a collection alice may read opens it");
      await client.removeFromCollection({ principal: bob, id: collection!.id, entryIds: [listed.id] });
      await watch.expectChange(entryUri(listed.id), "leaving it closes it: once");
      await edit(client, bob, listed.id);
      await edit(client, alice, own.id);
      await watch.expectChange(entryUri(own.id), "then silent");
      await watch.cancel();
    });

    test("a store shutting down ends its watches with STORE_UNAVAILABLE instead of waiting for them", async () => {
      const { a1 } = principalTrio("watch-shutdown");
      const store = await startTestStore(context.options, context.db);
      try {
        const watch = await watchReady(store.client, a1, { uris: ["docs://anything"] });
        const ended = expectError(watch.next(), "STORE_UNAVAILABLE", /shutting down/);
        const started = Date.now();
        await store.service.close();
        await ended;
        assert.ok(Date.now() - started < 5_000, "the server did not wait out its grace period for the open watch");
      } finally {
        await store.close();
      }
    });

    test("another tenant's activity is never heard", async () => {
      const { client } = context;
      const { a1, b1 } = principalTrio("watch-tenants");
      const mine = await commitText(client, a1, "t", "A tenant's entry.");
      const theirs = await commitText(client, b1, "t", "Another tenant's entry.");
      const control = await commitText(client, b1, "t", "Control.");
      // b1 watches a1's entry by its URI, and a published URI a1 also publishes.
      const watch = await watchReady(client, b1, { uris: [entryUri(mine.id), "docs://same", entryUri(control.id)] });
      await edit(client, a1, mine.id);
      await client.publishResource({ principal: a1, uri: "docs://same", entryId: mine.id });
      await edit(client, a1, mine.id);
      await client.unpublishResource({ principal: a1, uri: "docs://same" });
      await edit(client, b1, control.id);
      await watch.expectChange(entryUri(control.id), "nothing from the other tenant");

      await client.publishResource({ principal: b1, uri: "docs://same", entryId: theirs.id });
      await watch.expectChange("docs://same", "its own publication of the same URI");
      await watch.cancel();
    });

    test("a published URI: publish, edits of its target, unpublish; another principal's publication of it is silent", async () => {
      const { client } = context;
      const { a1, a2 } = principalTrio("watch-published");
      const target = await commitText(client, a1, "t", "The handbook.");
      const shared = await commitText(client, a1, "t", "Readable by the tenant.", {
        visibility: commonV1.Visibility.TENANT,
      });
      const control = await commitText(client, a1, "t", "Control.");
      await client.subscribeResource({ principal: a1, sessionId: "pub", uri: "docs://handbook" });
      await client.subscribeResource({ principal: a1, sessionId: "pub", uri: "docs://pages/intro" });
      await client.subscribeResource({ principal: a1, sessionId: "pub", uri: entryUri(control.id) });
      const watch = await watchReady(client, a1, { sessionId: "pub" });

      await client.publishResource({ principal: a2, uri: "docs://handbook", entryId: shared.id });
      await edit(client, a1, shared.id);
      await edit(client, a1, control.id);
      await watch.expectChange(entryUri(control.id), "another principal's publication of the URI: nothing");

      await client.publishResource({ principal: a1, uri: "docs://handbook", entryId: target.id });
      await watch.expectChange("docs://handbook", "published after subscribing");
      await edit(client, a1, target.id);
      await watch.expectChange("docs://handbook", "an edit of its target");
      await client.publishResource({ principal: a1, uri: "docs://handbook", entryId: shared.id });
      await watch.expectChange("docs://handbook", "moved to another target");

      await client.publishResource({ principal: a1, uri: "docs://pages/{page}", entryId: target.id });
      await watch.expectChange("docs://pages/intro", "a template now resolves it");
      await edit(client, a1, target.id);
      await watch.expectChange("docs://pages/intro", "an edit of the template's target");

      await client.unpublishResource({ principal: a1, uri: "docs://handbook" });
      await watch.expectChange("docs://handbook", "unpublished");
      await edit(client, a1, shared.id);
      await edit(client, a1, control.id);
      await watch.expectChange(entryUri(control.id), "an unpublished URI is silent");
      await watch.cancel();
    });

    test("when changes may have been missed, every URI naming something readable is reported, and nothing else", async () => {
      const { client, db } = context;
      const { a1: alice, a2: bob } = principalTrio("watch-reset");
      const own = await commitText(client, alice, "t", "Alice's note.");
      const secret = await commitText(client, bob, "t", "Bob's private note.");
      await client.publishResource({ principal: alice, uri: "docs://own", entryId: own.id });
      const watch = await watchReady(client, alice, {
        uris: [entryUri(secret.id), entryUri(own.id), "docs://own", "docs://unpublished"],
      });

      // What a bulk write (an import) announces once instead of one change per row.
      await db.query("SELECT pg_notify('context_hub_resource_changes', '{\"k\":\"r\"}')");
      await watch.expectChange(entryUri(own.id), "a readable entry");
      await watch.expectChange("docs://own", "a URI that resolves");
      await edit(client, alice, own.id);
      await watch.expectChange(entryUri(own.id), "nothing for what alice cannot read or what names nothing");
      await watch.expectChange("docs://own");

      if (db.kind === "postgres") {
        // The listening connection fails: once it is back, the same re-check.
        await db.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'context-hub-store-listen'",
        );
        await watch.expectChange(entryUri(own.id), "after the listener reconnected");
        await watch.expectChange("docs://own");
        await edit(client, bob, secret.id);
        await edit(client, alice, own.id);
        await watch.expectChange(entryUri(own.id), "the reconnected listener hears changes");
        await watch.expectChange("docs://own");
      }
      await watch.cancel();
    });
  });
}
