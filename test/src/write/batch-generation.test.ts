import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { useFakeProviderHub } from "../support/fake-provider-hub.js";
import { hubBackends, snapshotStore } from "../support/hub-backends.js";
import { callOk, callTool, failureLine, fetchEntry } from "../support/mcp.js";
import { embeddingInputs, fakeSummaryOf, type FakeModes } from "../support/openai-fakes.js";

/**
 * store_context_batch embeds every chunk of every entry in batches of
 * EMBEDDER_BATCH_SIZE, not one request per chunk or per entry; and a failed
 * embedding or summary leg fails the whole batch, atomic or not, naming the
 * leg, with nothing stored.
 */

const batchSize = 20;

interface BatchResult {
  stored_count: number;
  failed_count: number;
  results: { index: number; success: boolean; context_id?: string }[];
}

/** Small entries of a few chunks each (at EMBEDDER_CHUNK_SIZE 100). */
const entriesOf = (label: string, count: number) =>
  Array.from({ length: count }, (_, item) => ({
    thread_id: `batch-${label}`,
    source: "agent",
    text: `Batch ${label}, note ${item}: harbour crane ${item} lifted ${item * 3 + 7} containers before the wind rose. Shift lead ${item} of batch ${label} paused loading at berth ${item} until the gusts dropped.`,
  }));

for (const backend of hubBackends) {
  describe(`batch stores embed in batches and fail whole on a failed leg (${backend.name})`, () => {
    const context = useFakeProviderHub(backend, {
      EMBEDDER_CHUNK_SIZE: "100",
      EMBEDDER_CHUNK_OVERLAP: "0",
      EMBEDDER_BATCH_SIZE: String(batchSize),
      EMBEDDER_MAX_RETRIES: "0",
      SUMMARIZER_MAX_RETRIES: "0",
    });

    /** Stores `entries` in one batch and returns the embeddings requests it made and each entry's stored chunk count. */
    async function storeBatch(entries: ReturnType<typeof entriesOf>) {
      const from = context.fakes.embeddings.requests.length;
      const batch = await callOk<BatchResult>(context.hub.client, "store_context_batch", { entries });
      assert.equal(batch.stored_count, entries.length);
      const requests = context.fakes.embeddings.requests.slice(from).map(embeddingInputs);
      const chunkCounts: number[] = [];
      for (const result of batch.results) {
        const entry = await fetchEntry(context.hub.client, result.context_id!);
        assert.equal(entry.summary, fakeSummaryOf(entries[result.index]!.text));
        chunkCounts.push(entry.chunk_count);
      }
      return { requests, chunkCounts, totalChunks: chunkCounts.reduce((sum, count) => sum + count, 0) };
    }

    test("N small entries whose chunks fit EMBEDDER_BATCH_SIZE: one embeddings request carrying every chunk of every entry", async () => {
      const entries = entriesOf("fits", 6);
      const { requests, chunkCounts, totalChunks } = await storeBatch(entries);
      assert.ok(
        chunkCounts.every((count) => count >= 2) && totalChunks <= batchSize,
        `the case needs several chunks per entry, ${batchSize} at most in all: ${chunkCounts.join(", ")}`,
      );

      assert.equal(
        requests.length,
        1,
        `one request, not one per entry or chunk: ${requests.map((inputs) => inputs.length).join(", ")}`,
      );
      const inputs = requests[0]!;
      assert.equal(inputs.length, totalChunks, "every stored chunk was in it");
      // Each entry's chunks, in entry order: who owns each input.
      const owners = inputs.map((input) => entries.findIndex((entry) => entry.text.includes(input)));
      assert.deepEqual(
        owners,
        chunkCounts.flatMap((count, index) => Array.from({ length: count }, () => index)),
      );
    });

    test("more chunks than EMBEDDER_BATCH_SIZE: full batches, as few requests as the size allows", async () => {
      const { requests, totalChunks } = await storeBatch(entriesOf("spills", 15));
      assert.ok(totalChunks > batchSize, `the case needs more than ${batchSize} chunks, has ${totalChunks}`);
      assert.equal(requests.length, Math.ceil(totalChunks / batchSize));
      assert.ok(
        requests.every((inputs) => inputs.length <= batchSize),
        `${requests.map((inputs) => inputs.length).join(", ")}`,
      );
      assert.equal(requests.flat().length, totalChunks);
    });

    const failures: { leg: string; modes: Partial<FakeModes>; expected: RegExp }[] = [
      {
        leg: "embedding",
        modes: { embed: "fail" },
        expected:
          /^EMBEDDER_UNAVAILABLE: embedding failed, so nothing was stored: openai embeddings \(model fake-embed\) failed: HTTP 500/,
      },
      {
        leg: "summary",
        modes: { summary: "fail" },
        expected:
          /^SUMMARIZER_UNAVAILABLE: summary failed, so nothing was stored: openai chat completions \(model fake-chat\) failed: HTTP 503/,
      },
    ];
    for (const failure of failures) {
      for (const atomic of [true, false]) {
        test(`a failing ${failure.leg} leg fails a${atomic ? "n atomic" : " non-atomic"} batch, naming the leg, with nothing stored; the same key then lands once`, async () => {
          const label = `${failure.leg}-${atomic ? "atomic" : "each"}`;
          const args = { entries: entriesOf(label, 4), atomic, idempotency_key: label };
          const before = await snapshotStore(context.hub);

          Object.assign(context.fakes.modes, failure.modes);
          assert.match(failureLine(await callTool(context.hub.client, "store_context_batch", args)), failure.expected);
          context.fakes.reset();
          assert.deepEqual(await snapshotStore(context.hub), before, "no new row, chunk, vector or summary");

          const landed = await callOk<BatchResult>(context.hub.client, "store_context_batch", args);
          const replayed = await callOk<BatchResult>(context.hub.client, "store_context_batch", args);
          assert.deepEqual([landed.stored_count, landed.failed_count], [4, 0]);
          assert.deepEqual(replayed, landed, "a replay returns the first result");
          const afterwards = await snapshotStore(context.hub);
          assert.equal(afterwards.statistics.entries, (before.statistics.entries as number) + 4, "each entry once");
          if (before.rows !== undefined)
            assert.equal(afterwards.rows?.idempotency_keys, before.rows.idempotency_keys + 1);
        });
      }
    }
  });
}
