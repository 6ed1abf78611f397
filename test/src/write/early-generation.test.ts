import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createGrpcClient, createLogger } from "@context-hub/common";
import {
  startRecordingHttpServer,
  type FakeAnswer,
  type RecordedRequest,
  type RecordingHttpServer,
} from "@context-hub/common/testing";
import type { AllInOne } from "@context-hub/cli";
import { loadEmbedderConfig, startEmbedder } from "@context-hub/embedder";
import { createEarlyGeneration } from "@context-hub/gateway";
import { embedderV1, summarizerV1 } from "@context-hub/proto";
import { loadSummarizerConfig, startSummarizer } from "@context-hub/summarizer";
import { startCustomFakeProviderHub, type CustomFakeProviderHub } from "../support/fake-provider-hub.js";
import { callOk, callTool, textOf } from "../support/mcp.js";
import { scrapeMetrics } from "../support/prometheus.js";

/**
 * When a write's generation starts. With hosted providers it waits for the
 * dedup pre-check, so a likely retransmit costs no provider request at all,
 * alone or in a batch; with the built-in providers (`auto`) it starts beside
 * the pre-check, and a retransmit's generation, no longer wanted, is
 * cancelled and counted as such.
 */

const dimension = 8;
const logger = createLogger("early-generation-test", "silent");

function embeddingsAnswer(request: RecordedRequest): FakeAnswer {
  const inputs = (request.body as { input: string[] }).input;
  return {
    json: {
      data: inputs.map((text, index) => ({
        index,
        embedding: Array.from({ length: dimension }, (_, i) => Math.sin(text.length * (i + 1))),
      })),
      model: "fake-embed",
    },
  };
}

const chatAnswer: FakeAnswer = {
  json: {
    id: "x",
    choices: [
      { index: 0, message: { role: "assistant", content: "A note about the wind tunnel." }, finish_reason: "stop" },
    ],
  },
};

/** The texts the fake embeddings endpoint has been asked to embed, in order. */
const embeddedTexts = (server: RecordingHttpServer) =>
  server.requests.flatMap((request) => (request.body as { input: string[] }).input);

/** The count of contexthub_write_stage_seconds observations with these labels, from the hub's /metrics. */
async function stageCount(hub: AllInOne, stage: string, outcome: string): Promise<number> {
  const { samples } = await scrapeMetrics(new URL("/metrics", hub.url));
  const count = samples.find(
    (sample) =>
      sample.name === "contexthub_write_stage_seconds_count" &&
      sample.labels.stage === stage &&
      sample.labels.outcome === outcome,
  );
  return count?.value ?? 0;
}

interface StoreAck {
  context_id: string;
  deduplicated: boolean;
}

describe("with hosted providers generation waits for the pre-check", () => {
  let embeddings: RecordingHttpServer;
  let chat: RecordingHttpServer;
  let client: Client;
  let fakes: CustomFakeProviderHub;

  before(async () => {
    fakes = await startCustomFakeProviderHub({ embeddings: embeddingsAnswer, chat: () => chatAnswer }, dimension);
    ({ embeddings, chat, client } = fakes);
  });

  after(() => fakes?.close());

  test("a retransmit folds without asking any provider", async () => {
    const note = {
      thread_id: "tunnel",
      source: "agent",
      text: "Run 21 stalled at 12 degrees; trip strips go on before run 22.",
    };
    const first = await callOk<StoreAck>(client, "store_context", note);
    assert.equal(first.deduplicated, false);
    assert.deepEqual(embeddedTexts(embeddings), [note.text]);
    const summaryRequests = chat.requests.length;
    assert.ok(summaryRequests >= 1, "the new entry was summarised");

    const again = await callOk<StoreAck>(client, "store_context", note);
    assert.equal(again.deduplicated, true);
    assert.equal(again.context_id, first.context_id);
    assert.equal(embeddings.requests.length, 1, "no embedding request for the retransmit");
    assert.equal(chat.requests.length, summaryRequests, "no summary request for the retransmit");
  });

  test("a batch generates only for its entries that are not retransmits", async () => {
    const known = { thread_id: "batch", source: "agent", text: "The balance was recalibrated after run 30." };
    await callOk<StoreAck>(client, "store_context", known);
    const embeddedBefore = embeddedTexts(embeddings).length;
    const chatBefore = chat.requests.length;

    const fresh = {
      thread_id: "batch-other",
      source: "agent",
      text: "Smoke visualisation showed separation at the flap hinge.",
    };
    const batch = await callOk<{ results: StoreAck[] }>(client, "store_context_batch", { entries: [known, fresh] });
    assert.deepEqual(
      batch.results.map((result) => result.deduplicated),
      [true, false],
    );
    assert.deepEqual(embeddedTexts(embeddings).slice(embeddedBefore), [fresh.text], "only the new entry was embedded");
    assert.equal(chat.requests.length - chatBefore, 1, "only the new entry was summarised");
  });
});

