import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { AllInOne } from "@context-hub/cli";
import { chromium, type Browser, type Page } from "playwright-core";
import { startGatewayOn, type TestGateway } from "../gateway/gateways.js";
import { startLocalIssuer, type LocalIssuer } from "../gateway/local-issuer.js";
import { startMemoryHub } from "../support/memory-hub.js";
import { restCaller } from "../support/rest.js";
import { chromiumExecutable } from "./chromium.js";

/**
 * The console's OIDC sign-in (authorization code with PKCE) in real headless
 * Chromium: a real hub (store on PGlite, embedder, summarizer over gRPC), a
 * gateway in oidc mode with CONSOLE_OIDC_CLIENT_ID, and the local issuer as
 * the authorization server on another origin. The button leads through the
 * issuer and back to a signed-in console that searches; a return whose state
 * was swapped, or that carries an error, is refused with nothing stored; the
 * token endpoint refuses a wrong verifier, a reused code and a code for
 * another redirect URI.
 */

const publicUrl = "https://context.example.test/mcp";
const clientId = "context-hub-console";
const keyStorage = 'sessionStorage.getItem("context-hub-console-key")';
const pendingStorage = 'sessionStorage.getItem("context-hub-console-oidc-pending")';
const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

describe("console sign-in with OIDC in Chromium", () => {
  let issuer: LocalIssuer;
  let hub: AllInOne;
  let gateway: TestGateway;
  let redirectUri: string;
  let kid: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const refusedByPolicy: string[] = [];

  /** Asks /auth for a code as a browser would be sent there, and returns the redirect's location. */
  async function authorize(parameters: Record<string, string>): Promise<Response> {
    const url = new URL(`${issuer.issuer}/auth`);
    const defaults = { response_type: "code", client_id: clientId, redirect_uri: redirectUri, scope: "openid" };
    for (const [name, value] of Object.entries({ ...defaults, ...parameters })) url.searchParams.set(name, value);
    return fetch(url, { redirect: "manual" });
  }

  async function redeem(form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${issuer.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: clientId,
        redirect_uri: redirectUri,
        ...form,
      }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  before(async () => {
    const executablePath = chromiumExecutable();
    issuer = await startLocalIssuer({ audience: publicUrl, tenantClaim: "tenant", tenant: "acme" });
    kid = await issuer.createKey("RS256");
    issuer.publish(kid);
    issuer.approveAs(kid, { sub: "oona", scope: "openid profile context:read context:write" });
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none" });
    gateway = await startGatewayOn(hub, {
      CONTEXT_HUB_AUTH: "oidc",
      OIDC_ISSUER: issuer.issuer,
      OIDC_TENANT_CLAIM: "tenant",
      CONTEXT_HUB_PUBLIC_URL: publicUrl,
      CONSOLE_OIDC_CLIENT_ID: clientId,
    });
    redirectUri = `${gateway.base}/console/`;
    issuer.registerClient(clientId, redirectUri);

    const writer = restCaller(gateway.base, await issuer.sign(kid, { sub: "oona" }));
    const stored = await writer("POST", "/entries", {
      body: {
        thread_id: "heron",
        visibility: "tenant",
        source: "user",
        title: "Heron migration notes",
        text: "The heron colony migrates south in the first week of October.",
      },
    });
    assert.equal(stored.status, 201, stored.text);

    browser = await chromium.launch({ executablePath, headless: true });
    page = await (await browser.newContext()).newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
  });

  after(async () => {
    await browser?.close();
    await gateway?.close();
    await hub?.close();
    await issuer?.close();
  });

  test("the button goes through the issuer and back: signed in as the token's subject, code and state gone, search works", async () => {
    await page.goto(redirectUri);
    const start = page.locator("#oidc-sign-in");
    await start.waitFor();
    assert.equal(await start.textContent(), `Sign in with ${new URL(issuer.issuer).host}`);
    await page.getByLabel("API key").waitFor(); // The API-key form stays beside it.

    await start.click();
    await page.locator("#signed-in-as").waitFor();
    assert.equal(await page.locator("#signed-in-as").textContent(), "oona @ acme");
    const url = new URL(page.url());
    assert.equal(url.pathname, "/console/");
    assert.equal(url.search, "", "code and state are removed from the address");
    const token = (await page.evaluate(keyStorage)) as string | null;
    assert.match(token ?? "", /^[\w-]+\.[\w-]+\.[\w-]+$/, "the access token is kept where a key would be");
    assert.equal(await page.evaluate(pendingStorage), null, "the verifier and state are gone after use");
    assert.equal(await page.evaluate("document.cookie"), "");

    await page.getByLabel("Query").fill("heron colony");
    await page.getByLabel("Full text").check();
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator(".hit", { hasText: "Heron migration notes" }).waitFor();
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(refusedByPolicy, [], "the issuer's discovery and token fetches pass the page's policy");
  });

  test("a return whose state was swapped is refused, the code is not redeemed and nothing is stored", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("#oidc-sign-in").waitFor();
    let swappedCode = "";
    // The issuer's answer rewritten on its way to the browser, as an attacker splicing in their own state would.
    const isAuthorization = (url: URL) => url.href.startsWith(`${issuer.issuer}/auth?`);
    await page.route(isAuthorization, async (route) => {
      const answer = await route.fetch({ maxRedirects: 0 });
      const location = new URL(answer.headers().location ?? "");
      swappedCode = location.searchParams.get("code") ?? "";
      location.searchParams.set("state", "not-the-state-this-tab-sent");
      await route.fulfill({ status: 302, headers: { location: location.href } });
    });
    await page.locator("#oidc-sign-in").click();
    await page.locator(".problem").waitFor();
    await page.unroute(isAuthorization);
    const problem = (await page.locator(".problem").textContent()) ?? "";
    assert.match(problem, /OIDC sign-in failed/);
    assert.match(problem, /state mismatch/);
    assert.equal(await page.evaluate(keyStorage), null);
    assert.equal(await page.evaluate(pendingStorage), null);
    assert.equal(new URL(page.url()).search, "");
    assert.equal(await page.locator("#signed-in-as").count(), 0);
    assert.notEqual(swappedCode, "");
    // The console never sent the code to the token endpoint: it is still unused (and fails only on the verifier).
    const attempt = await redeem({ code: swappedCode, code_verifier: "x".repeat(43) });
    assert.match(String(attempt.body.error_description), /PKCE verification failed/);
  });

  test("an error from the issuer is shown, with nothing stored", async () => {
    await page.goto(`${redirectUri}?error=access_denied&error_description=${encodeURIComponent("<b>no</b>")}&state=x`);
    await page.locator(".problem").waitFor();
    const problem = page.locator(".problem");
    assert.match((await problem.textContent()) ?? "", /access_denied: <b>no<\/b>/, "the description shown as text");
    assert.equal(await problem.locator("b").count(), 0);
    assert.equal(await page.evaluate(keyStorage), null);
    assert.equal(new URL(page.url()).search, "");
  });

  test("the authorization server: unknown clients and other redirect URIs get no redirect; S256 is required", async () => {
    const challenge = s256("v".repeat(43));
    const common = { code_challenge: challenge, code_challenge_method: "S256", state: "s1" };
    const unknown = await authorize({ ...common, client_id: "someone-else" });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.headers.get("location"), null);
    const elsewhere = await authorize({ ...common, redirect_uri: "https://evil.example/console/" });
    assert.equal(elsewhere.status, 400);
    assert.equal(elsewhere.headers.get("location"), null);
    const plain = await authorize({ ...common, code_challenge_method: "plain" });
    assert.equal(plain.status, 302);
    const refused = new URL(plain.headers.get("location") ?? "");
    assert.equal(refused.searchParams.get("error"), "invalid_request");
    assert.equal(refused.searchParams.get("state"), "s1");
  });

  test("the token endpoint refuses a wrong verifier, a used code and another redirect URI, and serves the right one", async () => {
    const verifier = "verifier-".padEnd(64, "q");
    const codeFor = async () => {
      const answer = await authorize({ code_challenge: s256(verifier), code_challenge_method: "S256", state: "s" });
      assert.equal(answer.status, 302);
      return new URL(answer.headers.get("location") ?? "").searchParams.get("code") ?? "";
    };
    const first = await codeFor();
    const wrong = await redeem({ code: first, code_verifier: "another-verifier-".padEnd(64, "z") });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, "invalid_grant");
    assert.match(String(wrong.body.error_description), /PKCE verification failed/);
    const reused = await redeem({ code: first, code_verifier: verifier });
    assert.equal(reused.status, 400, "a code is redeemed once, a failed attempt included");
    assert.match(String(reused.body.error_description), /unknown, used or expired/);

    const moved = await redeem({ code: await codeFor(), code_verifier: verifier, redirect_uri: `${gateway.base}/x/` });
    assert.equal(moved.status, 400);
    assert.match(String(moved.body.error_description), /redirect_uri differs/);

    const right = await redeem({ code: await codeFor(), code_verifier: verifier });
    assert.equal(right.status, 200, JSON.stringify(right.body));
    assert.equal(right.body.token_type, "Bearer");
    const whoami = await restCaller(gateway.base, right.body.access_token as string)("GET", "/whoami");
    assert.equal(whoami.status, 200, whoami.text);
    assert.equal((whoami.json as { subject: string }).subject, "oona");
  });
});
