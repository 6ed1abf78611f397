import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { callOk, rpcError } from "../support/mcp.js";
import { hubBackends, startKeyedHub, type KeyedHub } from "../support/keyed-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";
import { scrapeMetrics } from "../support/prometheus.js";

/**
 * Resource subscriptions over HTTP, on PGlite and a PostgreSQL server: a
 * 2025 session subscribes with resources/subscribe and hears
 * notifications/resources/updated on its GET /mcp stream; a 2026-07-28
 * client names its URIs in subscriptions/listen. Either way a caller hears
 * of a change only while it may read the resource (and once when it stops),
 * never of anything hidden from it.
 *
 * "Nothing was sent" is shown without sleeping: the write that must stay
 * silent is followed by one that must be heard, and the next notification
 * must be the second one's.
 */

/** The notifications a GET /mcp stream delivers, one at a time, in order. */
interface SessionStream {
  next(): Promise<{ method: string; params: { uri: string } }>;
  close(): void;
}

/** Opens a session's GET /mcp stream as a raw client would; resolves once the server has its watch in place. */
async function openSessionStream(url: string, key: string, sessionId: string): Promise<SessionStream> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${key}`, accept: "text/event-stream", "mcp-session-id": sessionId },
    signal: abort.signal,
  });
  assert.equal(response.status, 200, await (response.status === 200 ? "" : response.text()));
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame
            .split("\n")
            .filter((line) => line.startsWith("data: "))
            .map((line) => line.slice(6))
            .join("\n");
          if (data !== "") return JSON.parse(data) as { method: string; params: { uri: string } };
          continue;
        }
        const read = await reader.read();
        if (read.done) throw new Error("the notification stream ended");
        buffer += read.value;
      }
    },
    close: () => abort.abort(),
  };
}

/** A queue of the URIs a client's notification handler is given. */
function updatesOf(register: (handler: (uri: string) => void) => void) {
  const waiting: ((uri: string) => void)[] = [];
  const arrived: string[] = [];
  register((uri) => {
    const taker = waiting.shift();
    if (taker === undefined) arrived.push(uri);
    else taker(uri);
  });
  return {
    next: () =>
      arrived.length > 0
        ? Promise.resolve(arrived.shift()!)
        : new Promise<string>((resolve) => {
            waiting.push(resolve);
          }),
  };
}

const sessionIdOf = (client: Client) => (client.transport as StreamableHTTPClientTransport).sessionId!;
const entryUri = (id: string) => `context-hub://entries/${id}`;

