// Every HTTP embedding adapter against a local server speaking its API: requests asserted, answers good and bad.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHttpProviderClient, createLogger, isContextHubError } from "@context-hub/common";
import {
  createFakeClock,
  startRecordingHttpServer,
  waitFor,
  type FakeAnswer,
  type RecordedRequest,
} from "@context-hub/common/testing";
import { loadEmbedderConfig } from "../config.js";
import type { EmbeddingProvider } from "../embedding-provider.js";
import { createEmbedderTextWork, createEmbeddingProvider } from "../index.js";
import { createHttpEmbeddingProvider } from "./http-embedding-provider.js";
import { createOllamaEmbeddingsApi } from "./ollama-embeddings.js";

const logger = createLogger("embedder-test", "silent");
type TestContext = { after(fn: () => Promise<void> | void): void; name: string };

/** A deterministic 4-d vector per text, so a test can tell which text a vector belongs to. */
const rawVectorOf = (text: string): number[] => [
  text.length,
  text.charCodeAt(0) % 7,
  1,
  text.charCodeAt(text.length - 1) % 5,
];
const unit = (values: number[]) => {
  const length = Math.hypot(...values);
  return values.map((value) => Math.fround(Math.fround(value) / length));
};

interface AdapterSpec {
  provider: "openai" | "ollama" | "voyage";
  path: string;
  model: string;
  /** The provider's answer for these vectors (`index` in reverse order where the API has one). */
  answer(vectors: number[][]): unknown;
  /** The texts a request asked for. */
  inputsOf(body: Record<string, unknown>): string[];
  /** Body fields beyond model and input that this API must receive. */
  expectedFields(inputType: "document" | "query"): Record<string, unknown>;
  /** Answer bodies that break the API's contract, with what the error must say. */
  malformed: [string, (vectors: number[][]) => FakeAnswer, RegExp][];
}

const indexed = (vectors: number[][]) =>
  vectors.map((embedding, index) => ({ object: "embedding", index, embedding })).reverse();
const indexedMalformed = (): AdapterSpec["malformed"] => [
  [
    "missing data",
    () => ({ json: { object: "list" } }),
    /malformed response: data: Invalid input: expected array, received undefined/,
  ],
  [
    "a string instead of numbers",
    (v) => ({ json: { data: v.map((e, index) => ({ index, embedding: e.map(String) })) } }),
    /malformed response: data\.\d+\.embedding\.0: Invalid input: expected number, received string/,
  ],
  [
    "NaN in the body",
    (v) => ({ body: `{"data":[${v.map((_, i) => `{"index":${i},"embedding":[NaN,1,1,1]}`).join(",")}]}` }),
    /malformed response: HTTP 200 with a body that is not JSON/,
  ],
  [
    "one embedding too few",
    (v) => ({ json: { data: indexed(v).slice(1) } }),
    /malformed response: 1 embeddings for 2 inputs/,
  ],
  [
    "a duplicate index",
    (v) => ({ json: { data: v.map((embedding) => ({ index: 0, embedding })) } }),
    /malformed response: embedding index 0 appears twice/,
  ],
  [
    "the wrong dimension",
    (v) => ({ json: { data: indexed(v.map((e) => e.slice(0, 3))) } }),
    /malformed response: embedding 0 has 3 dimensions, expected 4/,
  ],
  [
    "a value beyond float32",
    (v) => ({ json: { data: indexed(v.map((e) => [1e39, ...e.slice(1)])) } }),
    /malformed response: embedding 0 has a non-finite value at 0/,
  ],
  [
    "a zero vector",
    (v) => ({ json: { data: indexed(v.map(() => [0, 0, 0, 0])) } }),
    /malformed response: embedding 0 has no direction/,
  ],
];

