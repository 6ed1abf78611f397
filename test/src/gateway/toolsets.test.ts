import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import type { AllInOne } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient, textOf } from "../support/mcp.js";
import { readWrite, writeKeysFile } from "../support/principals.js";
import { startMemoryHub } from "../support/memory-hub.js";
import { startGatewayOn, type TestGateway } from "./gateways.js";

/**
 * Toolsets over HTTP, on both protocol generations: the operator offers
 * core, search, workflow and admin (CONTEXT_HUB_TOOLSETS), and each client
 * narrows them per connection with `?toolsets=` or X-Context-Hub-Toolsets.
 */

const offered = "core,search,workflow,admin";
const coreTools = [
  "store_context",
  "get_context_by_ids",
  "search_context",
  "hybrid_search_context",
  "list_threads",
  "whoami",
];

/** A v2 SDK client pinned to revision 2026-07-28 (no handshake). */
async function connectModern(url: string, headers: Record<string, string>): Promise<ModernClient> {
  const client = new ModernClient(
    { name: "context-hub-tests-v2", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new ModernTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** POSTs a tools/list by hand (2025 shape unless `modern`), for the refusals the SDK clients only see as thrown errors. */
async function postList(
  url: string,
  headers: Record<string, string>,
  modern = false,
): Promise<{ status: number; error: { code: number; message: string } | undefined; tools: string[] }> {
  const params = modern
    ? {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      }
    : {};
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(modern ? { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params }),
  });
  const body = (await response.json()) as {
    error?: { code: number; message: string };
    result?: { tools: { name: string }[] };
  };
  return { status: response.status, error: body.error, tools: body.result?.tools.map((tool) => tool.name) ?? [] };
}

const namesOf = async (client: Client | ModernClient) => (await client.listTools()).tools.map((tool) => tool.name);

describe("toolsets: the operator's default, narrowed per connection on both protocol generations", () => {
  let hub: AllInOne;
  let gateway: TestGateway;
  let alice: Record<string, string>;
  let reader: Record<string, string>;
  const open: { close(): Promise<void> }[] = [];
  let keys: ReturnType<typeof writeKeysFile> | undefined;

  before(async () => {
    keys = writeKeysFile([
      { name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: [...readWrite, "context:admin"] },
      { name: "reader", tenant: "acme", subject: "rita", groups: [], scopes: ["context:read"] },
    ]);
    alice = { authorization: `Bearer ${keys.principals.alice!.key}` };
    reader = { authorization: `Bearer ${keys.principals.reader!.key}` };
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none" });
    gateway = await startGatewayOn(hub, {
      CONTEXT_HUB_AUTH: "api-key",
      CONTEXT_HUB_API_KEYS_FILE: keys.path,
      CONTEXT_HUB_TOOLSETS: offered,
    });
  });
  after(async () => {
    for (const client of open) await client.close();
    await gateway?.close();
    await hub?.close();
    keys?.dispose();
  });

  const legacy = async (query: string, headers: Record<string, string>) => {
    const client = await connectMcpClient(`${gateway.url}${query}`, headers);
    open.push(client);
    return client;
  };
  const modern = async (query: string, headers: Record<string, string>) => {
    const client = await connectModern(`${gateway.url}${query}`, headers);
    open.push(client);
    return client;
  };

  test("without a choice a client gets the operator's toolsets: library, history and review tools are not there", async () => {
    for (const client of [await legacy("", alice), await modern("", alice)]) {
      const names = await namesOf(client);
      for (const name of [...coreTools, "put_memory", "fts_search_context", "get_audit_log"])
        assert.ok(names.includes(name), name);
      for (const name of ["delete_context", "get_context_history", "review_context", "search", "fetch"])
        assert.ok(!names.includes(name), name);
    }
    const removed = await callTool(await legacy("", alice), "delete_context", { thread_id: "t" });
    assert.equal(removed.isError, true);
    assert.match(textOf(removed), /delete_context not found/);
  });

  test("?toolsets=core lists exactly the core tools, in registry order, on both generations; others are unknown", async () => {
    for (const client of [await legacy("?toolsets=core", alice), await modern("?toolsets=core", alice)]) {
      assert.deepEqual(await namesOf(client), coreTools);
    }
    const client = await legacy("?toolsets=core", alice);
    const stored = await callOk<{ context_id: string }>(client, "store_context", {
      thread_id: "toolsets",
      source: "agent",
      text: "The core toolset stores and finds entries.",
    });
    assert.match(stored.context_id, /\S/);
    const outside = await callTool(client, "put_memory", { key: "k", value: "v" });
    assert.equal(outside.isError, true);
    assert.match(textOf(outside), /put_memory not found/);
    const modernOutside = await modern("?toolsets=core", alice);
    const refused = await modernOutside.callTool({ name: "put_memory", arguments: { key: "k", value: "v" } }).then(
      (result) => JSON.stringify(result),
      (error: Error) => error.message,
    );
    assert.match(refused, /put_memory not found/);
  });

  test("the built-in instructions name only tools the connection offers, on both generations", async () => {
    for (const client of [await legacy("?toolsets=workflow", alice), await modern("?toolsets=workflow", alice)]) {
      const instructions = client.getInstructions() ?? "";
      assert.match(instructions, /put_memory/);
      assert.match(instructions, /start_here/);
      assert.match(instructions, /not instructions to you/);
      for (const absent of ["search_context", "store_context", "get_context_by_ids"])
        assert.doesNotMatch(instructions, new RegExp(`\\b${absent}\\b`), absent);
    }
    for (const client of [await legacy("?toolsets=core", alice), await modern("?toolsets=core", alice)]) {
      const instructions = client.getInstructions() ?? "";
      for (const present of ["search_context", "store_context", "get_context_by_ids", "whoami"])
        assert.match(instructions, new RegExp(`\\b${present}\\b`), present);
      assert.doesNotMatch(instructions, /put_memory|list_handoffs|start_here/);
    }
    // A reader lacks store_context whatever its toolsets, so it is never told to store.
    assert.doesNotMatch((await legacy("?toolsets=core", reader)).getInstructions() ?? "", /store_context/);
  });

  test("the header narrows as the parameter does, and with both a connection gets the toolsets they share", async () => {
    const workflow = await namesOf(await legacy("", { ...alice, "x-context-hub-toolsets": "workflow" }));
    assert.ok(workflow.includes("put_memory") && workflow.includes("append_session_events"));
    assert.ok(!workflow.includes("store_context"), "store_context is core, not workflow");
    const both = await namesOf(
      await modern("?toolsets=core,admin", { ...alice, "x-context-hub-toolsets": "admin, workflow" }),
    );
    assert.deepEqual([...both].sort(), ["get_audit_log", "get_statistics", "whoami"]);
  });

  test("the caller's scopes still narrow the list, and a write tool outside the toolsets is unknown, not a scope refusal", async () => {
    const names = await namesOf(await legacy("?toolsets=workflow", reader));
    assert.ok(names.includes("get_memory") && names.includes("read_session_events"));
    assert.ok(!names.includes("put_memory"), "put_memory needs context:write");
    const outside = await callTool(await legacy("?toolsets=search", reader), "put_memory", { key: "k", value: "v" });
    assert.equal(outside.isError, true);
    assert.match(textOf(outside), /put_memory not found/);
  });

  test("an unknown toolset, or one the operator does not offer, is a 400 naming the toolsets, on both generations", async () => {
    for (const modernShape of [false, true]) {
      const unknown = await postList(`${gateway.url}?toolsets=core,memry`, alice, modernShape);
      assert.equal(unknown.status, 400);
      assert.equal(unknown.error?.code, -32000);
      assert.match(
        unknown.error?.message ?? "",
        /^Bad Request: the toolsets parameter: unknown toolset memry \(toolsets: all, core, search, library, history, workflow, review, admin, connector\)$/,
      );
      const withheld = await postList(gateway.url, { ...alice, "x-context-hub-toolsets": "review" }, modernShape);
      assert.equal(withheld.status, 400);
      assert.match(
        withheld.error?.message ?? "",
        /^Bad Request: the X-Context-Hub-Toolsets header: toolset review not offered here \(offered: core, search, workflow, admin\)$/,
      );
      const empty = await postList(`${gateway.url}?toolsets=`, alice, modernShape);
      assert.equal(empty.status, 400, "an empty choice is refused, never an empty tool list");
      const disjoint = await postList(
        `${gateway.url}?toolsets=core`,
        { ...alice, "x-context-hub-toolsets": "workflow" },
        modernShape,
      );
      assert.equal(disjoint.status, 400);
      assert.match(disjoint.error?.message ?? "", /name no toolset in common/);
    }
    await assert.rejects(connectMcpClient(`${gateway.url}?toolsets=nope`, alice), /unknown toolset nope/);
    // The v2 client reports the 400 to its probe as a failed negotiation; the raw POSTs above show its message.
    await assert.rejects(connectModern(`${gateway.url}?toolsets=nope`, alice));
  });

  test("`all` from a client means every toolset the operator offers, no more", async () => {
    const all = await postList(`${gateway.url}?toolsets=all`, alice);
    const none = await postList(gateway.url, alice);
    assert.equal(all.status, 200);
    assert.deepEqual(all.tools, none.tools);
    assert.ok(!all.tools.includes("review_context"));
  });
});
