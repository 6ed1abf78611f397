import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { contentHash, createGrpcClient, vectorFromBytes, vectorToBytes } from "@context-hub/common";
import { commonV1, embedderV1, storeV1 } from "@context-hub/proto";
import { startAllInOne, type AllInOne } from "@context-hub/cli";
import { nastyQueries } from "@context-hub/store/testing";
import { callOk, callTool, connectMcpClient, textOf } from "../support/mcp.js";
import { startTestPostgres } from "../support/postgres.js";
import { readWrite, writeKeysFile, type TestPrincipal } from "../support/principals.js";
import { startMemoryHub } from "../support/memory-hub.js";

/**
 * Every retrieval tool over the real MCP surface with real API keys, against
 * PGlite and a PostgreSQL server. Each foreign attempt is planted against the
 * closest possible match — identical text, and a vector equal to the query's
 * embedding plus a little noise — and paired with the owner's positive
 * control; a count test catches a filter applied after the limit.
 */

interface Hit {
  id: string;
  owner: string;
  rank: number;
  scores: { fts: unknown; semantic: unknown; fused: number | null; rerank: unknown };
  best_chunk: { start: number; end: number } | null;
}
interface Page {
  results: Hit[];
  count: number;
  has_more: boolean;
  warnings: string[];
}
interface HybridPage extends Page {
  legs: {
    fts: { ok: boolean; candidates: number };
    semantic: { ok: boolean; candidates: number };
    rerank: { ok: boolean; reranked: number };
  };
}
interface GrepPage {
  results: { id: string; match_count: number; matches: { id: string; text: string }[] }[];
  total_matches: number;
}

const backends = [
  {
    name: "PGlite",
    start: async () => ({
      env: { DATABASE_URL: "" } as NodeJS.ProcessEnv,
      dataDir: "memory://" as string | undefined,
      close: async () => {},
    }),
  },
  {
    name: "PostgreSQL server",
    start: async () => {
      const postgres = await startTestPostgres();
      return { env: { DATABASE_URL: postgres.url } as NodeJS.ProcessEnv, dataDir: undefined, close: postgres.close };
    },
  },
];

const secret = "The launch code for project Falcon is 7-alpha-9; keep it inside the core team.";
const vectorQuery = "quarterly hydraulic pressure anomalies";
const searchTools = ["fts_search_context", "semantic_search_context", "hybrid_search_context"] as const;
const withoutIds = (text: string) =>
  text.replace(/[0-9a-f]{8}-?[0-9a-f-]{0,27}/g, "<id>").replace(/Request id: .*/g, "");