const adapters: AdapterSpec[] = [
  {
    provider: "openai",
    path: "/v1/embeddings",
    model: "text-embedding-3-small",
    answer: (vectors) => ({
      object: "list",
      data: indexed(vectors),
      model: "text-embedding-3-small",
      usage: { prompt_tokens: 3, total_tokens: 3 },
    }),
    inputsOf: (body) => body.input as string[],
    expectedFields: () => ({ encoding_format: "float" }),
    malformed: indexedMalformed(),
  },
  {
    provider: "voyage",
    path: "/v1/embeddings",
    model: "voyage-3.5",
    answer: (vectors) => ({ object: "list", data: indexed(vectors), model: "voyage-3.5", usage: { total_tokens: 3 } }),
    inputsOf: (body) => body.input as string[],
    expectedFields: (inputType) => ({ input_type: inputType }),
    malformed: indexedMalformed(),
  },
  {
    provider: "ollama",
    path: "/api/embed",
    model: "nomic-embed-text",
    answer: (vectors) => ({
      model: "nomic-embed-text",
      embeddings: vectors,
      total_duration: 1,
      load_duration: 1,
      prompt_eval_count: 3,
    }),
    inputsOf: (body) => body.input as string[],
    expectedFields: () => ({}),
    malformed: [
      [
        "missing embeddings",
        () => ({ json: { model: "nomic-embed-text" } }),
        /malformed response: embeddings: Invalid input: expected array, received undefined/,
      ],
      [
        "a string instead of numbers",
        (v) => ({ json: { embeddings: v.map((e) => e.map(String)) } }),
        /malformed response: embeddings\.0\.0: Invalid input: expected number, received string/,
      ],
      [
        "NaN in the body",
        () => ({ body: '{"embeddings":[[NaN,1,1,1],[1,1,1,1]]}' }),
        /malformed response: HTTP 200 with a body that is not JSON/,
      ],
      [
        "null instead of a number",
        (v) => ({ json: { embeddings: v.map((e) => [null, ...e.slice(1)]) } }),
        /malformed response: embeddings\.0\.0: Invalid input: expected number, received null/,
      ],
      [
        "one embedding too few",
        (v) => ({ json: { embeddings: v.slice(1) } }),
        /malformed response: 1 embeddings for 2 inputs/,
      ],
      [
        "the wrong dimension",
        (v) => ({ json: { embeddings: v.map((e) => [...e, 1]) } }),
        /malformed response: embedding 0 has 5 dimensions, expected 4/,
      ],
    ],
  },
];

async function startAdapter(
  t: TestContext,
  spec: AdapterSpec,
  handler: (request: RecordedRequest, index: number) => FakeAnswer,
  env: NodeJS.ProcessEnv = {},
) {
  const server = await startRecordingHttpServer(handler);
  t.after(() => server.close());
  const config = loadEmbedderConfig({
    EMBEDDER_PROVIDER: spec.provider,
    EMBEDDER_BASE_URL: server.url,
    EMBEDDER_API_KEY: "sk-test-key-123",
    EMBEDDER_MODEL: spec.model,
    EMBEDDER_DIMENSION: "4",
    EMBEDDER_TIMEOUT_MS: "3000",
    EMBEDDER_MAX_RETRIES: "2",
    ...env,
  });
  // An HTTP provider leaves the text work (no worker starts until some is asked for) to the embedder around it.
  // Waits between attempts pass on a fake clock: tests read the waits asked for instead of timing them.
  const clock = createFakeClock();
  const provider = createEmbeddingProvider(
    config,
    createEmbedderTextWork({ workers: 1, budgetMs: 1000, cacheDir: undefined }),
    logger,
    clock,
  );
  t.after(() => provider.close());
  return { server, provider, clock };
}

/** A handler answering every request with the vectors of the texts it asked for. */
const answering =
  (spec: AdapterSpec) =>
  (request: RecordedRequest): FakeAnswer => ({
    json: spec.answer(spec.inputsOf(request.body as Record<string, unknown>).map(rawVectorOf)),
  });

const providerError = (code: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(isContextHubError(error), `expected a ContextHubError, got ${String(error)}`);
  assert.equal(error.code, code);
  assert.match(error.message, pattern);
  assert.doesNotMatch(error.message, /sk-test-key-123/);
  return true;
};

const texts = ["alpha", "bravo!", "charlie", "delta", "echo echo"];

