import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { generateApiKey } from "@context-hub/common";
import { waitFor } from "@context-hub/common/testing";
import { startAllInOne, type AllInOne } from "@context-hub/cli";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { startMemoryHub } from "../support/memory-hub.js";

const run = promisify(execFile);
const bin = resolve(fileURLToPath(import.meta.url), "../../../../bin/context-hub.js");

describe("API keys managed with the context-hub command", () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let hub: AllInOne | undefined;

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), "context-hub-keys-"));
    env = {
      ...process.env,
      LOG_LEVEL: "silent",
      DATABASE_URL: "",
      STORE_DATA_DIR: dataDir,
      CONTEXT_HUB_AUTH: "api-key",
      CONTEXT_HUB_KEY_CACHE_MS: "100",
    };
  });
  after(async () => {
    await hub?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The server, started on first use, so each test runs on its own as well as after the others. */
  const running = async () => (hub ??= await startAllInOne({ env, port: 0, dataDir }));
  const keys = async (...args: string[]) =>
    (await run(process.execPath, [bin, "keys", ...args], { env })).stdout.trim();
  const status = async (key: string) =>
    (
      await fetch(hub!.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      })
    ).status;

  test("a key created while the server is down works once it starts, and is stored only as a hash", async () => {
    const key = await keys(
      "create",
      "--tenant",
      "acme",
      "--subject",
      "dora",
      "--groups",
      "eng",
      "--scopes",
      "context:read,context:write",
    );
    assert.match(key, /^chk_[A-Za-z0-9_-]{43}$/);
    const listing = JSON.parse(await keys("list", "--json")) as {
      hint: string;
      subject: string;
      tenant: string;
      groups: string[];
    }[];
    assert.equal(listing.length, 1);
    assert.equal(listing[0]!.subject, "dora");
    assert.ok(key.startsWith(listing[0]!.hint));
    assert.ok(!JSON.stringify(listing).includes(key.slice(10)), "the listing never shows the key");

    assert.equal(hub, undefined, "the key was created before the server started");
    const client = await connectMcpClient((await running()).url, { authorization: `Bearer ${key}` });
    const ack = await callOk<{ context_id: string }>(client, "store_context", {
      thread_id: "t",
      source: "user",
      text: "dora's note",
    });
    const whoOwns = await callOk<{ entries: { owner: string }[] }>(client, "get_context_by_ids", {
      context_ids: [ack.context_id],
    });
    assert.equal(whoOwns.entries[0]?.owner, "dora", "the principal comes from the key");
    await client.close();
  });

  test("revoking a key while the server runs locks it out within seconds", async () => {
    await running();
    const key = await keys("create", "--tenant", "acme", "--subject", "erin");
    assert.equal(await status(key), 200);
    const [entry] = (JSON.parse(await keys("list", "--json")) as { id: string; subject: string }[]).filter(
      (item) => item.subject === "erin",
    );
    await keys("revoke", entry!.id);
    // The revocation reaches the running server through the store and its 100 ms key cache, so wait on its effect.
    await waitFor(async () => (await status(key)) === 401, { what: "the revoked key to be refused", timeoutMs: 5_000 });
    const revoked = JSON.parse(await keys("list", "--json", "--include-revoked")) as {
      subject: string;
      revoked_at: string | null;
    }[];
    assert.ok(revoked.find((item) => item.subject === "erin")?.revoked_at);
  });

  test("bad key requests are refused with specific messages", async () => {
    await assert.rejects(keys("create", "--tenant", "acme"), /--subject is required/);
    await assert.rejects(
      keys("create", "--tenant", "acme", "--subject", "x", "--scopes", "context:everything"),
      /unknown scope "context:everything"/,
    );
    await assert.rejects(keys("revoke", "00000000-0000-7000-8000-000000000000"), /no such API key|not found/i);
    await assert.rejects(
      keys("create", "--tenant", "acme", "--subject", "operator"),
      /key\.subject "operator" is reserved: the audit log records operator actions under that name/,
    );
  });
});

describe("API keys provisioned from a file", () => {
  test("expired keys and malformed files are refused", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "context-hub-keyfile-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const live = generateApiKey();
    const expired = generateApiKey();
    const path = join(dir, "keys.json");
    writeFileSync(
      path,
      JSON.stringify({
        keys: [
          { key: live, tenant: "acme", subject: "frank", scopes: ["context:read"] },
          {
            key: expired,
            tenant: "acme",
            subject: "gina",
            scopes: ["context:read"],
            expires_at: "2020-01-01T00:00:00Z",
          },
        ],
      }),
    );
    const hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "api-key", CONTEXT_HUB_API_KEYS_FILE: path });
    t.after(() => hub.close());
    const call = (key: string) =>
      fetch(hub.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    assert.equal((await call(live)).status, 200);
    const refused = await call(expired);
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get("www-authenticate") ?? "", /expired/);

    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ keys: [{ key: "hunter2", tenant: "acme", subject: "x", scopes: [] }] }));
    await assert.rejects(
      startMemoryHub({ CONTEXT_HUB_AUTH: "api-key", CONTEXT_HUB_API_KEYS_FILE: bad }),
      (error: Error) => /keys\.0\.key/.test(error.message) && /keys\.0\.scopes/.test(error.message),
    );
  });
});