for (const backend of backends) {
  describe(`retrieval tools over MCP with API keys (${backend.name})`, () => {
    let hub: AllInOne;
    let closeBackend: () => Promise<void>;
    let keys: ReturnType<typeof writeKeysFile>;
    const clients: Record<string, Client> = {};
    let principals: Record<string, TestPrincipal>;
    let planted: string;
    let vectorPlanted: string;
    const ghost = "01900000-0000-7000-8000-00000000abcd";

    const search = <T = Page>(name: string, tool: string, args: Record<string, unknown>) =>
      callOk<T>(clients[name]!, tool, args);
    const idsOf = (page: Page) => page.results.map((hit) => hit.id);

    before(async () => {
      keys = writeKeysFile([
        { name: "alice", tenant: "acme", subject: "alice", groups: ["eng"], scopes: readWrite },
        { name: "bob", tenant: "acme", subject: "bob", groups: ["eng"], scopes: readWrite },
        { name: "carol", tenant: "acme", subject: "carol", groups: ["sales"], scopes: readWrite },
        { name: "dave", tenant: "acme", subject: "dave", groups: [], scopes: readWrite },
        { name: "globexBob", tenant: "globex", subject: "bob", groups: ["eng"], scopes: readWrite },
      ]);
      principals = keys.principals;
      const started = await backend.start();
      closeBackend = started.close;
      hub = await startAllInOne({
        env: {
          ...process.env,
          ...started.env,
          LOG_LEVEL: "silent",
          CONTEXT_HUB_AUTH: "api-key",
          CONTEXT_HUB_API_KEYS_FILE: keys.path,
        },
        port: 0,
        ...(started.dataDir === undefined ? {} : { dataDir: started.dataDir }),
      });
      for (const [name, principal] of Object.entries(principals))
        clients[name] = await connectMcpClient(hub.url, { authorization: `Bearer ${principal.key}` });

      // The victim's private entry, then identical text in every other scope.
      planted = (
        await search<{ context_id: string }>("alice", "store_context", {
          thread_id: "planning",
          source: "agent",
          text: secret,
        })
      ).context_id;
      for (const name of ["bob", "globexBob"])
        await search(name, "store_context", { thread_id: "planning", source: "agent", text: secret });

      // A foreign entry whose only chunk sits on the query's own embedding (plus noise), committed straight to the store.
      const embedder = createGrpcClient(embedderV1.EmbedderService, {
        address: `127.0.0.1:${hub.services.embedder.port}`,
        peer: "embedder",
        deadlineMs: 30_000,
      });
      const store = createGrpcClient(storeV1.EntriesService, {
        address: hub.services.store.address,
        peer: "store",
        deadlineMs: 30_000,
      });
      try {
        const embedded = await embedder.embedQueries({ texts: [vectorQuery] });
        const query = vectorFromBytes(embedded.vectors[0]?.float32Le ?? new Uint8Array(), "vector");
        const noisy = query.map((value, index) => value + 0.01 * Math.sin(index + 1));
        const text = "Cafeteria opening hours for the summer.";
        const commit = async (tenant: string, subject: string) =>
          store.commit({
            principal: { tenant, subject, groups: [], scopes: readWrite },
            entry: { threadId: "facilities", source: commonV1.Source.AGENT, text },
            generated: {
              embeddingModel: embedded.model,
              embeddingDimension: embedded.dimension,
              chunks: [{ ordinal: 0, span: { start: 0, end: text.length }, vector: vectorToBytes(noisy) }],
              summary: "",
              nodeSummaries: [],
              textHash: contentHash(text),
            },
          });
        vectorPlanted = (await commit("acme", "bob")).ack?.id ?? "";
        await commit("globex", "bob");
      } finally {
        embedder.close();
        store.close();
      }
    });

    after(async () => {
      for (const client of Object.values(clients)) await client.close();
      await hub?.close();
      await closeBackend?.();
      keys?.dispose();
    });

    test("every retrieval tool is listed for a reader", async () => {
      const names = (await clients.alice!.listTools()).tools.map((tool) => tool.name);
      for (const tool of [...searchTools, "navigate_context", "read_context_range", "grep_context"])
        assert.ok(names.includes(tool), tool);
    });

    test("identical text in other scopes: each search finds only the caller's own", async () => {
      for (const tool of searchTools) {
        const own = await search("alice", tool, { query: "launch code Falcon" });
        assert.equal(own.results[0]?.id, planted, `${tool}: positive control, the owner finds it first`);
        for (const name of ["bob", "carol", "globexBob"]) {
          const page = await search(name, tool, { query: "launch code Falcon", limit: 50 });
          assert.ok(!idsOf(page).includes(planted), `${tool} must not show alice's entry to ${name}`);
          assert.ok(
            page.results.every((hit) => hit.owner === principals[name]!.subject),
            `${tool}: ${name} sees only its own`,
          );
        }
      }
    });

    test("a foreign vector next to the query's own never surfaces; its owner gets it first", async () => {
      for (const tool of ["semantic_search_context", "hybrid_search_context"]) {
        for (const name of ["alice", "carol", "dave", "globexBob"]) {
          assert.ok(
            !idsOf(await search(name, tool, { query: vectorQuery, limit: 50 })).includes(vectorPlanted),
            `${tool} for ${name}`,
          );
        }
        const owner = await search("bob", tool, {
          query: vectorQuery,
          limit: 5,
          ...(tool === "hybrid_search_context" ? { rerank: false } : {}),
        });
        assert.equal(owner.results[0]?.id, vectorPlanted, `${tool}: positive control`);
      }
      const semantic = await search("bob", "semantic_search_context", { query: vectorQuery, limit: 1 });
      assert.ok(
        (semantic.results[0] as unknown as { score: number }).score > 0.99,
        "the planted vector is next to the query",
      );
    });

    test("2 visible matches and 50 better invisible ones, limit 5: exactly 2, from every tool", async () => {
      const mine: string[] = [];
      for (const text of ["zephyr protocol handshake notes", "zephyr protocol retry policy"])
        mine.push(
          (
            await search<{ context_id: string }>("dave", "store_context", {
              thread_id: "zephyr",
              source: "agent",
              text,
            })
          ).context_id,
        );
      const better = Array.from({ length: 25 }, (_, index) => ({
        thread_id: "zephyr",
        source: "agent",
        text: `zephyr protocol zephyr protocol handshake retry ${index}`,
      }));
      await search("bob", "store_context_batch", { entries: better });
      await search("globexBob", "store_context_batch", { entries: better });
      for (const tool of searchTools) {
        const page = await search("dave", tool, { query: "zephyr protocol", limit: 5 });
        assert.deepEqual(idsOf(page).sort(), [...mine].sort(), tool);
        assert.equal(page.has_more, false, tool);
        assert.equal(
          (await search("bob", tool, { query: "zephyr protocol", limit: 5 })).count,
          5,
          `${tool}: positive control`,
        );
      }
    });

    test("navigation, ranges and grep: a foreign entry fails exactly like a nonexistent one", async () => {
      const own = await search<{ id: string; nodes: unknown[] }>("alice", "navigate_context", { context_id: planted });
      assert.equal(own.id, planted, "positive control");
      assert.equal(
        (await search<{ text: string }>("alice", "read_context_range", { context_id: planted, start: 0, end: 10 }))
          .text,
        secret.slice(0, 10),
      );
      for (const name of ["bob", "carol", "globexBob"]) {
        for (const [tool, args] of [
          ["navigate_context", {}],
          ["read_context_range", { start_line: 1, end_line: 1 }],
        ] as const) {
          const foreign = await callTool(clients[name]!, tool, { context_id: planted, ...args });
          const missing = await callTool(clients[name]!, tool, { context_id: ghost, ...args });
          assert.equal(foreign.isError, true, `${tool} ${name}`);
          assert.equal(withoutIds(textOf(foreign)), withoutIds(textOf(missing)), `${tool} ${name}`);
          assert.match(textOf(foreign), /^ENTRY_NOT_FOUND/);
          const byPrefix = await callTool(clients[name]!, tool, { context_id: planted.slice(0, 13), ...args });
          assert.match(textOf(byPrefix), /^ENTRY_NOT_FOUND/, `${tool} ${name} by prefix`);
        }
        const grep = await search<GrepPage>(name, "grep_context", { pattern: "launch code", context_lines: 1 });
        assert.ok(!grep.results.some((result) => result.id === planted), `grep for ${name}`);
        assert.ok(grep.results.every((result) => result.matches.every((match) => match.id === result.id)));
      }
      const aliceGrep = await search<GrepPage>("alice", "grep_context", { pattern: "7-alpha-9", output_mode: "count" });
      assert.deepEqual(
        [aliceGrep.results.map((result) => result.id), aliceGrep.total_matches],
        [[planted], 1],
        "positive control",
      );
    });

    test("hostile queries never fail a search tool", async () => {
      // The whole list runs against the store in the retrieval suite; here a sample crosses the MCP layer (and stays under the rate limit).
      const sample = nastyQueries.filter((candidate, index) => candidate.trim() !== "" && index % 4 === 0);
      assert.ok(sample.length >= 10);
      for (const query of sample) {
        for (const mode of ["match", "prefix", "phrase", "boolean", "any"]) {
          const result = await callTool(clients.alice!, "fts_search_context", { query, mode, highlight: true });
          assert.notEqual(result.isError, true, `${mode} ${JSON.stringify(query)}: ${textOf(result)}`);
        }
        const hybrid = await callTool(clients.alice!, "hybrid_search_context", { query });
        assert.notEqual(hybrid.isError, true, `hybrid ${JSON.stringify(query)}: ${textOf(hybrid)}`);
      }
    });

    test("hybrid results carry every leg's rank and score; stored text is fenced for the model", async () => {
      const page = await search<HybridPage>("alice", "hybrid_search_context", { query: "launch code Falcon" });
      const [top] = page.results;
      assert.ok(
        top?.scores.fts !== null &&
          top?.scores.semantic !== null &&
          top?.scores.fused !== null &&
          top?.scores.rerank !== null,
        JSON.stringify(top?.scores),
      );
      assert.deepEqual(page.legs.fts.ok && page.legs.semantic.ok && page.legs.rerank.ok, true);
      const raw = await callTool(clients.alice!, "hybrid_search_context", { query: "launch code Falcon" });
      assert.match(textOf(raw), /<<<UNTRUSTED_DATA nonce=[0-9a-f]{16} entry=/);
    });
  });
}

