// Retrieval quality cannot silently regress: the Cranfield collection (1,398 non-empty aeronautics abstracts, 225
// queries with graded judgments) is stored through MCP on the embedded store, and nDCG@10 of full text (any word),
// of the semantic leg (built-in embeddings) and of hybrid search as called by default must stay above floors a little
// below what they measure today.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AllInOne } from "@context-hub/cli";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { startMemoryHub } from "../support/memory-hub.js";

/**
 * nDCG@10 floors on Cranfield, each a little below the figure measured when it was set (bench/quality.js prints the
 * same figures). Raise them when quality improves, so the gain is kept; never lower one to make a change pass.
 */
export const cranfieldQualityFloors = Object.freeze({ fullTextAny: 0.36, semantic: 0.28, hybridDefault: 0.4 });

/** The normalised collection, beside the repository (../shared/data/cranfield) unless CONTEXT_HUB_CRANFIELD_DIR names it. */
const dataDir =
  process.env.CONTEXT_HUB_CRANFIELD_DIR ??
  resolve(fileURLToPath(new URL("../../../", import.meta.url)), "../shared/data/cranfield");

interface Page {
  results: { id: string }[];
}

const readJsonl = <T>(path: string): T[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);

/** Cranfield's grades as nDCG gains: raw 1 (complete answer) → 4 … raw 4 → 1; raw -1 (the source paper) → 0. */
const gainOf: Record<string, number> = { "1": 4, "2": 3, "3": 2, "4": 1, "-1": 0 };

function ndcgAt10(ranked: readonly string[], gains: ReadonlyMap<string, number>): number {
  const dcg = ranked
    .slice(0, 10)
    .reduce((sum, docId, index) => sum + (gains.get(docId) ?? 0) / Math.log2(index + 2), 0);
  const ideal = [...gains.values()]
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

describe("retrieval quality on Cranfield over MCP (embedded store, built-in models)", () => {
  let hub: AllInOne;
  let client: Client;
  const docIdOf = new Map<string, string>();
  const queries: { id: string; text: string }[] = [];
  const judgments = new Map<string, Map<string, number>>();

  before(async () => {
    assert.ok(
      existsSync(resolve(dataDir, "docs.jsonl")),
      `the Cranfield collection is not at ${dataDir}; set CONTEXT_HUB_CRANFIELD_DIR to its directory`,
    );
    for (const line of readFileSync(resolve(dataDir, "qrels.tsv"), "utf8").split("\n").slice(1)) {
      const [queryId, docId, grade] = line.trim().split("\t");
      if (queryId === undefined || docId === undefined || grade === undefined) continue;
      const gains = judgments.get(queryId) ?? new Map<string, number>();
      gains.set(docId, gainOf[grade] ?? 0);
      judgments.set(queryId, gains);
    }
    queries.push(...readJsonl<{ id: string; text: string }>(resolve(dataDir, "queries.jsonl")));
    hub = await startMemoryHub({
      CONTEXT_HUB_SUMMARIES: "false",
      CONTEXT_HUB_RATE_READ_PER_MIN: "1000000",
      CONTEXT_HUB_RATE_READ_BURST: "1000000",
      CONTEXT_HUB_RATE_WRITE_PER_MIN: "1000000",
      CONTEXT_HUB_RATE_WRITE_BURST: "1000000",
    });
    client = await connectMcpClient(hub.url);
    const docs = readJsonl<{ id: string; text: string }>(resolve(dataDir, "docs.jsonl")).filter(
      (doc) => doc.text.trim() !== "",
    );
    for (let from = 0; from < docs.length; from += 100) {
      const batch = docs.slice(from, from + 100);
      const reply = await callOk<{ results: { success: boolean; context_id?: string }[] }>(
        client,
        "store_context_batch",
        {
          entries: batch.map((doc) => ({ thread_id: "cranfield", source: "user", text: doc.text })),
        },
      );
      reply.results.forEach((result, index) => {
        assert.ok(result.success && result.context_id !== undefined, `document ${batch[index]?.id} was stored`);
        docIdOf.set(result.context_id, batch[index]!.id);
      });
    }
  });

  after(async () => {
    await client?.close();
    await hub?.close();
  });

  const meanNdcg = async (tool: string, args: Record<string, unknown>) => {
    let sum = 0;
    for (const query of queries) {
      const page = await callOk<Page>(client, tool, { query: query.text, limit: 10, ...args });
      sum += ndcgAt10(
        page.results.map((hit) => docIdOf.get(hit.id) ?? ""),
        judgments.get(query.id) ?? new Map(),
      );
    }
    return sum / queries.length;
  };

  test("every non-empty document is stored and every query is judged", () => {
    assert.equal(docIdOf.size, 1_398);
    assert.equal(queries.length, 225);
    assert.ok(queries.every((query) => judgments.has(query.id)));
  });

  test(`full text over any word keeps nDCG@10 ≥ ${cranfieldQualityFloors.fullTextAny}`, async (t) => {
    const ndcg = await meanNdcg("fts_search_context", { mode: "any" });
    t.diagnostic(`full text (any) nDCG@10 ${ndcg.toFixed(4)}`);
    assert.ok(
      ndcg >= cranfieldQualityFloors.fullTextAny,
      `full text (any) nDCG@10 ${ndcg.toFixed(4)} fell below its floor ${cranfieldQualityFloors.fullTextAny}`,
    );
  });

  test(`the semantic leg keeps nDCG@10 ≥ ${cranfieldQualityFloors.semantic}`, async (t) => {
    const ndcg = await meanNdcg("semantic_search_context", {});
    t.diagnostic(`semantic nDCG@10 ${ndcg.toFixed(4)}`);
    assert.ok(
      ndcg >= cranfieldQualityFloors.semantic,
      `semantic nDCG@10 ${ndcg.toFixed(4)} fell below its floor ${cranfieldQualityFloors.semantic}`,
    );
  });

  test(`hybrid search as called by default keeps nDCG@10 ≥ ${cranfieldQualityFloors.hybridDefault}`, async (t) => {
    const ndcg = await meanNdcg("hybrid_search_context", {});
    t.diagnostic(`hybrid (default) nDCG@10 ${ndcg.toFixed(4)}`);
    assert.ok(
      ndcg >= cranfieldQualityFloors.hybridDefault,
      `hybrid (default) nDCG@10 ${ndcg.toFixed(4)} fell below its floor ${cranfieldQualityFloors.hybridDefault}`,
    );
  });
});