describe("a batch whose fold target vanishes before the commit", () => {
  let embeddings: RecordingHttpServer;
  let client: Client;
  let fakes: CustomFakeProviderHub;
  /** While set, summary requests wait for it; `held` settles when one has arrived. */
  let gate: { held: Promise<void>; arrived: () => void; release: Promise<void>; open: () => void } | undefined;

  const holdSummaries = () => {
    let arrived!: () => void;
    let open!: () => void;
    const held = new Promise<void>((resolve) => (arrived = resolve));
    const release = new Promise<void>((resolve) => (open = resolve));
    gate = { held, arrived, release, open };
    return gate;
  };

  before(async () => {
    const heldChat = async () => {
      const current = gate;
      if (current !== undefined) {
        current.arrived();
        await current.release;
      }
      return chatAnswer;
    };
    fakes = await startCustomFakeProviderHub({ embeddings: embeddingsAnswer, chat: heldChat }, dimension);
    ({ embeddings, client } = fakes);
  });

  after(async () => {
    gate?.open();
    await fakes?.close();
  });

  /**
   * Stores `known`, then sends a batch of `known` again and a new note; while
   * the new note's summary is held, `known`'s entry is deleted, so the fold
   * the pre-check planned finds nothing to fold into.
   */
  async function batchRacingADelete(thread: string, atomic: boolean) {
    const known = { thread_id: thread, source: "agent", text: `The tunnel's fan was serviced (${thread}).` };
    const fresh = {
      thread_id: thread,
      source: "user",
      text: `Please rerun the polar at Reynolds number two million (${thread}).`,
    };
    const stored = await callOk<StoreAck>(client, "store_context", known);
    const held = holdSummaries();
    const batch = callOk<{
      stored_count: number;
      results: (StoreAck & { success: boolean; error?: { code: string; message: string } })[];
    }>(client, "store_context_batch", {
      entries: [known, fresh],
      atomic,
    });
    await held.held;
    await callOk(client, "delete_context", { context_ids: [stored.context_id] });
    gate = undefined;
    held.open();
    return { stored, batch: await batch, known };
  }

  test("atomic: the batch is generated whole and stored", async () => {
    const { stored, batch, known } = await batchRacingADelete("vanish-atomic", true);
    assert.equal(batch.stored_count, 2);
    const [again] = batch.results;
    assert.equal(again?.deduplicated, false, "stored anew, not folded");
    assert.notEqual(again?.context_id, stored.context_id);
    assert.ok(
      embeddedTexts(embeddings).filter((text) => text === known.text).length >= 2,
      "the text was embedded for its new entry",
    );
  });

  test("non-atomic: the vanished entry is generated for and stored in a second call; the rest is stored as it was", async () => {
    const { stored, batch, known } = await batchRacingADelete("vanish-items", false);
    assert.equal(batch.stored_count, 2);
    assert.deepEqual(
      batch.results.map((result) => [result.success, result.deduplicated]),
      [
        [true, false],
        [true, false],
      ],
    );
    assert.notEqual(batch.results[0]?.context_id, stored.context_id);
    assert.ok(
      embeddedTexts(embeddings).filter((text) => text === known.text).length >= 2,
      "the text was embedded for its new entry",
    );
  });

  test("non-atomic with an idempotency key: every entry is generated for, and the store folds the retransmit", async () => {
    const known = { thread_id: "keyed", source: "agent", text: "The tunnel's honeycomb was replaced." };
    const fresh = { thread_id: "keyed", source: "agent", text: "Turbulence intensity fell to 0.05 per cent." };
    const first = await callOk<StoreAck>(client, "store_context", known);
    const embeddedBefore = embeddedTexts(embeddings).length;
    const batch = await callOk<{ results: StoreAck[] }>(client, "store_context_batch", {
      entries: [known, fresh],
      atomic: false,
      idempotency_key: "keyed-batch",
    });
    assert.deepEqual(
      batch.results.map((result) => [result.context_id === first.context_id, result.deduplicated]),
      [
        [true, true],
        [false, false],
      ],
    );
    assert.deepEqual(embeddedTexts(embeddings).slice(embeddedBefore), [known.text, fresh.text]);
  });
});

describe("early generation by setting", () => {
  test("on: a retransmit's generation still running when it folds is cancelled, and counted as cancelled", async (t) => {
    // The embeddings endpoint never answers, so the retransmit's embedding can only end by being cancelled.
    let hang = false;
    const fakes = await startCustomFakeProviderHub(
      { embeddings: (request) => (hang ? "hang" : embeddingsAnswer(request)), chat: () => chatAnswer },
      dimension,
      { GATEWAY_EARLY_GENERATION: "on" },
    );
    t.after(() => fakes.close());
    const { hub, client } = fakes;

    const note = { thread_id: "tunnel", source: "agent", text: "The pitot tube was cleaned before run 40." };
    const first = await callOk<StoreAck>(client, "store_context", note);
    hang = true;
    const cancelledBefore = await stageCount(hub, "embed", "cancelled");
    const again = await callOk<StoreAck>(client, "store_context", note);
    assert.equal(again.context_id, first.context_id);
    assert.equal(again.deduplicated, true);
    assert.equal(await stageCount(hub, "embed", "cancelled"), cancelledBefore + 1);
  });
});

