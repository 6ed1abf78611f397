import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { chromium, type Browser, type Frame, type Page } from "playwright-core";
import type { AllInOne } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient } from "../support/mcp.js";
import { startMemoryHub } from "../support/memory-hub.js";
import { chromiumExecutable } from "./chromium.js";

/**
 * The MCP App view of search results in real headless Chromium, embedded
 * as a host embeds it: a small host page served by this test puts the
 * document the gateway serves at `ui://context-hub/search-results.html` in a
 * sandboxed frame (scripts only, an opaque origin) under the policy hosts
 * apply by default, and speaks the host side of the protocol: it answers
 * `ui/initialize`, waits for `ui/notifications/initialized`, then sends the
 * tool's arguments and a real hybrid_search_context result over entries
 * whose stored title and text are script-shaped. The hits render as text,
 * nothing in them runs or loads, and the hits are reachable by keyboard.
 */

const appUri = "ui://context-hub/search-results.html";
const hostileTitle = "<img src=x onerror=\"window.__xss='title'\">";
const hostileText =
  "Falcon relay notes <script>window.__xss='script'</script> and <img src=/x onerror=\"window.__xss='img'\"> " +
  '<svg onload="window.__xss=\'svg\'"></svg> <iframe src="javascript:window.__xss=1"></iframe> end.';

/** The policy a host applies to an app that declares no origins (the MCP Apps default). */
const hostDefaultPolicy =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

const hostPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Test host</title></head>
<body><h1>Test host</h1>
<iframe id="app" title="Search results" sandbox="allow-scripts" src="/view.html" width="900" height="600"></iframe>
<script src="/host.js"></script></body></html>`;

/** The host side: answers ui/initialize, records every message, and sends a tool's input and result once initialized. */
const hostScript = `
const frame = document.getElementById("app");
window.received = [];
let ready;
const initialized = new Promise((resolve) => { ready = resolve; });
const send = (message) => frame.contentWindow.postMessage({ jsonrpc: "2.0", ...message }, "*");
window.addEventListener("message", (event) => {
  if (event.source !== frame.contentWindow) return;
  const message = event.data;
  window.received.push(message);
  if (message.method === "ui/initialize")
    send({ id: message.id, result: { protocolVersion: "2026-01-26", hostInfo: { name: "test-host", version: "0.0.0" },
      hostCapabilities: {}, hostContext: { theme: "light", displayMode: "inline", platform: "web" } } });
  if (message.method === "ui/notifications/initialized") ready();
});
window.deliver = async (args, result) => {
  await initialized;
  send({ method: "ui/notifications/tool-input", params: { arguments: args } });
  send({ method: "ui/notifications/tool-result", params: result });
};
`;

describe("the MCP App view of search results in Chromium", () => {
  let hub: AllInOne;
  let client: Client;
  let host: Server;
  let hostUrl: string;
  let browser: Browser;
  let page: Page;
  let view: Frame;
  let html: string;
  let result: CallToolResult;
  const requests: string[] = [];
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  const args = { query: "falcon relay", limit: 10 };

  before(async () => {
    const executablePath = chromiumExecutable();
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none", CONTEXT_HUB_MCP_APPS: "on" });
    client = await connectMcpClient(hub.url);
    for (const [title, text] of [
      [hostileTitle, hostileText],
      [
        "Falcon relay plan",
        "The falcon relay runs at dawn <b onmouseover=alert(1)>bold</b> `<style>body{display:none}</style>`.",
      ],
    ] as const)
      await callOk(client, "store_context", { thread_id: "falcon", source: "user", title, text });
    const { contents } = await client.readResource({ uri: appUri });
    html = (contents[0] as { text: string }).text;
    result = await callTool(client, "hybrid_search_context", args);
    assert.notEqual(result.isError, true, JSON.stringify(result.content));

    host = createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0];
      if (path === "/") response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(hostPage);
      else if (path === "/host.js") response.writeHead(200, { "content-type": "text/javascript" }).end(hostScript);
      else if (path === "/view.html")
        response
          .writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": hostDefaultPolicy })
          .end(html);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;

    browser = await chromium.launch({ executablePath, headless: true });
    page = await (await browser.newContext({ viewport: { width: 1000, height: 800 } })).newPage();
    page.on("request", (request) => requests.push(request.url()));
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    await page.goto(`${hostUrl}/`);
    await page.evaluate(`window.deliver(${JSON.stringify(args)}, ${JSON.stringify(result)})`);
    const frame = page.frames().find((candidate) => candidate.url().endsWith("/view.html"));
    assert.ok(frame !== undefined, "the view's frame loaded");
    view = frame;
    await view.locator("li.hit").first().waitFor();
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => host?.close(resolve));
    await client?.close();
    await hub?.close();
  });

  test("the view initializes with the host over postMessage", async () => {
    const received = (await page.evaluate("window.received")) as {
      method?: string;
      params?: Record<string, unknown>;
    }[];
    const methods = received.map((message) => message.method);
    assert.equal(methods[0], "ui/initialize");
    assert.equal(methods[1], "ui/notifications/initialized");
    assert.equal(received[0]!.params!.protocolVersion, "2026-01-26");
    assert.ok(
      methods.slice(2).every((method) => method === "ui/notifications/size-changed"),
      methods.join(", "),
    );
  });

  test("each hit shows its title, thread, score, trust state and snippet as text", async () => {
    const hits = view.locator("li.hit");
    const structured = result.structuredContent as { results: { title: string; score: number }[] };
    assert.equal(await hits.count(), structured.results.length);
    assert.ok(structured.results.length >= 2, "both entries are found");
    const titles = await view.locator("li.hit h2").allTextContents();
    assert.deepEqual(
      titles,
      structured.results.map((hit) => hit.title),
    );
    assert.ok(titles.includes(hostileTitle), "the script-shaped title is shown as it was stored");
    const hostile = hits.filter({ hasText: hostileTitle });
    const details = await hostile.locator("p.muted").textContent();
    assert.match(details ?? "", /score \d/);
    assert.match(details ?? "", /thread falcon/);
    assert.match(details ?? "", /unverified|verified|quarantined|rejected/);
    assert.match((await hostile.locator("p.preview").textContent()) ?? "", /<script>window\.__xss='script'<\/script>/);
    assert.match((await view.locator("#result-count").textContent()) ?? "", /result\(s\) for “falcon relay”/);
  });

  test("nothing in the stored text runs, makes elements or loads", async () => {
    assert.equal(await view.evaluate("window.__xss"), undefined);
    assert.equal(await view.locator("img, svg, iframe, b, style:not(head style)").count(), 0);
    assert.equal(await view.locator("script").count(), 1, "only the view's own script");
    assert.deepEqual(dialogs, []);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, [], `no policy violation or script error; requests: ${requests.join(", ")}`);
    assert.deepEqual(
      requests.map((url) => url.replace(hostUrl, "")).sort(),
      ["/", "/host.js", "/view.html"],
      "only the host page, its script and the view were fetched",
    );
  });

  test("the hits are reachable by keyboard: Tab into the list, arrows between hits", async () => {
    await page.keyboard.press("Tab");
    const focusedTitle = () => view.evaluate('document.activeElement?.querySelector("h2")?.textContent ?? null');
    const titles = await view.locator("li.hit h2").allTextContents();
    assert.equal(await focusedTitle(), titles[0]);
    await page.keyboard.press("ArrowDown");
    assert.equal(await focusedTitle(), titles[1]);
    await page.keyboard.press("End");
    assert.equal(await focusedTitle(), titles.at(-1));
    await page.keyboard.press("Home");
    assert.equal(await focusedTitle(), titles[0]);
  });

  test("a failed call is shown as its message, as text", async () => {
    const failure = {
      isError: true,
      content: [{ type: "text", text: "INVALID_ARGUMENT: <img src=x onerror=alert(1)>" }],
    };
    await page.evaluate(
      `document.getElementById("app").contentWindow.postMessage(${JSON.stringify({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: failure })}, "*")`,
    );
    const alert = view.locator("[role=alert]");
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? "", /INVALID_ARGUMENT: <img src=x onerror=alert\(1\)>/);
    assert.equal(await view.locator("img").count(), 0);
  });
});
