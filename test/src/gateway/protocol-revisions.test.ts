import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import type { AllInOne } from "@context-hub/cli";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { readWrite, writeKeysFile } from "../support/principals.js";
import { startMemoryHub } from "../support/memory-hub.js";
import { startGatewayOn, toolRuns, type TestGateway } from "./gateways.js";

/**
 * Both MCP generations on one /mcp: protocol revision 2026-07-28 (no
 * handshake, SDK v2 client) beside the 2025 revisions (SDK 1.x client),
 * through two gateways behind one address that alternates between them, so
 * nothing may depend on which replica answered before.
 */

const modern = "2026-07-28";

/** One POST seen by the balancer: which gateway got it, its routing headers and its JSON-RPC method. */
interface Forwarded {
  upstream: number;
  headers: IncomingHttpHeaders;
  method: string | undefined;
}

/** A round-robin HTTP balancer in front of the gateways, recording every POST it forwards. */
async function startBalancer(
  upstreams: readonly TestGateway[],
): Promise<{ url: string; seen: Forwarded[]; close(): Promise<void> }> {
  const seen: Forwarded[] = [];
  let next = 0;
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      const upstream = next;
      next = (next + 1) % upstreams.length;
      if (incoming.method === "POST") {
        const parsed = JSON.parse(body.toString("utf8")) as { method?: string };
        seen.push({ upstream, headers: incoming.headers, method: parsed.method });
      }
      const target = new URL(upstreams[upstream]!.url);
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: incoming.url,
          method: incoming.method,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on("error", () => outgoing.writeHead(502).end());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A v2 SDK client pinned to 2026-07-28: it probes with server/discover and never sends `initialize`. */
async function connectModern(url: string, key: string): Promise<ModernClient> {
  const client = new ModernClient(
    { name: "context-hub-tests-v2", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: modern } } },
  );
  await client.connect(
    new ModernTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}

interface RawAnswer {
  status: number;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}

