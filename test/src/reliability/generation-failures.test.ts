import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { callOk, callTool, failureLine, fetchEntry } from "../support/mcp.js";
import { useFakeProviderHub } from "../support/fake-provider-hub.js";
import { hubBackends, snapshotStore } from "../support/hub-backends.js";
import { fakeSummaryOf, type FakeModes } from "../support/openai-fakes.js";

/**
 * I-4 with real provider adapters: the embedder and summarizer talk to local
 * servers that speak the OpenAI embeddings and chat-completions formats, and
 * the tests make them fail, hang, answer late or answer garbage. Each time
 * the write fails with an error naming the leg, and the store holds no new
 * row, chunk, vector or summary (on a PostgreSQL server, counted table by
 * table); a retry with the same idempotency key then lands exactly once.
 */

const dimension = 8;
const providerTimeoutMs = 800;
const gatewayDeadlineMs = 1_200;
const slowMs = 3_000;

interface FailureCase {
  name: string;
  modes: Partial<FakeModes>;
  /** The whole first line of the error: its code, the leg and the cause. */
  expected: RegExp;
  /**
   * The failure comes no sooner than the first (ms), the deadline that must have fired, and, where given, before the
   * second, the moment a slow provider would have answered (so the deadline, not the answer, ended the wait).
   */
  within?: [number, number?];
}

interface Ack {
  context_id: string;
  version: number;
  content_hash: string;
}

const embedLeg = "^EMBEDDER_UNAVAILABLE: embedding failed, so nothing was stored: ";
const summaryLeg = "^SUMMARIZER_UNAVAILABLE: summary failed, so nothing was stored: ";

/** Runs `cases` against a hub on each backend, started with `env` over the fake providers' settings. */
function failureSuite(title: string, env: Record<string, string>, cases: FailureCase[]) {
  for (const backend of hubBackends) {
    describe(`${title} (${backend.name})`, () => {
      const context = useFakeProviderHub(backend, env, { dimension, slowMs });

      for (const [index, scenario] of cases.entries()) {
        test(`${scenario.name}: the error names the leg and the store is unchanged; the same key then lands once`, async () => {
          const { fakes, hub: h } = context;
          // A distinct text per case: an identical one would fold into the earlier entry.
          const args = {
            thread_id: "wind-tunnel",
            source: "agent",
            text: `Run ${14 + index} stalled early at 12 degrees; we will add trip strips and rerun.`,
            idempotency_key: `key-${index}`,
          };
          const before = await snapshotStore(h);

          Object.assign(fakes.modes, scenario.modes);
          const started = performance.now();
          const failed = await callTool(h.client, "store_context", args);
          const elapsed = performance.now() - started;
          assert.match(failureLine(failed), scenario.expected);
          // Real deadlines across real processes: timers never fire early, so the lower bound is safe on a busy machine.
          if (scenario.within !== undefined) {
            const [earliest, latest = Infinity] = scenario.within;
            assert.ok(
              elapsed >= earliest && elapsed < latest,
              `failed after ${Math.round(elapsed)} ms, expected from ${earliest} to ${latest} ms`,
            );
          }
          // A late answer must not bring anything in after the failure either.
          await fakes.slowAnswersSent();
          assert.deepEqual(await snapshotStore(h), before, "no new row, chunk, vector or summary");

          fakes.reset();
          const landed = await callOk<Ack>(h.client, "store_context", args);
          const replayed = await callOk<Ack>(h.client, "store_context", args);
          assert.deepEqual(
            [replayed.context_id, replayed.version, replayed.content_hash],
            [landed.context_id, landed.version, landed.content_hash],
            "a replay returns the first result",
          );
          const afterwards = await snapshotStore(h);
          assert.equal(
            afterwards.statistics.entries,
            (before.statistics.entries as number) + 1,
            "exactly one new entry",
          );
          const entry = await fetchEntry(h.client, landed.context_id);
          assert.equal(entry.embedding_model, "fake-embed");
          assert.equal(entry.summary, fakeSummaryOf(args.text), "the provider's summary, its reasoning block stripped");
          assert.ok(entry.chunk_count >= 1);
          if (before.rows !== undefined) {
            const grown = { entries: 1, chunks: entry.chunk_count, idempotency_keys: 1 };
            for (const [table, added] of Object.entries(grown)) {
              assert.equal(
                afterwards.rows?.[table as keyof typeof grown],
                before.rows[table as keyof typeof grown] + added,
                `${table}: the retry's rows, once`,
              );
            }
          }
        });
      }
    });
  }
}