for (const spec of adapters) {
  const label = `${spec.provider} embeddings \\(model ${spec.model.replace(/[.]/g, "\\.")}\\)`;

  test(`${spec.provider}: batches split at EMBEDDER_BATCH_SIZE, vectors come back in text order, unit length, and requests carry auth, model and fields`, async (t) => {
    const { server, provider } = await startAdapter(t, spec, answering(spec), {
      EMBEDDER_BATCH_SIZE: "2",
      EMBEDDER_CONCURRENCY: "2",
    });
    assert.deepEqual(provider.describe(), { provider: spec.provider, model: spec.model, dimension: 4 });
    assert.equal(provider.isReady(), true, "a configured dimension needs no warm-up");
    for (const inputType of ["document", "query"] as const) {
      server.requests.length = 0;
      const vectors = await provider.embed({ texts, inputType });
      assert.deepEqual(
        vectors.map((vector) => Array.from(vector)),
        texts.map((text) => unit(rawVectorOf(text))),
      );
      assert.equal(server.requests.length, 3);
      const batches = server.requests
        .map((request) => spec.inputsOf(request.body as Record<string, unknown>))
        .sort((a, b) => texts.indexOf(a[0]!) - texts.indexOf(b[0]!));
      assert.deepEqual(batches, [["alpha", "bravo!"], ["charlie", "delta"], ["echo echo"]]);
      for (const request of server.requests) {
        assert.equal(request.method, "POST");
        assert.equal(request.path, spec.path);
        assert.equal(request.headers.authorization, "Bearer sk-test-key-123");
        assert.equal(request.headers["content-type"], "application/json");
        const body = request.body as Record<string, unknown>;
        assert.equal(body.model, spec.model);
        for (const [field, value] of Object.entries(spec.expectedFields(inputType)))
          assert.deepEqual(body[field], value, `${field} for ${inputType}`);
        assert.equal(
          "dimensions" in body || "output_dimension" in body,
          false,
          "the dimension is only sent with EMBEDDER_SEND_DIMENSION",
        );
      }
    }
  });

  test(`${spec.provider}: without EMBEDDER_DIMENSION the dimension is learned by one probe at warm-up`, async (t) => {
    const { server, provider } = await startAdapter(t, spec, answering(spec), { EMBEDDER_DIMENSION: "" });
    assert.equal(provider.isReady(), false);
    assert.equal(provider.describe().dimension, 0);
    await provider.warm();
    assert.equal(provider.isReady(), true);
    assert.equal(provider.describe().dimension, 4);
    assert.equal(server.requests.length, 1);
    assert.equal(spec.inputsOf(server.requests[0]!.body as Record<string, unknown>).length, 1);
  });

  test(`${spec.provider}: EMBEDDER_SEND_DIMENSION asks the API for the configured dimension`, async (t) => {
    const { server, provider } = await startAdapter(t, spec, answering(spec), { EMBEDDER_SEND_DIMENSION: "true" });
    await provider.embed({ texts: ["one"], inputType: "document" });
    const body = server.requests[0]!.body as Record<string, unknown>;
    assert.equal(body[spec.provider === "voyage" ? "output_dimension" : "dimensions"], 4);
  });

  test(`${spec.provider}: a 4xx is not retried and names provider, model, status and a fixed cause, never the provider's words`, async (t) => {
    const { server, provider } = await startAdapter(t, spec, () => ({
      status: 400,
      json: { error: { message: "input too long", type: "invalid_request_error" } },
    }));
    await assert.rejects(
      provider.embed({ texts: ["x"], inputType: "document" }),
      providerError("PROVIDER_ERROR", new RegExp(`^${label} failed: HTTP 400 \\(request refused\\) after 1 attempt$`)),
    );
    assert.equal(server.requests.length, 1);
  });

  test(`${spec.provider}: a 5xx is retried EMBEDDER_MAX_RETRIES times, then fails naming the status and attempts`, async (t) => {
    const { server, provider } = await startAdapter(t, spec, () => ({ status: 502, body: "bad gateway" }));
    await assert.rejects(
      provider.embed({ texts: ["x"], inputType: "query" }),
      providerError(
        "PROVIDER_ERROR",
        new RegExp(`^${label} failed: HTTP 502 \\(provider unavailable\\) after 3 attempts$`),
      ),
    );
    assert.equal(server.requests.length, 3);
  });

  test(
    `${spec.provider}: a server that never answers is DEADLINE_EXCEEDED within EMBEDDER_TIMEOUT_MS`,
    { timeout: 30_000 },
    async (t) => {
      const { provider } = await startAdapter(t, spec, () => "hang", { EMBEDDER_TIMEOUT_MS: "200" });
      const started = performance.now();
      await assert.rejects(
        provider.embed({ texts: ["x"], inputType: "query" }),
        providerError("DEADLINE_EXCEEDED", new RegExp(`^${label} failed: no answer within 200 ms`)),
      );
      // A real timer against a real socket; timers never fire early, and a request never ended fails on the test's timeout.
      assert.ok(performance.now() - started >= 190, "not ended before its 200 ms budget");
    },
  );

  test(`${spec.provider}: a 429 is retried after the Retry-After wait`, async (t) => {
    const { server, provider, clock } = await startAdapter(t, spec, (request, index) =>
      index === 0
        ? { status: 429, headers: { "retry-after": "0.3" }, json: { error: "rate limited" } }
        : answering(spec)(request),
    );
    const [vector] = await provider.embed({ texts: ["again"], inputType: "query" });
    assert.deepEqual(Array.from(vector!), unit(rawVectorOf("again")));
    assert.equal(server.requests.length, 2);
    assert.deepEqual(clock.sleeps, [300], "one wait, of the 300 ms the provider asked for");
  });

  for (const [what, answer, pattern] of spec.malformed) {
    test(`${spec.provider}: an answer with ${what} is PROVIDER_ERROR`, async (t) => {
      const { server, provider } = await startAdapter(t, spec, (request) =>
        answer(spec.inputsOf(request.body as Record<string, unknown>).map(rawVectorOf)),
      );
      await assert.rejects(
        provider.embed({ texts: ["first", "second"], inputType: "document" }),
        providerError("PROVIDER_ERROR", new RegExp(`^${label} failed: ${pattern.source}`)),
      );
      assert.equal(server.requests.length, 1, "a malformed answer is not retried");
    });
  }
}