describe("hybrid search degrades when a leg is down (PGlite)", () => {
  let hub: AllInOne;
  let client: Client;
  let stored: string;

  before(async () => {
    hub = await startMemoryHub();
    client = await connectMcpClient(hub.url);
    stored = (
      await callOk<{ context_id: string }>(client, "store_context", {
        thread_id: "ops",
        source: "agent",
        text: "The compressor surge margin dropped below limits.",
      })
    ).context_id;
  });

  after(async () => {
    await client?.close();
    await hub?.close();
  });

  test("reranker down: fused order, with a warning", async () => {
    await hub.services.reranker.close();
    const page = await callOk<HybridPage>(client, "hybrid_search_context", { query: "compressor surge" });
    assert.equal(page.results[0]?.id, stored);
    assert.equal(page.legs.rerank.ok, false);
    assert.match(page.warnings.join(" "), /reranking failed, so results are in fused order \(RERANKER_UNAVAILABLE/);
  });

  test("embedder down: the full-text leg answers, with a warning; semantic search says what to do", async () => {
    await hub.services.embedder.close();
    const page = await callOk<HybridPage>(client, "hybrid_search_context", { query: "compressor surge" });
    assert.deepEqual(
      page.results.map((hit) => hit.id),
      [stored],
    );
    assert.deepEqual([page.legs.fts.ok, page.legs.semantic.ok], [true, false]);
    assert.match(
      page.warnings.join(" "),
      /semantic leg failed, so results come from the full-text leg alone \(EMBEDDER_UNAVAILABLE/,
    );
    const semantic = await callTool(client, "semantic_search_context", { query: "compressor surge" });
    assert.equal(semantic.isError, true);
    assert.match(textOf(semantic), /^EMBEDDER_UNAVAILABLE: semantic search needs the embedder/);
    assert.match(textOf(semantic), /Remedy: .*fts_search_context/);
  });
});