failureSuite(
  "a failing, hanging or garbage-answering provider stores nothing",
  {
    EMBEDDER_TIMEOUT_MS: String(providerTimeoutMs),
    EMBEDDER_MAX_RETRIES: "1",
    SUMMARIZER_TIMEOUT_MS: String(providerTimeoutMs),
    SUMMARIZER_MAX_RETRIES: "1",
    // Far above the providers' own timeouts, so that those are what fire.
    GATEWAY_EMBED_TIMEOUT_MS: "10000",
    GATEWAY_SUMMARY_TIMEOUT_MS: "10000",
    GATEWAY_SECTION_SUMMARY_TIMEOUT_MS: "300",
  },
  [
    {
      name: "embedding provider fails",
      modes: { embed: "fail" },
      expected: new RegExp(
        `${embedLeg}openai embeddings \\(model fake-embed\\) failed: HTTP 500 \\(provider error\\) after 2 attempts$`,
      ),
    },
    {
      name: "embedding provider hangs past the embedder's provider timeout",
      modes: { embed: "hang" },
      expected: new RegExp(
        `${embedLeg}openai embeddings \\(model fake-embed\\) failed: no answer within ${providerTimeoutMs} ms \\(1 attempt\\)$`,
      ),
      within: [providerTimeoutMs],
    },
    {
      name: "embedding provider answers vectors of the wrong dimension",
      modes: { embed: "garbage" },
      expected: new RegExp(
        `${embedLeg}openai embeddings \\(model fake-embed\\) failed: malformed response: .*dimension`,
      ),
    },
    {
      name: "summary provider fails",
      modes: { summary: "fail" },
      expected: new RegExp(
        `${summaryLeg}openai chat completions \\(model fake-chat\\) failed: HTTP 503 \\(provider unavailable\\) after 2 attempts$`,
      ),
    },
    {
      name: "summary provider hangs past the summarizer's provider timeout",
      modes: { summary: "hang" },
      expected: new RegExp(
        `${summaryLeg}openai chat completions \\(model fake-chat\\) failed: no answer within ${providerTimeoutMs} ms \\(1 attempt\\)$`,
      ),
      within: [providerTimeoutMs],
    },
    {
      name: "summary provider answers no choices",
      modes: { summary: "garbage" },
      expected: new RegExp(
        `${summaryLeg}openai chat completions \\(model fake-chat\\) failed: malformed response: .*choices`,
      ),
    },
  ],
);

failureSuite(
  "the gateway's own leg deadlines fire before a slow provider answers",
  {
    // The providers would answer in time for their own timeouts; only the gateway's deadlines can end the wait.
    EMBEDDER_TIMEOUT_MS: "20000",
    SUMMARIZER_TIMEOUT_MS: "20000",
    GATEWAY_EMBED_TIMEOUT_MS: String(gatewayDeadlineMs),
    GATEWAY_SUMMARY_TIMEOUT_MS: String(gatewayDeadlineMs),
    // Node summaries may use only part of the summary's deadline.
    GATEWAY_SECTION_SUMMARY_TIMEOUT_MS: "300",
  },
  [
    {
      name: "embedding provider answers after the gateway's embed deadline",
      modes: { embed: "slow" },
      expected: new RegExp(`${embedLeg}embedder did not answer before the deadline$`),
      within: [gatewayDeadlineMs, slowMs],
    },
    {
      name: "summary provider answers after the gateway's summary deadline",
      modes: { summary: "slow" },
      expected: new RegExp(`${summaryLeg}summarizer did not answer before the deadline$`),
      within: [gatewayDeadlineMs, slowMs],
    },
  ],
);
