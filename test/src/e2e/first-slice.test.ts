import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { startAllInOne, type AllInOne } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient, textOf } from "../support/mcp.js";
import { startTestPostgres } from "../support/postgres.js";

interface StoredAck {
  context_id: string;
  version: number;
  content_hash: string;
  deduplicated: boolean;
}
interface Listing {
  results: { id: string; thread_id: string; preview: string; summary: string; tags: string[]; source: string }[];
  count: number;
  has_more: boolean;
}

// Both sections of the report below (331 and 93 characters) are long enough for a node summary.
const quietEnv = { ...process.env, LOG_LEVEL: "silent", SUMMARIZER_SECTION_MIN_CHARS: "80" };

const backends: {
  name: string;
  start: () => Promise<{ env: NodeJS.ProcessEnv; dataDir?: string; close: () => Promise<void> }>;
}[] = [
  {
    name: "PGlite",
    start: async () => ({ env: { ...quietEnv, DATABASE_URL: "" }, dataDir: "memory://", close: async () => {} }),
  },
  {
    name: "PostgreSQL server",
    start: async () => {
      const postgres = await startTestPostgres();
      return { env: { ...quietEnv, DATABASE_URL: postgres.url }, close: postgres.close };
    },
  },
];

const report = [
  "# Wind tunnel run 14",
  "",
  "The boundary layer separated at 12 degrees angle of attack, earlier than the model predicted.",
  "We decided to repeat the run with trip strips at five percent chord because the laminar bubble explains the early stall.",
  "",
  "## Next steps",
  "",
  "Rerun at Reynolds number 2e6 and compare lift curves against the panel method.",
].join("\n");

