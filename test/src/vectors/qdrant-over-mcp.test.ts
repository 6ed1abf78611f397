/**
 * Context Hub end to end on the Qdrant backend: all five services in one
 * process (the built-in embedder), the store answering semantic search from
 * Qdrant (the stand-in, or the real one at QDRANT_URL), driven over MCP.
 * whoami names the backend the store reports; when Qdrant is cut off,
 * stores still succeed and semantic search answers from PostgreSQL with the
 * warning passed through to the caller.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AllInOne } from "@context-hub/cli";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { startOutageProxy, startQdrantTarget, type OutageProxy, type QdrantTarget } from "../support/qdrant-server.js";
import { createQdrantClient } from "@context-hub/store/testing";
import { waitFor } from "@context-hub/common/testing";
import { startMemoryHub } from "../support/memory-hub.js";

interface SemanticPage {
  results: { id: string }[];
  warnings: string[];
}

describe("Context Hub over MCP with the Qdrant vector backend", () => {
  let qdrant: QdrantTarget;
  let proxy: OutageProxy;
  let hub: AllInOne;
  let client: Client;
  const prefix = `context_hub_mcp_${randomBytes(4).toString("hex")}`;

  before(async () => {
    qdrant = await startQdrantTarget();
    proxy = await startOutageProxy(qdrant.url);
    hub = await startMemoryHub({
      CONTEXT_HUB_AUTH: "none",
      STORE_VECTOR_BACKEND: "qdrant",
      STORE_QDRANT_URL: proxy.url,
      STORE_QDRANT_API_KEY: qdrant.apiKey,
      STORE_QDRANT_COLLECTION: prefix,
      STORE_QDRANT_RELAY_IDLE_MS: "10",
      STORE_QDRANT_RELAY_MAX_BACKOFF_MS: "400",
    });
    client = await connectMcpClient(hub.url);
  });
  after(async () => {
    await client?.close();
    await hub?.close();
    if (qdrant !== undefined) {
      const direct = createQdrantClient({
        url: qdrant.url,
        apiKey: qdrant.apiKey,
        collection: prefix,
        timeoutMs: 5_000,
        relayBatch: 1,
        relayIdleMs: 10,
        relayMaxBackoffMs: 250,
        searchPage: 8,
        searchMaxPoints: 100,
      });
      for (const { name } of (await direct.getCollections()).collections)
        if (name.startsWith(prefix)) await direct.deleteCollection(name);
    }
    await proxy?.close();
    await qdrant?.close();
  });

  test("whoami reports the store's vector backend", async () => {
    const me = await callOk<{ features: { vector_backend: string } }>(client, "whoami", {});
    assert.equal(me.features.vector_backend, "qdrant");
  });

  test("a store is found by meaning through Qdrant; with Qdrant cut off, stores succeed and search answers from PostgreSQL with a warning", async () => {
    const stored = await callOk<{ context_id: string }>(client, "store_context", {
      thread_id: "ops",
      source: "user",
      text: "The turbine blade cracked near the root during the inspection.",
    });
    const search = (query: string) => callOk<SemanticPage>(client, "semantic_search_context", { query, limit: 5 });
    // The relay delivers within milliseconds; until it has, the entry is not in Qdrant yet, so ask until it is.
    const found = await waitFor(
      async () => {
        const page = await search("turbine blade crack");
        return page.results.some((result) => result.id === stored.context_id) ? page : undefined;
      },
      { what: "the relay to deliver the stored entry to Qdrant" },
    );
    assert.deepEqual([found.results[0]?.id, found.warnings], [stored.context_id, []]);

    proxy.cut();
    try {
      const during = await callOk<{ context_id: string }>(client, "store_context", {
        thread_id: "ops",
        source: "user",
        text: "Bearing vibration rose sharply on the turbine during the outage.",
      });
      const fallback = await search("turbine bearing vibration");
      assert.ok(
        fallback.results.some((result) => result.id === during.context_id),
        "the entry written during the outage is found from PostgreSQL's vectors",
      );
      assert.ok(fallback.results.some((result) => result.id === stored.context_id));
      assert.match(fallback.warnings.join("\n"), /the Qdrant vector index is unavailable/);
    } finally {
      proxy.restore();
    }
  });
});