describe("a failed leg", () => {
  test("cancels the other leg at once: the write fails without waiting for it, naming the failed leg", async (t) => {
    const fakes = await startCustomFakeProviderHub(
      {
        embeddings: () => ({ status: 400, json: { error: { message: "input too long for this model" } } }),
        chat: () => "hang",
      },
      dimension,
      {
        SUMMARIZER_TIMEOUT_MS: "60000",
        GATEWAY_SUMMARY_TIMEOUT_MS: "60000",
      },
    );
    t.after(() => fakes.close());
    const { hub, client } = fakes;

    const cancelledBefore = await stageCount(hub, "summarize", "cancelled");
    const failed = await callTool(client, "store_context", {
      thread_id: "tunnel",
      source: "agent",
      text: "The strain gauges on the left wing were replaced.",
    });
    assert.equal(failed.isError, true);
    assert.match(textOf(failed), /^EMBEDDER_UNAVAILABLE: embedding failed, so nothing was stored: .*HTTP 400/s);
    // The hanging summary was cancelled rather than waited for (its timeouts are 60 s): counted, not timed.
    assert.equal(await stageCount(hub, "summarize", "cancelled"), cancelledBefore + 1);
  });
});

describe("auto decides from the workers' providers", () => {
  const started: { close(): Promise<void> | void }[] = [];
  let hosted: RecordingHttpServer;

  before(async () => {
    hosted = await startRecordingHttpServer(embeddingsAnswer);
  });

  after(async () => {
    for (const service of started.reverse()) await service.close();
    await hosted?.close();
  });

  async function workers(env: Record<string, string>) {
    const base = { ...process.env, LOG_LEVEL: "silent", ...env };
    const embedder = await startEmbedder(
      loadEmbedderConfig({ ...base, EMBEDDER_PORT: "0", EMBEDDER_OPS_PORT: "-1" }),
      logger,
    );
    const summarizer = await startSummarizer(
      loadSummarizerConfig({ ...base, SUMMARIZER_PORT: "0", SUMMARIZER_OPS_PORT: "-1" }),
      logger,
    );
    const peers = {
      embedder: createGrpcClient(embedderV1.EmbedderService, {
        address: embedder.address,
        peer: "embedder",
        deadlineMs: 5_000,
      }),
      summarizer: createGrpcClient(summarizerV1.SummarizerService, {
        address: summarizer.address,
        peer: "summarizer",
        deadlineMs: 5_000,
      }),
    };
    started.push(embedder, summarizer, peers.embedder, peers.summarizer);
    return peers;
  }

  /** The policy's first decision, and what it logged to reach it. */
  const decide = async (
    peers: Parameters<typeof createEarlyGeneration>[0]["peers"],
    setting: "auto" | "on" | "off" = "auto",
  ) => {
    const logged: string[] = [];
    const record = (_fields: unknown, message?: string) => void logged.push(message ?? "");
    const policy = createEarlyGeneration({
      setting,
      peers,
      logger: { info: record, warn: record } as never,
      refreshMs: 60_000,
      retryMs: 60_000,
      callTimeoutMs: 5_000,
    });
    await policy.decided;
    policy.stop();
    return { enabled: policy.enabled(), logged };
  };

  test("both built in: generation starts early; summaries off count as free; on and off decide alone", async () => {
    const peers = await workers({});
    assert.deepEqual(await decide(peers), {
      enabled: true,
      logged: ["generation starts beside the dedup pre-check: the providers are built in"],
    });
    assert.equal((await decide({ embedder: peers.embedder, summarizer: undefined })).enabled, true);
    assert.deepEqual(await decide(peers, "off"), { enabled: false, logged: [] });
  });

  test("a hosted embedder or summarizer: generation waits", async () => {
    const waits = { enabled: false, logged: ["generation waits for the dedup pre-check: a provider is hosted"] };
    const hostedEmbedder = await workers({
      EMBEDDER_PROVIDER: "openai",
      EMBEDDER_BASE_URL: hosted.url,
      EMBEDDER_MODEL: "fake-embed",
      EMBEDDER_DIMENSION: String(dimension),
    });
    assert.deepEqual(await decide(hostedEmbedder), waits);
    const hostedSummarizer = await workers({
      SUMMARIZER_PROVIDER: "openai",
      SUMMARIZER_BASE_URL: hosted.url,
      SUMMARIZER_MODEL: "fake-chat",
    });
    const builtIn = await workers({});
    assert.deepEqual(await decide({ embedder: builtIn.embedder, summarizer: hostedSummarizer.summarizer }), waits);
    assert.deepEqual(await decide(hostedEmbedder, "on"), { enabled: true, logged: [] });
  });

  test("workers that cannot be reached: generation waits, and says why", async () => {
    const unreachable = createGrpcClient(embedderV1.EmbedderService, {
      address: "127.0.0.1:1",
      peer: "embedder",
      deadlineMs: 500,
    });
    started.push(unreachable);
    const { enabled, logged } = await decide({ embedder: unreachable, summarizer: undefined });
    assert.equal(enabled, false);
    assert.deepEqual(logged, [
      "could not ask the generation workers for their providers; generation waits for the dedup pre-check until they answer",
    ]);
  });
});
