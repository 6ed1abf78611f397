import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as StdioClient } from "@modelcontextprotocol/sdk/client/index.js";
import type { AllInOne } from "@context-hub/cli";
import { connectMcpClient } from "../support/mcp.js";
import { startMemoryHub } from "../support/memory-hub.js";
import { startGatewayOn, type TestGateway } from "./gateways.js";

/**
 * The MCP App view of search results, over HTTP with the SDK clients of
 * both generations: with CONTEXT_HUB_MCP_APPS on, resources/list shows the
 * `ui://` resource with its policy, resources/read returns one HTML document
 * with the app MIME type that loads nothing from a network, and tools/list
 * names the view in `_meta.ui.resourceUri` on the search tools alone. Off
 * (the default, or set off), neither appears, and tools/list is byte for
 * byte the list with the switch on less those `_meta` fields. `context-hub
 * stdio`, how desktop hosts start it, follows the same switch.
 */

const bin = resolve(fileURLToPath(import.meta.url), "../../../../bin/context-hub.js");

const appUri = "ui://context-hub/search-results.html";
const appMimeType = "text/html;profile=mcp-app";
const searchTools = ["fts_search_context", "semantic_search_context", "hybrid_search_context", "deep_search"];

interface Listed {
  uri: string;
  mimeType?: string;
  _meta?: Record<string, unknown>;
}

