import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AllInOne } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient, textOf } from "../support/mcp.js";
import { hubBackends, startKeyedHub } from "../support/keyed-hub.js";
import { readWrite, writeKeysFile, type TestPrincipal } from "../support/principals.js";

/**
 * The access model over the real MCP surface, with real API keys: three
 * principals in two tenants (alice and bob in acme, a second "bob" in
 * globex), plus carol in acme outside the eng group. Every foreign attempt is
 * planted against the closest possible match (same thread name, same text)
 * and paired with the owner's positive control.
 */

interface Ack {
  context_id: string;
  deduplicated: boolean;
}
interface Fetched {
  entries: { id: string; text: string; version: number }[];
  missing: string[];
}
interface Listing {
  results: { id: string; owner: string }[];
  count: number;
}

const backends = hubBackends;

const secret = "The launch code for project Falcon is 7-alpha-9; do not share outside the core team.";
const thread = "planning";

/** Replaces every UUID (and id prefix) in a message so messages about two different ids can be compared. */
const withoutIds = (text: string) =>
  text.replace(/[0-9a-f]{8}-?[0-9a-f-]{0,27}/g, "<id>").replace(/Request id: .*/g, "");

for (const backend of backends) {
  describe(`access control over MCP with API keys (${backend.name})`, () => {
    let hub: AllInOne;
    let closeHub: (() => Promise<void>) | undefined;
    let keys: ReturnType<typeof writeKeysFile>;
    const clients: Record<string, Client> = {};
    let principals: Record<string, TestPrincipal>;
    let planted: string;
    const ghost = "01900000-0000-7000-8000-00000000abcd";

    before(async () => {
      keys = writeKeysFile([
        { name: "alice", tenant: "acme", subject: "alice", groups: ["eng"], scopes: readWrite },
        { name: "bob", tenant: "acme", subject: "bob", groups: ["eng"], scopes: readWrite },
        { name: "carol", tenant: "acme", subject: "carol", groups: ["sales"], scopes: readWrite },
        { name: "globexBob", tenant: "globex", subject: "bob", groups: ["eng"], scopes: readWrite },
        { name: "reader", tenant: "acme", subject: "auditor", groups: [], scopes: ["context:read"] },
      ]);
      principals = keys.principals;
      ({ hub, close: closeHub } = await startKeyedHub(backend, keys, clients));

      // The victim's private entry, then the closest possible neighbours in the other scopes.
      planted = (
        await callOk<Ack>(clients.alice!, "store_context", {
          thread_id: thread,
          source: "agent",
          text: secret,
          tags: ["falcon"],
        })
      ).context_id;
      await callOk(clients.bob!, "store_context", {
        thread_id: thread,
        source: "agent",
        text: secret,
        tags: ["falcon"],
      });
      await callOk(clients.globexBob!, "store_context", {
        thread_id: thread,
        source: "agent",
        text: secret,
        tags: ["falcon"],
      });
    });

    after(async () => {
      await closeHub?.();
      keys?.dispose();
    });

    const foreigners = ["bob", "carol", "globexBob"] as const;

    test("no tool runs without a valid credential", async () => {
      const base = hub.url;
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "search_context", arguments: {} },
      });
      const headers = { "content-type": "application/json", accept: "application/json" };
      for (const authorization of [
        undefined,
        "Bearer chk_" + "x".repeat(43),
        "Bearer not-a-key",
        "Basic YWxpY2U6cHc=",
      ]) {
        const response = await fetch(base, {
          method: "POST",
          headers: { ...headers, ...(authorization === undefined ? {} : { authorization }) },
          body,
        });
        assert.equal(response.status, 401, `authorization ${authorization}`);
        assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer /);
        assert.doesNotMatch(await response.text(), /result/);
      }
      await assert.rejects(connectMcpClient(hub.url, { authorization: "Bearer chk_" + "y".repeat(43) }));
    });

    test("by-id fetch: a foreign private entry looks exactly like a nonexistent one", async () => {
      const own = await callOk<Fetched>(clients.alice!, "get_context_by_ids", { context_ids: [planted] });
      assert.equal(own.entries[0]?.text, secret, "positive control: the owner reads it");
      for (const name of foreigners) {
        const foreign = await callOk<Fetched>(clients[name]!, "get_context_by_ids", { context_ids: [planted] });
        const missing = await callOk<Fetched>(clients[name]!, "get_context_by_ids", { context_ids: [ghost] });
        // Same shape, same fields, only the id differs.
        assert.deepEqual(
          JSON.parse(JSON.stringify(foreign).replaceAll(planted, "<id>")),
          JSON.parse(JSON.stringify(missing).replaceAll(ghost, "<id>")),
          name,
        );
        assert.deepEqual(foreign.entries, []);
        assert.deepEqual(foreign.missing, [planted]);
        const prefix = planted.replaceAll("-", "").slice(0, 20);
        const byPrefix = await callOk<Fetched>(clients[name]!, "get_context_by_ids", { context_ids: [prefix] });
        assert.deepEqual(byPrefix.entries, [], `${name} by prefix`);
        assert.deepEqual(byPrefix.missing, [prefix], `${name} by prefix`);
      }
    });

    test("listing, thread list and statistics count only what the caller may see", async () => {
      const own = await callOk<Listing>(clients.alice!, "search_context", { thread_id: thread });
      assert.ok(own.results.some((entry) => entry.id === planted));
      for (const name of foreigners) {
        const listing = await callOk<Listing>(clients[name]!, "search_context", {
          thread_id: thread,
          tags: ["falcon"],
        });
        assert.ok(!listing.results.some((entry) => entry.id === planted), `${name} must not list it`);
        assert.ok(
          listing.results.every((entry) => entry.owner === principals[name]!.subject),
          `${name} sees only its own`,
        );
        const threads = await callOk<{ threads: { thread_id: string; entry_count: number }[] }>(
          clients[name]!,
          "list_threads",
          {},
        );
        const planning = threads.threads.find((entry) => entry.thread_id === thread);
        assert.equal(planning?.entry_count ?? 0, listing.count, `${name} thread count`);
        const stats = await callOk<{ entries: number; owned_entries: number }>(clients[name]!, "get_statistics", {
          thread_id: thread,
        });
        assert.equal(stats.entries, listing.count, `${name} statistics`);
        assert.equal(stats.owned_entries, stats.entries);
      }
      const carolThreads = await callOk<{ threads: unknown[]; total: number }>(clients.carol!, "list_threads", {});
      assert.equal(carolThreads.total, 0, "carol has stored nothing and sees no thread, not even its name");
    });

    test("changing another's entry fails exactly as for a nonexistent one, and changes nothing", async () => {
      for (const name of foreigners) {
        const client = clients[name]!;
        const update = await callTool(client, "update_context", { context_id: planted, text: "overwritten" });
        const updateGhost = await callTool(client, "update_context", { context_id: ghost, text: "overwritten" });
        assert.equal(update.isError, true);
        assert.equal(withoutIds(textOf(update)), withoutIds(textOf(updateGhost)), `${name} update`);
        assert.match(textOf(update), /^ENTRY_NOT_FOUND/);

        const metadataOnly = await callTool(client, "update_context", {
          context_id: planted,
          metadata: { pwned: true },
        });
        assert.equal(
          withoutIds(textOf(metadataOnly)),
          withoutIds(
            textOf(await callTool(client, "update_context", { context_id: ghost, metadata: { pwned: true } })),
          ),
        );

        const deleted = await callOk<{ deleted_count: number; failed: { code: string; message: string }[] }>(
          client,
          "delete_context",
          { context_ids: [planted] },
        );
        const deletedGhost = await callOk<{ deleted_count: number; failed: { code: string; message: string }[] }>(
          client,
          "delete_context",
          { context_ids: [ghost] },
        );
        assert.equal(deleted.deleted_count, 0);
        assert.equal(deleted.failed[0]?.code, deletedGhost.failed[0]?.code);
        assert.equal(withoutIds(deleted.failed[0]?.message ?? ""), withoutIds(deletedGhost.failed[0]?.message ?? ""));

        const batch = await callTool(client, "update_context_batch", {
          updates: [{ context_id: planted, tags: ["x"] }],
          atomic: true,
        });
        assert.equal(
          batch.isError === true || (batch.structuredContent as { failed_count: number }).failed_count === 1,
          true,
        );
        const atomicDelete = await callTool(client, "delete_context_batch", { context_ids: [planted], atomic: true });
        assert.ok(
          atomicDelete.isError === true ||
            (atomicDelete.structuredContent as { deleted_count: number }).deleted_count === 0,
        );

        const share = await callTool(client, "share_context", {
          context_ids: [planted],
          subjects: [principals[name]!.subject],
          permission: "write",
        });
        const shareGhost = await callTool(client, "share_context", {
          context_ids: [ghost],
          subjects: [principals[name]!.subject],
          permission: "write",
        });
        assert.equal(share.isError, true);
        assert.equal(withoutIds(textOf(share)), withoutIds(textOf(shareGhost)), `${name} share`);
      }
      // A thread-wide delete by a foreigner removes only what it may change.
      await callOk(clients.carol!, "store_context", { thread_id: thread, source: "agent", text: "carol's own note" });
      const wiped = await callOk<{ deleted_count: number }>(clients.carol!, "delete_context", { thread_id: thread });
      assert.equal(wiped.deleted_count, 1);
      const still = await callOk<Fetched>(clients.alice!, "get_context_by_ids", { context_ids: [planted] });
      assert.equal(still.entries[0]?.text, secret, "the owner's entry is untouched");
      assert.equal(still.entries[0]?.version, 1, "and unchanged");
    });

    test("identical text in the same thread never folds across principals", async () => {
      const bobs = await callOk<Ack>(clients.bob!, "store_context", {
        thread_id: "fold-check",
        source: "user",
        text: "same words",
      });
      const alices = await callOk<Ack>(clients.alice!, "store_context", {
        thread_id: "fold-check",
        source: "user",
        text: "same words",
      });
      assert.notEqual(alices.context_id, bobs.context_id);
      assert.equal(alices.deduplicated, false);
    });

    test("grants open exactly what they say, across no tenant, and revoking closes them", async () => {
      const note = (
        await callOk<Ack>(clients.alice!, "store_context", {
          thread_id: "grants",
          source: "agent",
          text: "alice's draft for bob",
        })
      ).context_id;
      const shared = await callOk<{ now_shared_ids: string[] }>(clients.alice!, "share_context", {
        context_ids: [note],
        subjects: ["bob"],
        permission: "read",
      });
      assert.deepEqual(shared.now_shared_ids, [note]);

      assert.equal(
        (await callOk<Fetched>(clients.bob!, "get_context_by_ids", { context_ids: [note] })).entries.length,
        1,
        "bob may read",
      );
      assert.deepEqual(
        (await callOk<Fetched>(clients.globexBob!, "get_context_by_ids", { context_ids: [note] })).missing,
        [note],
        "globex's bob may not",
      );
      assert.deepEqual((await callOk<Fetched>(clients.carol!, "get_context_by_ids", { context_ids: [note] })).missing, [
        note,
      ]);
      const readOnlyUpdate = await callTool(clients.bob!, "update_context", { context_id: note, text: "bob was here" });
      assert.match(textOf(readOnlyUpdate), /^PERMISSION_DENIED/, "a read grant gives no write");

      await callOk(clients.alice!, "share_context", { context_ids: [note], subjects: ["bob"], permission: "write" });
      const written = await callOk<{ version: number }>(clients.bob!, "update_context", {
        context_id: note,
        text: "bob was here",
      });
      assert.equal(written.version, 2);
      const visibility = await callTool(clients.bob!, "update_context", { context_id: note, visibility: "tenant" });
      assert.match(textOf(visibility), /^PERMISSION_DENIED/, "only the owner changes visibility");

      const revoked = await callOk<{ revoked_count: number }>(clients.alice!, "unshare_context", {
        context_ids: [note],
        subjects: ["bob"],
      });
      assert.equal(revoked.revoked_count, 2);
      assert.deepEqual(
        (await callOk<Fetched>(clients.bob!, "get_context_by_ids", { context_ids: [note] })).missing,
        [note],
        "revoking closes it",
      );
    });

    test("group thread grants and tenant visibility", async () => {
      const first = (
        await callOk<Ack>(clients.alice!, "store_context", {
          thread_id: "eng-notes",
          source: "agent",
          text: "design review notes",
        })
      ).context_id;
      await callOk(clients.alice!, "share_context", { thread_id: "eng-notes", groups: ["eng"], permission: "read" });
      const later = (
        await callOk<Ack>(clients.alice!, "store_context", {
          thread_id: "eng-notes",
          source: "agent",
          text: "follow-up after the review",
        })
      ).context_id;

      const bobSees = await callOk<Listing>(clients.bob!, "search_context", { thread_id: "eng-notes" });
      assert.deepEqual(
        new Set(bobSees.results.map((entry) => entry.id)),
        new Set([first, later]),
        "eng sees the thread, including later entries",
      );
      assert.equal(
        (await callOk<Listing>(clients.carol!, "search_context", { thread_id: "eng-notes" })).count,
        0,
        "sales does not",
      );
      assert.equal(
        (await callOk<Listing>(clients.globexBob!, "search_context", { thread_id: "eng-notes" })).count,
        0,
        "another tenant's eng does not",
      );

      const announcement = (
        await callOk<Ack>(clients.alice!, "store_context", {
          thread_id: "all-hands",
          source: "user",
          text: "Offsite on Friday",
          visibility: "tenant",
        })
      ).context_id;
      assert.equal(
        (await callOk<Fetched>(clients.carol!, "get_context_by_ids", { context_ids: [announcement] })).entries.length,
        1,
      );
      assert.deepEqual(
        (await callOk<Fetched>(clients.globexBob!, "get_context_by_ids", { context_ids: [announcement] })).missing,
        [announcement],
      );
    });

    test("scopes hide and refuse tools", async () => {
      const { tools } = await clients.reader!.listTools();
      const names = tools.map((tool) => tool.name);
      assert.ok(names.includes("search_context"));
      assert.ok(
        !names.includes("store_context") && !names.includes("delete_context"),
        `read-only key lists ${names.join(", ")}`,
      );
      // Calling a tool outside the credential's scopes is refused before any tool runs (HTTP 403 insufficient_scope).
      await assert.rejects(
        callTool(clients.reader!, "store_context", { thread_id: "x", source: "user", text: "should not land" }),
        /insufficient_scope|needs scope context:write/,
      );
      assert.equal((await callOk<Listing>(clients.reader!, "search_context", { thread_id: "x" })).count, 0);
    });

    test("an idempotency key makes a store exactly-once, per principal", async () => {
      const args = { thread_id: "idem", source: "agent", text: "exactly once", idempotency_key: "k-1" };
      const first = await callOk<Ack>(clients.alice!, "store_context", args);
      const retry = await callOk<Ack>(clients.alice!, "store_context", args);
      assert.equal(retry.context_id, first.context_id);
      const conflict = await callTool(clients.alice!, "store_context", { ...args, text: "something else" });
      assert.match(textOf(conflict), /idempotency_key "k-1" was already used with different arguments/);
      const bobs = await callOk<Ack>(clients.bob!, "store_context", args);
      assert.notEqual(bobs.context_id, first.context_id, "keys are scoped to the principal");
      assert.equal((await callOk<Listing>(clients.alice!, "search_context", { thread_id: "idem" })).count, 1);
    });
  });
}
