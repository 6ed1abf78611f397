import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { apiKeyHint, createGrpcClient, generateApiKey, hashApiKey } from "@context-hub/common";
import { waitFor } from "@context-hub/common/testing";
import { storeV1 } from "@context-hub/proto";
import type { AllInOne } from "@context-hub/cli";
import { startMemoryHub } from "../support/memory-hub.js";
import { writeKeysFile } from "../support/principals.js";
import { postJsonRpc, startGatewayOn, type TestGateway } from "./gateways.js";

/**
 * The API keys file over real HTTP: a changed file takes effect without a
 * restart (on its own, and at once on SIGHUP), and a key revoked in the
 * store is refused even while the file still lists it.
 */

const ping = { method: "ping" };
const entry = (key: string, subject: string) => ({
  key,
  tenant: "acme",
  subject,
  groups: [],
  scopes: ["context:read"],
});

/** Resolves once `key` gets `status`; fails naming `what` if it has not within `ms` (the change arrives through a file or the store). */
async function statusWithin(url: string, key: string, status: number, ms: number, what: string): Promise<void> {
  await waitFor(async () => (await postJsonRpc(url, ping, `Bearer ${key}`)).status === status, {
    what: `${what} (HTTP ${status})`,
    timeoutMs: ms,
  });
}

describe("the API keys file is reloaded, and a store revocation wins over it", () => {
  let hub: AllInOne;
  let keys: ReturnType<typeof writeKeysFile>;
  let gateway: TestGateway;
  let store: ReturnType<typeof createGrpcClient<typeof storeV1.ApiKeysService>>;

  before(async () => {
    keys = writeKeysFile([{ name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: ["context:read"] }]);
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none" });
    gateway = await startGatewayOn(hub, {
      CONTEXT_HUB_AUTH: "api-key",
      CONTEXT_HUB_API_KEYS_FILE: keys.path,
      CONTEXT_HUB_KEY_CACHE_MS: "100",
      CONTEXT_HUB_API_KEYS_FILE_POLL_MS: "3600000",
    });
    store = createGrpcClient(storeV1.ApiKeysService, {
      address: hub.services.store.address,
      peer: "store",
      deadlineMs: 10_000,
    });
  });
  after(async () => {
    store?.close();
    await gateway?.close();
    await hub?.close();
    keys?.dispose();
  });

  test("a key added to the file works and a key removed stops working, without a restart", async () => {
    const alice = keys.principals.alice!.key;
    const bob = generateApiKey();
    assert.equal((await postJsonRpc(gateway.url, ping, `Bearer ${alice}`)).status, 200);
    assert.equal((await postJsonRpc(gateway.url, ping, `Bearer ${bob}`)).status, 401);
    writeFileSync(keys.path, JSON.stringify({ keys: [entry(bob, "bob")] }));
    // The poll is an hour: only the watch of the file's directory can see this change.
    await statusWithin(gateway.url, bob, 200, 10_000, "the added key to work");
    await statusWithin(gateway.url, alice, 401, 10_000, "the removed key to be refused");
  });

  test("SIGHUP reads the file at once", async () => {
    const carol = generateApiKey();
    writeFileSync(keys.path, JSON.stringify({ keys: [entry(carol, "carol")] }));
    process.emit("SIGHUP", "SIGHUP");
    assert.equal(
      (await postJsonRpc(gateway.url, ping, `Bearer ${carol}`)).status,
      200,
      "no wait for the watch or the poll",
    );
  });

  test("an invalid rewrite keeps the keys in force", async () => {
    const dave = generateApiKey();
    writeFileSync(keys.path, JSON.stringify({ keys: [entry(dave, "dave")] }));
    process.emit("SIGHUP", "SIGHUP");
    assert.equal((await postJsonRpc(gateway.url, ping, `Bearer ${dave}`)).status, 200);
    writeFileSync(keys.path, '{"keys": [{"key": "chk_trunc');
    process.emit("SIGHUP", "SIGHUP");
    assert.equal((await postJsonRpc(gateway.url, ping, `Bearer ${dave}`)).status, 200);
  });

  test("a key the store has revoked is refused although the file lists it", async () => {
    const erin = generateApiKey();
    const created = (
      await store.createApiKey({
        key: {
          hint: apiKeyHint(erin),
          tenant: "acme",
          subject: "erin",
          groups: [],
          scopes: ["context:read"],
          description: "also in the file",
        },
        keyHash: hashApiKey(erin),
      })
    ).key!;
    writeFileSync(
      keys.path,
      JSON.stringify({
        keys: [{ key_sha256: hashApiKey(erin), tenant: "acme", subject: "erin", scopes: ["context:read"] }],
      }),
    );
    process.emit("SIGHUP", "SIGHUP");
    assert.equal((await postJsonRpc(gateway.url, ping, `Bearer ${erin}`)).status, 200);
    await store.revokeApiKey({ id: created.id });
    await statusWithin(
      gateway.url,
      erin,
      401,
      5_000,
      "the revoked key to be refused within the cache time, file or not",
    );
    const refused = await postJsonRpc(gateway.url, ping, `Bearer ${erin}`);
    assert.match(refused.body?.error?.message ?? "", /The API key is not valid \(unknown or revoked\)/);
  });
});
