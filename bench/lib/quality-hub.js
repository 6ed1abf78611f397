// A fresh embedded hub holding one test collection, stored through store_context_batch in one thread, with an MCP
// client to call its tools: what bench/quality.js and bench/reason-quality.js measure on.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startAllInOne } from "@context-hub/cli";

/**
 * Starts the hub (in memory, summaries off, rate limits out of the way), stores the collection's non-empty
 * documents and returns `call(tool, args)` → structured content, the stored documents, `docIdOf` (entry id → the
 * collection's document id) and `close()`.
 */
export async function startCollectionHub(collection, log) {
  const hub = await startAllInOne({
    env: {
      ...process.env,
      DATABASE_URL: "",
      LOG_LEVEL: "warn",
      CONTEXT_HUB_SUMMARIES: "false",
      CONTEXT_HUB_RATE_READ_PER_MIN: "1000000",
      CONTEXT_HUB_RATE_READ_BURST: "1000000",
      CONTEXT_HUB_RATE_WRITE_PER_MIN: "1000000",
      CONTEXT_HUB_RATE_WRITE_BURST: "1000000",
    },
    port: 0,
    dataDir: "memory://",
  });
  const client = new Client({ name: "quality", version: "1" });
  const close = async () => {
    await client.close();
    await hub.close();
  };
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(hub.url)));
    const call = async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
      return result.structuredContent;
    };
    const storable = collection.docs.filter((doc) => doc.text.trim() !== "");
    log(
      `${collection.label}: storing ${storable.length} documents (${collection.docs.length - storable.length} empty ones cannot be stored)…`,
    );
    const docIdOf = new Map();
    for (let from = 0; from < storable.length; from += 100) {
      const batch = storable.slice(from, from + 100);
      const reply = await call("store_context_batch", {
        entries: batch.map((doc) => ({
          thread_id: collection.name,
          source: "user",
          text: doc.text,
          metadata: { doc_id: doc.id },
        })),
      });
      reply.results.forEach((result, index) => {
        if (!result.success)
          throw new Error(`${collection.label} document ${batch[index].id} was not stored: ${result.error?.message}`);
        docIdOf.set(result.context_id, batch[index].id);
      });
    }
    return { call, storable, docIdOf, close };
  } catch (error) {
    await close();
    throw error;
  }
}