describe("MCP Apps: the search-results view, only when switched on", () => {
  let hub: AllInOne;
  let on: TestGateway;
  let off: TestGateway;
  let onClient: Client;
  let offClient: Client;
  let defaultClient: Client;

  before(async () => {
    // The hub's own gateway runs with the default: MCP Apps off.
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none", CONTEXT_HUB_MCP_APPS: "" });
    on = await startGatewayOn(hub, { CONTEXT_HUB_MCP_APPS: "on" });
    off = await startGatewayOn(hub, { CONTEXT_HUB_MCP_APPS: "off" });
    onClient = await connectMcpClient(on.url);
    offClient = await connectMcpClient(off.url);
    defaultClient = await connectMcpClient(hub.url);
  });

  after(async () => {
    await Promise.all([onClient, offClient, defaultClient].map((client) => client?.close()));
    await Promise.all([on, off].map((gateway) => gateway?.close()));
    await hub?.close();
  });

  test("on: resources/list shows the view with a policy naming no external origin", async () => {
    const { resources } = await onClient.listResources();
    const app = (resources as Listed[]).find((resource) => resource.uri === appUri);
    assert.ok(app !== undefined, `listed: ${JSON.stringify(resources.map((resource) => resource.uri))}`);
    assert.equal(app.mimeType, appMimeType);
    assert.deepEqual(app._meta, {
      ui: {
        csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
        prefersBorder: true,
      },
    });
  });

  test("on: resources/read returns one HTML document with the app MIME type that loads nothing", async () => {
    const { contents } = await onClient.readResource({ uri: appUri });
    assert.equal(contents.length, 1);
    const [document] = contents as { uri: string; mimeType: string; text: string; _meta?: Record<string, unknown> }[];
    assert.equal(document!.uri, appUri);
    assert.equal(document!.mimeType, appMimeType);
    assert.deepEqual((document!._meta?.ui as { csp: unknown }).csp, {
      connectDomains: [],
      resourceDomains: [],
      frameDomains: [],
      baseUriDomains: [],
    });
    const html = document!.text;
    assert.match(html, /^<!doctype html>/);
    assert.equal((html.match(/<script\b/g) ?? []).length, 1, "one inline script");
    assert.doesNotMatch(html, /<script[^>]*\bsrc=/i, "no external script");
    assert.doesNotMatch(
      html,
      /<link\b|<img\b|<iframe\b|@import|url\(/i,
      "no external stylesheet, image, frame or font",
    );
    assert.doesNotMatch(html, /\bimport\s*\{|\bimport\(|^export /m, "every module is linked in");
    assert.match(html, /ui\/initialize/);
    assert.match(html, /connect-src 'none'/, "the document's own policy allows no connection");
  });

  test("on: the search tools, and only they, name the view in tools/list", async () => {
    const { tools } = await onClient.listTools();
    const named = tools.filter((tool) => tool._meta !== undefined).map((tool) => tool.name);
    assert.deepEqual(named.sort(), [...searchTools].sort());
    for (const tool of tools.filter((candidate) => searchTools.includes(candidate.name)))
      assert.deepEqual(tool._meta, { ui: { resourceUri: appUri } }, tool.name);
  });

  test("on: a 2026-07-28 client sees the same view and the same tool metadata", async () => {
    const modern = new ModernClient(
      { name: "context-hub-tests-v2", version: "0.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await modern.connect(new ModernTransport(new URL(on.url)));
    try {
      const { tools } = await modern.listTools();
      const hybrid = tools.find((tool) => tool.name === "hybrid_search_context");
      assert.deepEqual(hybrid?._meta, { ui: { resourceUri: appUri } });
      assert.equal(tools.find((tool) => tool.name === "store_context")?._meta, undefined);
      const { contents } = await modern.readResource({ uri: appUri });
      assert.equal((contents[0] as { mimeType?: string }).mimeType, appMimeType);
    } finally {
      await modern.close();
    }
  });

  for (const [name, client] of [
    ["off", () => offClient],
    ["by default", () => defaultClient],
  ] as const) {
    test(`${name}: no app resource and no tool names one`, async () => {
      const { resources } = await client().listResources();
      assert.ok(!resources.some((resource) => resource.uri.startsWith("ui://")), "no ui:// resource listed");
      await assert.rejects(client().readResource({ uri: appUri }), /resource URI|not found/i);
      const { tools } = await client().listTools();
      assert.deepEqual(
        tools.filter((tool) => tool._meta !== undefined).map((tool) => tool.name),
        [],
      );
    });
  }

  test("off: tools/list is byte for byte the list with MCP Apps on less the view's _meta", async () => {
    const raw = async (url: string) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      assert.equal(response.status, 200);
      return response.text();
    };
    const [offList, defaultList, onList] = await Promise.all([raw(off.url), raw(hub.url), raw(on.url)]);
    assert.equal(offList, defaultList, "off is the default");
    const listed = (JSON.parse(offList) as { result: { tools: Record<string, unknown>[] } }).result.tools;
    assert.ok(listed.length > 20 && listed.every((tool) => !("_meta" in tool)), "no tool carries _meta when off");
    const stripped = JSON.parse(onList) as { result: { tools: Record<string, unknown>[] } };
    for (const tool of stripped.result.tools) delete tool._meta;
    assert.notEqual(onList, offList);
    assert.equal(JSON.stringify(stripped), offList);
  });
});

test("context-hub stdio with MCP Apps on serves the view and names it on the search tools", async (t) => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "context-hub-mcp-apps-")), "data");
  t.after(() => rmSync(resolve(dataDir, ".."), { recursive: true, force: true }));
  const client = new StdioClient({ name: "mcp-apps-stdio-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, "stdio", "--data-dir", dataDir, "--toolsets", "search"],
      env: {
        ...(process.env as Record<string, string>),
        LOG_LEVEL: "warn",
        DATABASE_URL: "",
        CONTEXT_HUB_MCP_APPS: "on",
      },
      stderr: "pipe",
    }),
  );
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools
        .filter((tool) => tool._meta !== undefined)
        .map((tool) => tool.name)
        .sort(),
      [...searchTools].sort(),
    );
    const { resources } = await client.listResources();
    assert.ok(resources.some((resource) => resource.uri === appUri && resource.mimeType === appMimeType));
    const { contents } = await client.readResource({ uri: appUri });
    assert.match((contents[0] as { text: string }).text, /^<!doctype html>/);
  } finally {
    await client.close();
  }
});
