import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { contentHash } from "@context-hub/common";
import { useFakeProviderHub } from "../support/fake-provider-hub.js";
import { entryRows, hubBackends, snapshotStore } from "../support/hub-backends.js";
import { outlinedReport } from "../support/markdown-texts.js";
import { callOk, callTool, failureLine, fetchEntry } from "../support/mcp.js";
import {
  chatPromptOf,
  embeddingInputs,
  fakeEmbedding,
  fakeSectionSummaryOf,
  fakeSummaryOf,
  type FakeModes,
} from "../support/openai-fakes.js";

/**
 * Updates through the real stack with OpenAI-format fake providers: a text
 * change is embedded and summarised (node summaries too) before the
 * compare-and-set commit; a metadata-only change asks no provider; a failed
 * leg changes nothing, and the same idempotency key then applies once. The
 * acknowledgement of every write is a read-back of what was stored.
 */

interface Ack {
  context_id: string;
  version: number;
  content_hash: string;
}

const kilnLog = outlinedReport("Kiln firing log", ["Cooling curve"], "kiln");
const reefSurvey = outlinedReport("Reef survey", ["Transect north", "Transect south", "Bleaching"], "reef");

for (const backend of hubBackends) {
  describe(`updates regenerate what a text change needs, and only that (${backend.name})`, () => {
    const context = useFakeProviderHub(backend, {
      // Small chunks, so that a longer text has more of them.
      EMBEDDER_CHUNK_SIZE: "200",
      EMBEDDER_CHUNK_OVERLAP: "0",
      EMBEDDER_MAX_RETRIES: "0",
      SUMMARIZER_MAX_RETRIES: "0",
      SUMMARIZER_SECTION_MIN_CHARS: "400",
    });

    const store = (thread: string, text: string) =>
      callOk<Ack>(context.hub.client, "store_context", { thread_id: thread, source: "agent", text });
    const update = (args: Record<string, unknown>) => callOk<Ack>(context.hub.client, "update_context", args);
    /** The provider requests made while `work` runs. */
    const requestsDuring = async <T>(work: () => Promise<T>) => {
      const from = { embeddings: context.fakes.embeddings.requests.length, chat: context.fakes.chat.requests.length };
      const result = await work();
      return {
        result,
        embeddings: context.fakes.embeddings.requests.slice(from.embeddings),
        chat: context.fakes.chat.requests.slice(from.chat),
      };
    };

    test("a text change sends the new text to both providers and replaces vectors, summary and node summaries", async () => {
      const created = await store("update-text", kilnLog.text);
      const before = await fetchEntry(context.hub.client, created.context_id);
      const rowsBefore =
        context.hub.database === undefined ? undefined : await entryRows(context.hub.database, created.context_id);

      const {
        result: ack,
        embeddings,
        chat,
      } = await requestsDuring(() => update({ context_id: created.context_id, text: reefSurvey.text }));

      const inputs = embeddings.flatMap(embeddingInputs);
      assert.ok(
        inputs.length > 0 && inputs.every((input) => reefSurvey.text.includes(input)),
        "only the new text's chunks were embedded",
      );
      const prompts = chat.map(chatPromptOf);
      assert.deepEqual(
        prompts.filter((prompt) => prompt.kind === "summary").map((prompt) => prompt.text),
        [reefSurvey.text],
        "the new text was summarised",
      );
      assert.deepEqual(
        prompts
          .filter((prompt) => prompt.kind === "section")
          .map((prompt) => prompt.path)
          .sort(),
        reefSurvey.outline.map((section) => section.path).sort(),
        "each of the new text's sections was summarised",
      );

      const after = await fetchEntry(context.hub.client, created.context_id);
      assert.equal(ack.version, before.version + 1);
      assert.equal(after.text, reefSurvey.text);
      assert.equal(after.summary, fakeSummaryOf(reefSurvey.text));
      // The fake's vectors mark topics, so chunks about the same topics embed alike and the first of them is kept.
      const distinctVectors = new Set(inputs.map((input) => fakeEmbedding(input, 8).join())).size;
      assert.equal(after.chunk_count, distinctVectors, "one chunk per distinct vector of the embedded inputs");
      assert.deepEqual(
        after.node_summaries.map((node) => [node.node_id, node.start, node.end, node.summary]),
        reefSurvey.outline.map((section) => [
          section.nodeId,
          section.start,
          section.end,
          fakeSectionSummaryOf(section.path),
        ]),
      );

      const nearest = async (query: string) =>
        (
          await callOk<{ results: { id: string; score: number }[] }>(context.hub.client, "semantic_search_context", {
            query,
            thread_id: "update-text",
            limit: 1,
          })
        ).results[0];
      const reef = await nearest("reef");
      assert.equal(reef?.id, created.context_id);
      assert.ok(Math.abs((reef?.score ?? 0) - 1) < 1e-6, "the entry's vectors are the new text's");
      const kiln = await nearest("kiln");
      assert.ok((kiln?.score ?? 0) < 0.5, `and the old text's vectors are gone (a "kiln" query scores ${kiln?.score})`);

      if (context.hub.database !== undefined && rowsBefore !== undefined) {
        const rows = await entryRows(context.hub.database, created.context_id);
        assert.equal(rows.chunks.length, after.chunk_count);
        assert.equal(rows.chunks[0]?.start_offset, 0);
        for (const chunk of rows.chunks) {
          const span = reefSurvey.text.slice(chunk.start_offset as number, chunk.end_offset as number);
          assert.deepEqual(
            (chunk.embedding as string)
              .replace(/[[\]{}]/g, "")
              .split(",")
              .map(Number),
            fakeEmbedding(span, 8),
            "each chunk is the new text's",
          );
        }
        assert.notDeepEqual(
          rows.chunks.map((chunk) => chunk.embedding),
          rowsBefore.chunks.map((chunk) => chunk.embedding),
        );
        assert.deepEqual(
          rows.nodeSummaries.map((node) => node.node_id),
          reefSurvey.outline.map((section) => section.nodeId),
        );
        assert.deepEqual(
          rows.versions,
          [{ version: 1, content_hash: contentHash(kilnLog.text), summary: fakeSummaryOf(kilnLog.text) }],
          "the previous version is kept",
        );
      }
    });

    test("a metadata-only or tags-only update asks no provider and keeps vectors, summary and node summaries", async () => {
      const created = await store("update-metadata", kilnLog.text);
      const before = await fetchEntry(context.hub.client, created.context_id);
      const rowsBefore =
        context.hub.database === undefined ? undefined : await entryRows(context.hub.database, created.context_id);

      const changes = [{ metadata: { status: "reviewed" } }, { tags: ["ceramics", "firing"] }];
      for (const change of changes) {
        const {
          result: ack,
          embeddings,
          chat,
        } = await requestsDuring(() => update({ context_id: created.context_id, ...change }));
        assert.deepEqual([embeddings.length, chat.length], [0, 0], `${JSON.stringify(change)}: no provider request`);
        const fetched = await fetchEntry(context.hub.client, created.context_id);
        assert.deepEqual([ack.version, ack.content_hash], [fetched.version, fetched.content_hash]);
      }

      const after = await fetchEntry(context.hub.client, created.context_id);
      assert.deepEqual(after.metadata, { status: "reviewed" });
      assert.deepEqual(after.tags, ["ceramics", "firing"]);
      const generated = (entry: typeof before) => [
        entry.text,
        entry.content_hash,
        entry.summary,
        entry.chunk_count,
        entry.node_summaries,
      ];
      assert.deepEqual(generated(after), generated(before));
      if (context.hub.database !== undefined && rowsBefore !== undefined) {
        const rows = await entryRows(context.hub.database, created.context_id);
        assert.deepEqual(
          [rows.chunks, rows.nodeSummaries],
          [rowsBefore.chunks, rowsBefore.nodeSummaries],
          "the same chunk and node summary rows, vectors included",
        );
      }
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
    for (const [index, failure] of failures.entries()) {
      test(`an update whose ${failure.leg} leg fails names the leg and leaves the entry unchanged; the same key then applies once`, async () => {
        const created = await store(`update-failure-${index}`, kilnLog.text);
        const before = await fetchEntry(context.hub.client, created.context_id);
        const storeBefore = await snapshotStore(context.hub);
        const rowsBefore =
          context.hub.database === undefined ? undefined : await entryRows(context.hub.database, created.context_id);
        const args = {
          context_id: created.context_id,
          text: reefSurvey.text,
          expected_version: before.version,
          idempotency_key: `update-${index}`,
        };

        Object.assign(context.fakes.modes, failure.modes);
        assert.match(failureLine(await callTool(context.hub.client, "update_context", args)), failure.expected);
        context.fakes.reset();

        assert.deepEqual(
          await fetchEntry(context.hub.client, created.context_id),
          before,
          "same version, text, summary, chunks and node summaries",
        );
        assert.deepEqual(await snapshotStore(context.hub), storeBefore, "no row added anywhere");
        if (context.hub.database !== undefined && rowsBefore !== undefined)
          assert.deepEqual(
            await entryRows(context.hub.database, created.context_id),
            rowsBefore,
            "the rows are untouched",
          );

        const applied = await update(args);
        const replayed = await update(args);
        assert.equal(applied.version, before.version + 1);
        assert.deepEqual(replayed, applied, "a replay returns the first result");
        const after = await fetchEntry(context.hub.client, created.context_id);
        assert.deepEqual(
          [after.version, after.text, after.summary],
          [before.version + 1, reefSurvey.text, fakeSummaryOf(reefSurvey.text)],
          "applied once",
        );
        if (context.hub.database !== undefined) {
          const rows = await entryRows(context.hub.database, created.context_id);
          assert.deepEqual(
            rows.versions.map((version) => version.version),
            [before.version],
            "one previous version: the update was applied once",
          );
        }
      });
    }

    test("the acknowledgement is a read-back: the content hash of the text sent, version 1 and then one more per text update", async () => {
      const texts = [
        "Orbit insertion burn planned for day 3.",
        "Orbit insertion burn moved to day 4 after the tank check.",
        kilnLog.text,
      ];
      const created = await store("read-back", texts[0]!);
      const acks: Ack[] = [];
      for (const [index, text] of texts.entries()) {
        const ack = index === 0 ? created : await update({ context_id: created.context_id, text });
        acks.push(ack);
        assert.equal(ack.version, index + 1);
        assert.equal(ack.content_hash, contentHash(text), `write ${index + 1}: SHA-256 of the text sent`);
        const fetched = await fetchEntry(context.hub.client, created.context_id);
        assert.deepEqual(
          [fetched.version, fetched.content_hash],
          [ack.version, ack.content_hash],
          `write ${index + 1}: what get_context_by_ids then returns`,
        );
      }
      if (context.hub.database !== undefined) {
        const rows = await entryRows(context.hub.database, created.context_id);
        assert.deepEqual(
          rows.versions.map((version) => [version.version, version.content_hash]),
          acks.slice(0, -1).map((ack) => [ack.version, ack.content_hash]),
          "each earlier acknowledgement is a stored version",
        );
      }
    });
  });
}