for (const backend of backends) {
  describe(`first slice over MCP → gRPC → ${backend.name}`, () => {
    let hub: AllInOne;
    let client: Client;
    let closeBackend: () => Promise<void>;

    before(async () => {
      const started = await backend.start();
      closeBackend = started.close;
      hub = await startAllInOne({
        env: started.env,
        port: 0,
        ...(started.dataDir === undefined ? {} : { dataDir: started.dataDir }),
      });
      client = await connectMcpClient(hub.url);
    });

    after(async () => {
      await client?.close();
      await hub?.close();
      await closeBackend?.();
    });

    test("lists the first-slice tools with schemas and all four annotations", async () => {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      for (const name of ["store_context", "get_context_by_ids", "search_context"])
        assert.ok(names.includes(name), `${name} missing from ${names.join(", ")}`);
      for (const tool of tools) {
        assert.ok(tool.description && tool.description.length > 40, `${tool.name} needs a real description`);
        assert.ok(tool.outputSchema, `${tool.name} has no output schema`);
        for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
          assert.equal(typeof tool.annotations?.[hint], "boolean", `${tool.name} lacks ${hint}`);
        }
      }
    });

    test("store → fetch by id → list round trip, with generation before commit", async () => {
      const ack = await callOk<StoredAck>(client, "store_context", {
        thread_id: "wind-tunnel",
        source: "agent",
        text: report,
        tags: ["Aero", "runs"],
        metadata: { status: "done", run: 14 },
      });
      assert.match(ack.context_id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/, "ids are UUIDv7");
      assert.equal(ack.version, 1);
      assert.match(ack.content_hash, /^[0-9a-f]{64}$/);
      assert.equal(ack.deduplicated, false);

      const fetched = await callOk<{ entries: Record<string, unknown>[]; missing: string[] }>(
        client,
        "get_context_by_ids",
        { context_ids: [ack.context_id] },
      );
      assert.deepEqual(fetched.missing, []);
      const entry = fetched.entries[0]!;
      assert.equal(entry.text, report);
      assert.deepEqual(entry.tags, ["aero", "runs"]);
      assert.deepEqual(entry.metadata, { status: "done", run: 14 });
      assert.ok((entry.chunk_count as number) >= 1, "the text was embedded before commit");
      assert.ok(String(entry.embedding_model).length > 0);
      const nodes = entry.node_summaries as {
        node_id: string;
        heading: string;
        level: number;
        start: number;
        end: number;
        summary: string;
      }[];
      assert.deepEqual(
        nodes.map((node) => [node.node_id, node.heading, node.level, node.start, node.end]),
        [
          ["wind-tunnel-run-14", "Wind tunnel run 14", 1, 0, report.length],
          ["wind-tunnel-run-14/next-steps", "Next steps", 2, report.indexOf("## Next steps"), report.length],
        ],
        "a node summary per heading section, generated before commit",
      );
      for (const node of nodes) {
        // The built-in summaries are extractive: sentences of the section itself.
        const sentences = node.summary.split(/(?<=\.)\s+/);
        assert.ok(
          node.summary !== "" && sentences.every((sentence) => report.slice(node.start, node.end).includes(sentence)),
          `${node.node_id}: "${node.summary}"`,
        );
      }

      const byPrefix = await callOk<{ entries: { id: string }[] }>(client, "get_context_by_ids", {
        context_ids: [ack.context_id.replaceAll("-", "").slice(0, 12)],
      });
      assert.deepEqual(
        byPrefix.entries.map((e) => e.id),
        [ack.context_id],
      );

      const second = await callOk<StoredAck>(client, "store_context", {
        thread_id: "wind-tunnel",
        source: "user",
        text: "Please keep the runs under two hours each.",
        tags: ["constraints"],
      });
      await callOk(client, "store_context", {
        thread_id: "other-thread",
        source: "user",
        text: "Unrelated note about lunch.",
      });

      const thread = await callOk<Listing>(client, "search_context", { thread_id: "wind-tunnel" });
      assert.deepEqual(
        thread.results.map((r) => r.id),
        [second.context_id, ack.context_id],
        "newest first, only this thread",
      );
      assert.ok(thread.results[1]!.preview.length <= 310);

      const byTag = await callOk<Listing>(client, "search_context", { tags: ["aero"] });
      assert.deepEqual(
        byTag.results.map((r) => r.id),
        [ack.context_id],
      );
      const bySource = await callOk<Listing>(client, "search_context", { thread_id: "wind-tunnel", source: "user" });
      assert.deepEqual(
        bySource.results.map((r) => r.id),
        [second.context_id],
      );
      const byMetadata = await callOk<Listing>(client, "search_context", { metadata: { run: 14 } });
      assert.deepEqual(
        byMetadata.results.map((r) => r.id),
        [ack.context_id],
      );
      const future = await callOk<Listing>(client, "search_context", {
        start_date: new Date(Date.now() + 3_600_000).toISOString(),
      });
      assert.equal(future.count, 0);
      const paged = await callOk<Listing>(client, "search_context", { limit: 1, offset: 1 });
      assert.equal(paged.count, 1);
      assert.equal(paged.has_more, true);
    });

    test("a retransmit folds into the existing entry instead of a second row", async () => {
      const first = await callOk<StoredAck>(client, "store_context", {
        thread_id: "dedup",
        source: "agent",
        text: "Build passed on commit 4f2a.",
      });
      const again = await callOk<StoredAck>(client, "store_context", {
        thread_id: "dedup",
        source: "agent",
        text: "Build passed on commit 4f2a.",
      });
      assert.equal(again.context_id, first.context_id);
      assert.equal(again.deduplicated, true);
      const listing = await callOk<Listing>(client, "search_context", { thread_id: "dedup" });
      assert.equal(listing.count, 1);
    });

    test("bad input gets a specific tool error and stores nothing", async () => {
      const before = await callOk<Listing>(client, "search_context", { limit: 100 });
      const image = {
        data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).toString("base64"),
        mime_type: "image/png",
      };
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ["empty text", { thread_id: "bad", source: "user", text: "" }, /text must not be empty/],
        ["blank text", { thread_id: "bad", source: "user", text: "   \n " }, /text must not be empty/],
        ["NUL in text", { thread_id: "bad", source: "user", text: "a\u0000b" }, /NUL/],
        ["unknown argument", { thread_id: "bad", source: "user", text: "fine", owner: "someone-else" }, /owner/],
        [
          "11 images",
          { thread_id: "bad", source: "user", text: "fine", images: Array.from({ length: 11 }, () => image) },
          /at most 10 images/,
        ],
        [
          "257-character thread id",
          { thread_id: "t".repeat(257), source: "user", text: "fine" },
          /thread_id must be at most 256 characters/,
        ],
        ["bad source", { thread_id: "bad", source: "system", text: "fine" }, /source/],
        [
          "bad image type",
          { thread_id: "bad", source: "user", text: "fine", images: [{ data: "AAAA", mime_type: "text/html" }] },
          /mime_type/,
        ],
        [
          "image bytes of another type",
          {
            thread_id: "bad",
            source: "user",
            text: "fine",
            images: [{ data: Buffer.from("<svg/>").toString("base64"), mime_type: "image/png" }],
          },
          /the bytes are SVG \(image\/svg\+xml\), not the declared image\/png at images\[0\]/,
        ],
      ];
      for (const [name, args, expected] of cases) {
        const result = await callTool(client, "store_context", args);
        assert.equal(result.isError, true, `${name} should be rejected`);
        assert.match(textOf(result), expected, `${name}: ${textOf(result)}`);
      }
      const afterwards = await callOk<Listing>(client, "search_context", { limit: 100 });
      assert.deepEqual(
        afterwards.results.map((r) => r.id),
        before.results.map((r) => r.id),
      );
      const badThread = await callOk<Listing>(client, "search_context", { thread_id: "bad" });
      assert.equal(badThread.count, 0);
    });

    test("fetching an unknown id reports it missing", async () => {
      const fetched = await callOk<{ entries: unknown[]; missing: string[] }>(client, "get_context_by_ids", {
        context_ids: ["01890000-0000-7000-8000-000000000000"],
      });
      assert.deepEqual(fetched.entries, []);
      assert.deepEqual(fetched.missing, ["01890000-0000-7000-8000-000000000000"]);
    });
  });
}