test("a failed dimension probe leaves the provider not ready, and a later probe recovers without a restart", async (t) => {
  let up = false;
  const server = await startRecordingHttpServer((request) =>
    up
      ? { json: { embeddings: (request.body as { input: string[] }).input.map(rawVectorOf) } }
      : { status: 503, json: { error: "model is loading" } },
  );
  t.after(() => server.close());
  const client = createHttpProviderClient({
    provider: "ollama",
    operation: "embeddings",
    model: "m",
    baseUrl: server.url,
    timeoutMs: 1000,
    maxRetries: 0,
    settingsPrefix: "EMBEDDER",
  });
  const provider: EmbeddingProvider = createHttpEmbeddingProvider({
    provider: "ollama",
    model: "m",
    api: createOllamaEmbeddingsApi(client, { model: "m", requestDimension: undefined }),
    dimension: undefined,
    batchSize: 8,
    concurrency: 1,
    reprobeDelayMs: 50,
  });
  t.after(() => provider.close());
  await assert.rejects(
    provider.warm(),
    providerError("PROVIDER_ERROR", /HTTP 503 \(provider unavailable\) after 1 attempt/),
  );
  assert.equal(provider.isReady(), false);
  up = true;
  await waitFor(() => provider.isReady(), { what: "the provider to become ready on a re-probe" });
  assert.equal(provider.describe().dimension, 4);
});

test("a call before the dimension is known waits for the probe and then embeds", async (t) => {
  const spec = adapters[0]!;
  const { server, provider } = await startAdapter(t, spec, answering(spec), { EMBEDDER_DIMENSION: "" });
  const vectors = await provider.embed({ texts: ["one", "two"], inputType: "document" });
  assert.equal(vectors.length, 2);
  assert.equal(provider.describe().dimension, 4);
  assert.equal(server.requests.length, 2, "one probe, one batch");
});