/** POSTs one 2026-07-28 request by hand, with the headers given (the envelope claim is added unless `meta` replaces it). */
async function postModern(
  url: string,
  key: string,
  message: Record<string, unknown>,
  headers: Record<string, string>,
  meta?: Record<string, unknown>,
): Promise<RawAnswer> {
  const params = (message.params ?? {}) as Record<string, unknown>;
  const envelope = meta ?? {
    "io.modelcontextprotocol/protocolVersion": modern,
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${key}`,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, ...message, params: { ...params, _meta: envelope } }),
  });
  return { status: response.status, body: (await response.json()) as RawAnswer["body"] };
}

describe("MCP 2026-07-28 and the 2025 revisions on one /mcp, across two gateways", () => {
  let hub: AllInOne;
  let keys: ReturnType<typeof writeKeysFile>;
  let gateways: TestGateway[];
  let balancer: Awaited<ReturnType<typeof startBalancer>>;
  let alice: string;
  let reader: string;
  let bob: string;

  before(async () => {
    keys = writeKeysFile([
      { name: "alice", tenant: "acme", subject: "alice", groups: ["eng"], scopes: readWrite },
      { name: "reader", tenant: "acme", subject: "rita", groups: ["eng"], scopes: ["context:read"] },
      { name: "bob", tenant: "globex", subject: "bob", groups: [], scopes: readWrite },
    ]);
    alice = keys.principals.alice!.key;
    reader = keys.principals.reader!.key;
    bob = keys.principals.bob!.key;
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none" });
    const env = { CONTEXT_HUB_AUTH: "api-key", CONTEXT_HUB_API_KEYS_FILE: keys.path };
    gateways = [await startGatewayOn(hub, env), await startGatewayOn(hub, env)];
    balancer = await startBalancer(gateways);
  });
  after(async () => {
    await balancer?.close();
    for (const gateway of gateways ?? []) await gateway.close();
    await hub?.close();
    keys?.dispose();
  });

  test("a v2 client works without a handshake, each request on the other replica, headers matching the body", async () => {
    const start = balancer.seen.length;
    const client = await connectModern(balancer.url, alice);
    try {
      assert.equal(client.getServerVersion()?.name, "context-hub");
      assert.match(client.getInstructions() ?? "", /shared memory/);
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === "store_context") && tools.some((tool) => tool.name === "whoami"));
      const stored = await client.callTool({
        name: "store_context",
        arguments: { thread_id: "modern", source: "agent", text: "Written over revision 2026-07-28." },
      });
      assert.equal(stored.isError, undefined, JSON.stringify(stored.content));
      const id = (stored.structuredContent as { context_id: string }).context_id;
      const fetched = await client.callTool({ name: "fetch", arguments: { id } });
      assert.equal((fetched.structuredContent as { text: string }).text, "Written over revision 2026-07-28.");
      const whoami = await client.callTool({ name: "whoami", arguments: {} });
      assert.deepEqual(
        [
          (whoami.structuredContent as { tenant: string }).tenant,
          (whoami.structuredContent as { subject: string }).subject,
        ],
        ["acme", "alice"],
      );
    } finally {
      await client.close();
    }
    const posts = balancer.seen.slice(start);
    assert.deepEqual(
      posts.map((post) => post.method),
      ["server/discover", "tools/list", "tools/call", "tools/call", "tools/call"],
      "no initialize, no notifications: every request stands alone",
    );
    for (let index = 1; index < posts.length; index += 1)
      assert.notEqual(
        posts[index]!.upstream,
        posts[index - 1]!.upstream,
        "consecutive requests went to different gateways",
      );
    for (const post of posts) {
      assert.equal(post.headers["mcp-protocol-version"], modern);
      assert.equal(post.headers["mcp-method"], post.method);
    }
    assert.equal(posts[2]!.headers["mcp-name"], "store_context");
  });

  test("a 2025 client (SDK 1.x) beside it is unchanged, sees the same tools, and reads what the v2 client wrote", async () => {
    const v2 = await connectModern(balancer.url, alice);
    const v1 = await connectMcpClient(balancer.url, { authorization: `Bearer ${alice}` });
    try {
      const stored = await v2.callTool({
        name: "store_context",
        arguments: { thread_id: "both", source: "user", text: "Stored by the v2 client." },
      });
      const id = (stored.structuredContent as { context_id: string }).context_id;
      const read = await callOk<{ text: string; metadata: { owner: string } }>(v1, "fetch", { id });
      assert.deepEqual([read.text, read.metadata.owner], ["Stored by the v2 client.", "alice"]);
      const back = await callOk<{ context_id: string }>(v1, "store_context", {
        thread_id: "both",
        source: "agent",
        text: "Stored by the v1 client.",
      });
      const seen = await v2.callTool({ name: "fetch", arguments: { id: back.context_id } });
      assert.equal((seen.structuredContent as { text: string }).text, "Stored by the v1 client.");

      // One tool list, two encodings of the same schemas.
      const strip = (schema: unknown) =>
        JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === "$schema" ? undefined : value))) as unknown;
      const oldTools = new Map((await v1.listTools()).tools.map((tool) => [tool.name, tool]));
      const newTools = (await v2.listTools()).tools;
      assert.deepEqual(newTools.map((tool) => tool.name).sort(), [...oldTools.keys()].sort());
      for (const tool of newTools) {
        const old = oldTools.get(tool.name)!;
        assert.deepEqual(
          strip(tool.inputSchema),
          strip(old.inputSchema),
          `${tool.name}: the same input schema on both revisions`,
        );
        assert.deepEqual(tool.annotations, old.annotations, `${tool.name}: the same annotations`);
        assert.equal(tool.description, old.description);
      }
    } finally {
      await v2.close();
      await v1.close();
    }
  });

  test("a v2 client negotiating on its own picks 2026-07-28; told to stay on 2025 it gets the handshake path", async () => {
    const negotiate = async (mode: "auto" | "legacy") => {
      const start = balancer.seen.length;
      const client = new ModernClient(
        { name: "context-hub-tests-v2", version: "0.0.0" },
        { versionNegotiation: { mode } },
      );
      await client.connect(
        new ModernTransport(new URL(balancer.url), { requestInit: { headers: { authorization: `Bearer ${alice}` } } }),
      );
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((tool) => tool.name === "search_context"));
        return {
          version: client.getNegotiatedProtocolVersion(),
          methods: balancer.seen.slice(start).map((post) => post.method),
        };
      } finally {
        await client.close();
      }
    };
    const auto = await negotiate("auto");
    assert.equal(auto.version, modern);
    assert.ok(!auto.methods.includes("initialize"), auto.methods.join(", "));
    const legacy = await negotiate("legacy");
    assert.equal(legacy.version, "2025-11-25");
    assert.deepEqual(legacy.methods.slice(0, 2), ["initialize", "notifications/initialized"]);
  });

  test("server/discover and tools/list answer with resultType and a private cache lifetime; the v2 client reuses the list", async () => {
    const discover = await postModern(
      balancer.url,
      alice,
      { method: "server/discover" },
      { "mcp-protocol-version": modern, "mcp-method": "server/discover" },
    );
    assert.equal(discover.status, 200);
    const found = discover.body.result as {
      supportedVersions: string[];
      capabilities: { tools?: unknown };
      resultType: string;
      ttlMs: number;
      cacheScope: string;
    };
    assert.deepEqual(found.supportedVersions, [modern]);
    assert.deepEqual(
      found.capabilities.tools,
      { listChanged: false },
      "tools, which never change while a gateway runs",
    );
    assert.deepEqual([found.resultType, found.ttlMs, found.cacheScope], ["complete", 300_000, "private"]);
    const listed = await postModern(
      balancer.url,
      alice,
      { method: "tools/list" },
      { "mcp-protocol-version": modern, "mcp-method": "tools/list" },
    );
    const list = listed.body.result as { tools: unknown[]; ttlMs: number; cacheScope: string; resultType: string };
    assert.deepEqual([list.ttlMs, list.cacheScope, list.resultType], [300_000, "private", "complete"]);
    // Prompts and resources are entries, written at any time: their lists live ten seconds, a read not at all.
    for (const method of ["prompts/list", "resources/list"]) {
      const entries = await postModern(
        balancer.url,
        alice,
        { method },
        { "mcp-protocol-version": modern, "mcp-method": method },
      );
      const result = entries.body.result as { ttlMs: number; cacheScope: string };
      assert.deepEqual([method, result.ttlMs, result.cacheScope], [method, 10_000, "private"]);
    }

    const client = await connectModern(balancer.url, alice);
    try {
      const start = balancer.seen.length;
      const first = await client.listTools();
      const second = await client.listTools();
      assert.deepEqual(second.tools, first.tools);
      assert.equal(
        balancer.seen.slice(start).filter((post) => post.method === "tools/list").length,
        1,
        "the second list came from the client's cache",
      );
    } finally {
      await client.close();
    }
  });

  test("routing headers that disagree with the body, or are missing, are refused with HeaderMismatch and run nothing", async () => {
    const call = {
      method: "tools/call",
      params: {
        name: "store_context",
        arguments: { thread_id: "mismatch", source: "agent", text: "must not be stored" },
      },
    };
    const headers = { "mcp-protocol-version": modern, "mcp-method": "tools/call", "mcp-name": "store_context" };
    const runsBefore = await toolRuns(gateways[0]!.base, "store_context");
    const cases: [string, Record<string, string>, Record<string, unknown> | undefined][] = [
      ["Mcp-Name names another tool", { ...headers, "mcp-name": "whoami" }, undefined],
      ["Mcp-Method names another method", { ...headers, "mcp-method": "tools/list" }, undefined],
      ["Mcp-Name is missing", { "mcp-protocol-version": modern, "mcp-method": "tools/call" }, undefined],
      ["Mcp-Method is missing", { "mcp-protocol-version": modern, "mcp-name": "store_context" }, undefined],
      ["MCP-Protocol-Version disagrees with _meta", { ...headers, "mcp-protocol-version": "2025-11-25" }, undefined],
    ];
    for (const [what, sent, meta] of cases) {
      const answer = await postModern(balancer.url, alice, call, sent, meta);
      assert.equal(answer.status, 400, `${what}: status`);
      assert.equal(answer.body.error?.code, -32020, `${what}: ${JSON.stringify(answer.body)}`);
      assert.match(
        answer.body.error?.message ?? "",
        /Mcp-Name|Mcp-Method|MCP-Protocol-Version|protocol version/i,
        `${what}: the message names what is wrong`,
      );
    }
    // The metrics registry is process-wide: both gateways report the same total.
    assert.equal(await toolRuns(gateways[0]!.base, "store_context"), runsBefore, "none of the refused calls ran");
    // The same call with matching headers is the control: it runs.
    const ok = await postModern(
      balancer.url,
      alice,
      {
        ...call,
        params: { ...call.params, arguments: { ...call.params.arguments, text: "stored with matching headers" } },
      },
      headers,
    );
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(await toolRuns(gateways[0]!.base, "store_context"), runsBefore + 1);

    const unsupported = await postModern(
      balancer.url,
      alice,
      { method: "tools/list" },
      { "mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list" },
      {
        "io.modelcontextprotocol/protocolVersion": "2099-01-01",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    );
    assert.equal(unsupported.status, 400);
    assert.match(
      JSON.stringify(unsupported.body.error),
      /2026-07-28/,
      "the error names the revisions this server speaks",
    );
  });

  test("malformed 2026-07-28 requests get a specific error and run nothing", async () => {
    const runsBefore = await toolRuns(gateways[0]!.base, "store_context");
    const callHeaders = { "mcp-protocol-version": modern, "mcp-method": "tools/call", "mcp-name": "store_context" };
    const notObject = await postModern(
      balancer.url,
      alice,
      { method: "tools/call", params: { name: "store_context", arguments: "text" } },
      callHeaders,
    );
    assert.equal(notObject.body.error?.code, -32602);
    assert.equal(
      notObject.body.error?.message,
      "Invalid params: params.arguments must be a JSON object (got a string)",
    );
    const wrongTypes = await postModern(
      balancer.url,
      alice,
      {
        method: "tools/call",
        params: { name: "store_context", arguments: { thread_id: 5, source: "agent", text: "x" } },
      },
      callHeaders,
    );
    const result = wrongTypes.body.result as { isError?: boolean; content: { text: string }[] };
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /thread_id: Invalid input: expected string/);
    const noCapabilities = await postModern(
      balancer.url,
      alice,
      { method: "tools/list" },
      { "mcp-protocol-version": modern, "mcp-method": "tools/list" },
      { "io.modelcontextprotocol/protocolVersion": modern },
    );
    assert.equal(noCapabilities.status, 400);
    assert.match(noCapabilities.body.error?.message ?? "", /clientCapabilities: missing/);
    const handshake = await postModern(
      balancer.url,
      alice,
      { method: "initialize" },
      { "mcp-protocol-version": modern, "mcp-method": "initialize" },
    );
    assert.deepEqual([handshake.status, handshake.body.error?.code], [404, -32601], "2026-07-28 has no initialize");
    assert.equal(await toolRuns(gateways[0]!.base, "store_context"), runsBefore);
  });

  test("access control is the same on both generations: scopes narrow the tools, credentials are required, tenants are apart", async () => {
    const readerV2 = await connectModern(balancer.url, reader);
    const readerV1 = await connectMcpClient(balancer.url, { authorization: `Bearer ${reader}` });
    try {
      const names = async (list: Promise<{ tools: { name: string }[] }>) =>
        (await list).tools.map((tool) => tool.name).sort();
      const v2Names = await names(readerV2.listTools());
      assert.deepEqual(v2Names, await names(readerV1.listTools()));
      assert.ok(!v2Names.includes("store_context") && v2Names.includes("fetch"));
    } finally {
      await readerV2.close();
      await readerV1.close();
    }
    const write = {
      method: "tools/call",
      params: { name: "store_context", arguments: { thread_id: "t", source: "agent", text: "no scope" } },
    };
    const refused = await postModern(balancer.url, reader, write, {
      "mcp-protocol-version": modern,
      "mcp-method": "tools/call",
      "mcp-name": "store_context",
    });
    const legacy = await fetch(balancer.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${reader}`,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, ...write }),
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.status, legacy.status, "the 2025 path refuses the same call the same way");
    assert.equal(refused.body.error?.message, ((await legacy.json()) as RawAnswer["body"]).error?.message);

    await assert.rejects(
      connectModern(balancer.url, "chk_" + "n".repeat(43)),
      "a bad key is refused before any MCP processing",
    );

    const v2Alice = await connectModern(balancer.url, alice);
    const v2Bob = await connectModern(balancer.url, bob);
    try {
      const stored = await v2Alice.callTool({
        name: "store_context",
        arguments: { thread_id: "private", source: "agent", text: "acme only" },
      });
      const id = (stored.structuredContent as { context_id: string }).context_id;
      const other = await v2Bob.callTool({ name: "fetch", arguments: { id } });
      assert.equal(other.isError, true, "another tenant cannot read it");
      assert.match(JSON.stringify(other.content), /ENTRY_NOT_FOUND/);
    } finally {
      await v2Alice.close();
      await v2Bob.close();
    }
  });
});
