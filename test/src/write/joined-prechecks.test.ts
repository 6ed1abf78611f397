import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AllInOne } from "@context-hub/cli";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { startMemoryHub } from "../support/memory-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";

/**
 * The dedup pre-checks of writes reaching the gateway together travel to the
 * store in one FindDuplicates call, and every write still folds only into its
 * own caller's entry: a retransmit into its sender's, never into another
 * caller's entry of the same text in the same thread. (That each check is
 * scoped by its own principal is shown at the store, in store-suite.)
 */

interface StoreAck {
  context_id: string;
  deduplicated: boolean;
}

/** FindDuplicates calls the gateway has made so far (the gRPC client histogram's count in /metrics). */
async function duplicateCheckCalls(hub: AllInOne): Promise<number> {
  const metrics = await (await fetch(new URL("/metrics", hub.url))).text();
  let total = 0;
  for (const match of metrics.matchAll(/^grpc_client_handling_seconds_count\{([^}]*)\} (\d+)$/gm)) {
    if (match[1]!.includes('grpc_method="FindDuplicates"')) total += Number(match[2]);
  }
  return total;
}

describe("dedup pre-checks of writes arriving together", () => {
  let keys: ReturnType<typeof writeKeysFile>;
  let hub: AllInOne;
  let alice: Client;
  let bob: Client;

  before(async () => {
    keys = writeKeysFile([
      { name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: readWrite },
      { name: "bob", tenant: "acme", subject: "bob", groups: [], scopes: readWrite },
    ]);
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "api-key", CONTEXT_HUB_API_KEYS_FILE: keys.path });
    alice = await connectMcpClient(hub.url, { authorization: `Bearer ${keys.principals.alice!.key}` });
    bob = await connectMcpClient(hub.url, { authorization: `Bearer ${keys.principals.bob!.key}` });
  });

  after(async () => {
    await alice?.close();
    await bob?.close();
    await hub?.close();
    keys?.dispose();
  });

  test("share one store call, and each folds only into its own caller's entry", async () => {
    const store = (client: Client, thread: string, text: string) =>
      callOk<StoreAck>(client, "store_context", { thread_id: thread, source: "agent", text, visibility: "tenant" });
    // Requests sent at once usually reach the gateway in one turn of its event loop, but nothing guarantees it;
    // bursts are sent until one was joined (fewer FindDuplicates calls than writes).
    let joined = false;
    for (let round = 0; round < 5 && !joined; round++) {
      const thread = `checks-${round}`;
      const text = `Round ${round}: the build is green on every platform.`;
      // Both store the same text in the same thread; each gets an entry of its own (they are different callers).
      const alicesFirst = await store(alice, thread, text);
      const bobsFirst = await store(bob, thread, text);
      assert.notEqual(bobsFirst.context_id, alicesFirst.context_id);
      assert.equal(bobsFirst.deduplicated, false);

      const callsBefore = await duplicateCheckCalls(hub);
      const burst = await Promise.all([
        store(alice, thread, text),
        store(bob, thread, text),
        store(alice, `${thread}-new`, `Round ${round}: a new finding from alice.`),
        store(bob, `${thread}-new`, `Round ${round}: a new finding from bob.`),
        store(alice, thread, text),
        store(bob, thread, text),
      ]);
      const calls = (await duplicateCheckCalls(hub)) - callsBefore;
      assert.ok(calls >= 1 && calls <= burst.length, `${calls} FindDuplicates calls for ${burst.length} writes`);
      joined = calls < burst.length;

      const [aliceAgain, bobAgain, aliceNew, bobNew, aliceThird, bobThird] = burst;
      for (const retransmit of [aliceAgain, aliceThird])
        assert.deepEqual(retransmit, { ...retransmit, context_id: alicesFirst.context_id, deduplicated: true });
      for (const retransmit of [bobAgain, bobThird])
        assert.deepEqual(retransmit, { ...retransmit, context_id: bobsFirst.context_id, deduplicated: true });
      assert.equal(aliceNew!.deduplicated, false);
      assert.equal(bobNew!.deduplicated, false);
      assert.notEqual(aliceNew!.context_id, bobNew!.context_id);
    }
    assert.ok(joined, "some burst's pre-checks shared a FindDuplicates call");
  });
});