/** Polls /metrics until `kind` streams are open on the gateway (the SDK opens its GET stream in the background). */
async function untilStreamsOpen(url: string, kind: string, count: number): Promise<void> {
  for (;;) {
    const scrape = await scrapeMetrics(new URL("/metrics", url));
    const open = scrape.samples.find(
      (sample) => sample.name === "contexthub_mcp_notification_streams" && sample.labels.kind === kind,
    );
    if ((open?.value ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const backend of hubBackends) {
  describe(`resource subscriptions (${backend.name})`, () => {
    const clients: Record<string, Client> = {};
    let running: KeyedHub;
    let keys: ReturnType<typeof writeKeysFile>;
    const store = async (caller: string, args: Record<string, unknown>) =>
      (
        await callOk<{ context_id: string }>(clients[caller]!, "store_context", {
          thread_id: "watched",
          source: "user",
          ...args,
        })
      ).context_id;
    const update = (caller: string, id: string, text: string) =>
      callOk(clients[caller]!, "update_context", { context_id: id, text });

    before(async () => {
      keys = writeKeysFile([
        { name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: readWrite },
        { name: "bob", tenant: "acme", subject: "bob", groups: [], scopes: readWrite },
        { name: "globexAlice", tenant: "globex", subject: "alice", groups: [], scopes: readWrite },
      ]);
      running = await startKeyedHub(backend, keys, clients);
    });
    after(async () => {
      await running?.close();
      keys?.dispose();
    });

    test("a 2025 session is issued an id and declares resource subscriptions", () => {
      assert.match(sessionIdOf(clients.alice!), /^[0-9a-f]{32}$/);
      assert.notEqual(sessionIdOf(clients.alice!), sessionIdOf(clients.bob!));
      assert.deepEqual(clients.alice!.getServerCapabilities()?.resources, { listChanged: false, subscribe: true });
    });

    test("a subscribed entry's change reaches its session's stream; unsubscribed, it does not", async () => {
      const plan = await store("alice", { text: "Plan, first draft." });
      const other = await store("alice", { text: "Another note." });
      const stream = await openSessionStream(running.hub.url, keys.principals.alice!.key, sessionIdOf(clients.alice!));
      try {
        assert.deepEqual(await clients.alice!.subscribeResource({ uri: entryUri(plan) }), {});
        await update("alice", plan, "Plan, second draft.");
        assert.deepEqual(await stream.next(), {
          jsonrpc: "2.0",
          method: "notifications/resources/updated",
          params: { uri: entryUri(plan) },
        });
        assert.deepEqual(await clients.alice!.unsubscribeResource({ uri: entryUri(plan) }), {});
        await clients.alice!.subscribeResource({ uri: entryUri(other) });
        await update("alice", plan, "Plan, third draft.");
        await update("alice", other, "Another note, edited.");
        assert.equal((await stream.next()).params.uri, entryUri(other));
      } finally {
        stream.close();
      }
    });

    test("the SDK's own session stream delivers to the client's notification handler", async () => {
      const notes = await store("alice", { text: "Notes the client watches." });
      const updates = updatesOf((handler) =>
        clients.alice!.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) =>
          handler(notification.params.uri),
        ),
      );
      await untilStreamsOpen(running.hub.url, "session", Object.keys(clients).length);
      await clients.alice!.subscribeResource({ uri: entryUri(notes) });
      await update("alice", notes, "Notes the client watches, edited.");
      assert.equal(await updates.next(), entryUri(notes));
    });

    test("an entry hidden from the subscriber stays silent until shared, and goes silent after one last update", async () => {
      const secret = await store("bob", { text: "Bob's private plan." });
      const beacon = await store("alice", { text: "Alice's beacon." });
      const stream = await openSessionStream(running.hub.url, keys.principals.alice!.key, sessionIdOf(clients.alice!));
      try {
        // alice subscribes to an id she cannot read: accepted like any URI, and silent.
        await clients.alice!.subscribeResource({ uri: entryUri(secret) });
        await clients.alice!.subscribeResource({ uri: entryUri(beacon) });
        await update("bob", secret, "Bob's private plan, revised.");
        await update("alice", beacon, "Beacon 1.");
        assert.equal((await stream.next()).params.uri, entryUri(beacon));

        await callOk(clients.bob!, "share_context", { context_ids: [secret], subjects: ["alice"], permission: "read" });
        assert.equal((await stream.next()).params.uri, entryUri(secret), "sharing makes it readable: a change");
        await update("bob", secret, "Bob's plan, now shared.");
        assert.equal((await stream.next()).params.uri, entryUri(secret));

        await callOk(clients.bob!, "unshare_context", { context_ids: [secret], subjects: ["alice"] });
        assert.equal((await stream.next()).params.uri, entryUri(secret), "no longer readable: one last change");
        await update("bob", secret, "Bob's plan, private again.");
        await update("alice", beacon, "Beacon 2.");
        assert.equal((await stream.next()).params.uri, entryUri(beacon));
      } finally {
        stream.close();
      }
    });

    test("another principal's session id opens nothing of this session's", async () => {
      const mine = await store("alice", { text: "Alice's watched note." });
      const bobsBeacon = await store("bob", { text: "Bob's beacon." });
      await clients.alice!.subscribeResource({ uri: entryUri(mine) });
      // bob presents alice's session id: he gets a stream of his own subscriptions under that id, not hers.
      const stolen = await openSessionStream(running.hub.url, keys.principals.bob!.key, sessionIdOf(clients.alice!));
      try {
        await update("alice", mine, "Alice's watched note, edited.");
        // The stolen id is a session of bob's own, with no subscriptions: alice's write does not reach it. Subscribed
        // to bob's beacon under that id, it hears the beacon's write, which comes first.
        const raw = await fetch(running.hub.url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${keys.principals.bob!.key}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-06-18",
            "mcp-session-id": sessionIdOf(clients.alice!),
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "resources/subscribe",
            params: { uri: entryUri(bobsBeacon) },
          }),
        });
        assert.equal(raw.status, 200);
        await update("bob", bobsBeacon, "Bob's beacon, edited again.");
        assert.equal((await stolen.next()).params.uri, entryUri(bobsBeacon));
      } finally {
        stolen.close();
      }
    });

    test("a published URI changes when its target does, when published and when unpublished", async () => {
      const report = await store("alice", { text: "Report for {{team}}." });
      const stream = await openSessionStream(running.hub.url, keys.principals.alice!.key, sessionIdOf(clients.alice!));
      try {
        await clients.alice!.subscribeResource({ uri: "reports://weekly" });
        await callOk(clients.alice!, "publish_resource", { uri: "reports://weekly", id: report });
        assert.equal((await stream.next()).params.uri, "reports://weekly");
        await update("alice", report, "Report for {{team}}, revised.");
        assert.equal((await stream.next()).params.uri, "reports://weekly");
        // bob publishing the same URI for his own entry is his alone: alice hears nothing of it.
        const bobs = await store("bob", { text: "Bob's report." });
        await callOk(clients.bob!, "publish_resource", { uri: "reports://weekly", id: bobs });
        await update("bob", bobs, "Bob's report, revised.");
        await callOk(clients.alice!, "unpublish_resource", { uri: "reports://weekly" });
        assert.equal((await stream.next()).params.uri, "reports://weekly");
      } finally {
        stream.close();
      }
    });

    test("GET without a session id or without accepting an event stream is refused, and DELETE is not allowed", async () => {
      const key = keys.principals.alice!.key;
      const noSession = await fetch(running.hub.url, {
        headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" },
      });
      assert.equal(noSession.status, 400);
      assert.match(((await noSession.json()) as { error: { message: string } }).error.message, /Mcp-Session-Id/);
      const notSse = await fetch(running.hub.url, {
        headers: { authorization: `Bearer ${key}`, accept: "application/json", "mcp-session-id": "abc" },
      });
      assert.equal(notSse.status, 406);
      const ended = await fetch(running.hub.url, {
        method: "DELETE",
        headers: { authorization: `Bearer ${key}`, "mcp-session-id": sessionIdOf(clients.alice!) },
      });
      assert.equal(ended.status, 405);
      assert.equal(ended.headers.get("allow"), "GET, POST");
      const anonymous = await fetch(running.hub.url, {
        headers: { accept: "text/event-stream", "mcp-session-id": "abc" },
      });
      assert.equal(anonymous.status, 401);
    });

    test("resources/subscribe without the session id, or with a URI that is not one, is a clear -32602", async () => {
      const post = async (headers: Record<string, string>, uri: string) => {
        const response = await fetch(running.hub.url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${keys.principals.alice!.key}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-06-18",
            ...headers,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "resources/subscribe", params: { uri } }),
        });
        return ((await response.json()) as { error?: { code: number; message: string } }).error;
      };
      const noSession = await post({}, "context-hub://entries/x");
      assert.equal(noSession?.code, -32602);
      assert.match(noSession!.message, /Mcp-Session-Id/);
      const notUri = await rpcError(clients.alice!.subscribeResource({ uri: "not a uri" }));
      assert.equal(notUri.code, -32602);
    });

    test("a 2026-07-28 listen hears the URIs it names, and nothing hidden from its caller", async () => {
      const mine = await store("alice", { text: "Watched by a listen stream." });
      const secret = await store("bob", { text: "Bob's secret, watched by alice." });
      const modern = new ModernClient(
        { name: "context-hub-tests", version: "0.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await modern.connect(
        new ModernTransport(new URL(running.hub.url), {
          requestInit: { headers: { authorization: `Bearer ${keys.principals.alice!.key}` } },
        }),
      );
      try {
        assert.deepEqual(modern.getServerCapabilities()?.resources, { listChanged: false, subscribe: true });
        const updates = updatesOf((handler) =>
          modern.setNotificationHandler("notifications/resources/updated", (notification) =>
            handler(notification.params.uri),
          ),
        );
        const subscription = await modern.listen({
          resourceSubscriptions: [entryUri(secret), entryUri(mine)],
          resourcesListChanged: true,
        });
        try {
          assert.deepEqual(subscription.honoredFilter, { resourceSubscriptions: [entryUri(secret), entryUri(mine)] });
          await update("bob", secret, "Bob's secret, revised.");
          await update("alice", mine, "Watched by a listen stream, edited.");
          assert.equal(await updates.next(), entryUri(mine));
        } finally {
          await subscription.close();
        }
        assert.equal(await subscription.closed, "local");
      } finally {
        await modern.close();
      }
    });
  });
}
