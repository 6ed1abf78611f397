// Every HTTP rerank adapter against a local server speaking its API: requests asserted, answers good and bad.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger, isContextHubError } from "@context-hub/common";
import {
  createFakeClock,
  startRecordingHttpServer,
  type FakeAnswer,
  type RecordedRequest,
} from "@context-hub/common/testing";
import { loadRerankerConfig } from "../config.js";
import { createRerankProvider } from "../index.js";

const logger = createLogger("reranker-test", "silent");
type TestContext = { after(fn: () => Promise<void> | void): void };
type Body = Record<string, unknown>;

/** A deterministic score per passage, so a test can tell which passage a score belongs to. */
const scoreOf = (text: string) => text.length / 100;

interface AdapterSpec {
  provider: "cohere" | "voyage" | "tei";
  path: string;
  model: string;
  /** The API's answer for these scores, best first as the real APIs answer. */
  answer(scores: number[]): unknown;
  passagesOf(body: Body): string[];
  assertRequest(request: RecordedRequest, query: string): void;
  malformed: [string, (scores: number[]) => FakeAnswer, RegExp][];
}

const bestFirst = (scores: number[]) =>
  scores.map((score, index) => ({ index, score })).sort((left, right) => right.score - left.score);

const adapters: AdapterSpec[] = [
  {
    provider: "cohere",
    path: "/v1/rerank",
    model: "rerank-v3.5",
    answer: (scores) => ({
      id: "r-1",
      results: bestFirst(scores).map(({ index, score }) => ({ index, relevance_score: score })),
      meta: { api_version: { version: "1" } },
    }),
    passagesOf: (body) => body.documents as string[],
    assertRequest: (request, query) => {
      assert.equal(request.headers.authorization, "Bearer sk-test-key-123");
      const body = request.body as Body;
      assert.equal(body.model, "rerank-v3.5");
      assert.equal(body.query, query);
      assert.equal(body.top_n, (body.documents as string[]).length, "every passage is asked for");
      assert.equal("top_k" in body, false);
    },
    malformed: [
      [
        "no results",
        () => ({ json: { id: "r-1" } }),
        /malformed response: results: Invalid input: expected array, received undefined/,
      ],
      [
        "a score of the wrong type",
        (s) => ({ json: { results: s.map((score, index) => ({ index, relevance_score: String(score) })) } }),
        /malformed response: results\.0\.relevance_score: Invalid input: expected number, received string/,
      ],
      [
        "NaN in the body",
        (s) => ({ body: `{"results":[${s.map((_, index) => `{"index":${index},"relevance_score":NaN}`).join(",")}]}` }),
        /malformed response: HTTP 200 with a body that is not JSON/,
      ],
      [
        "one result too few",
        (s) => ({ json: { results: s.slice(1).map((score, index) => ({ index, relevance_score: score })) } }),
        /malformed response: 2 scores for 3 passages/,
      ],
      [
        "a duplicate index",
        (s) => ({ json: { results: s.map((score) => ({ index: 0, relevance_score: score })) } }),
        /malformed response: result index 0 appears twice/,
      ],
      [
        "an index out of range",
        (s) => ({ json: { results: s.map((score, index) => ({ index: index + 1, relevance_score: score })) } }),
        /malformed response: result index 3 is out of range for 3 passages/,
      ],
    ],
  },
  {
    provider: "voyage",
    path: "/v1/rerank",
    model: "rerank-2.5",
    answer: (scores) => ({
      object: "list",
      data: bestFirst(scores).map(({ index, score }) => ({ relevance_score: score, index })),
      model: "rerank-2.5",
      usage: { total_tokens: 120 },
    }),
    passagesOf: (body) => body.documents as string[],
    assertRequest: (request, query) => {
      assert.equal(request.headers.authorization, "Bearer sk-test-key-123");
      const body = request.body as Body;
      assert.deepEqual(
        Object.keys(body).sort(),
        ["documents", "model", "query", "top_k", "truncation"],
        "Voyage's fields, and no Cohere top_n",
      );
      assert.equal(body.model, "rerank-2.5");
      assert.equal(body.query, query);
      assert.equal(body.top_k, (body.documents as string[]).length, "every passage is asked for");
      assert.equal(body.truncation, true);
    },
    malformed: [
      [
        "Cohere's results list instead of data",
        (s) => ({ json: { results: s.map((score, index) => ({ index, relevance_score: score })) } }),
        /malformed response: data: Invalid input: expected array, received undefined/,
      ],
      [
        "a missing score",
        (s) => ({ json: { data: s.map((_, index) => ({ index })) } }),
        /malformed response: data\.0\.relevance_score: Invalid input: expected number, received undefined/,
      ],
      [
        "a body that is not JSON",
        () => ({ body: "upstream request timeout" }),
        /malformed response: HTTP 200 with a body that is not JSON$/,
      ],
      [
        "one result too few",
        (s) => ({ json: { data: s.slice(1).map((score, index) => ({ index, relevance_score: score })) } }),
        /malformed response: 2 scores for 3 passages/,
      ],
      [
        "a duplicate index",
        (s) => ({ json: { data: s.map((score) => ({ index: 2, relevance_score: score })) } }),
        /malformed response: result index 2 appears twice/,
      ],
    ],
  },
  {
    provider: "tei",
    path: "/rerank",
    model: "BAAI/bge-reranker-base",
    answer: (scores) => bestFirst(scores),
    passagesOf: (body) => body.texts as string[],
    assertRequest: (request, query) => {
      assert.equal(
        request.headers.authorization,
        "Bearer sk-test-key-123",
        "a key, when set, goes as a bearer token (TEI --api-key)",
      );
      const body = request.body as Body;
      assert.equal(body.query, query);
      assert.equal(body.raw_scores, false);
      assert.equal(body.truncate, true);
      assert.equal("model" in body, false, "TEI serves one model");
    },
    malformed: [
      [
        "an object instead of a list",
        () => ({ json: { error: "ok?" } }),
        /malformed response: \(body\): Invalid input: expected array, received object/,
      ],
      [
        "a missing score",
        (s) => ({ json: s.map((_, index) => ({ index })) }),
        /malformed response: 0\.score: Invalid input: expected number, received undefined/,
      ],
      [
        "NaN in the body",
        (s) => ({ body: `[${s.map((_, index) => `{"index":${index},"score":NaN}`).join(",")}]` }),
        /malformed response: HTTP 200 with a body that is not JSON/,
      ],
      [
        "one result too many",
        (s) => ({ json: [...bestFirst(s), { index: 0, score: 1 }] }),
        /malformed response: 4 scores for 3 passages/,
      ],
      [
        "a negative index",
        (s) => ({ json: s.map((score, index) => ({ index: index - 1, score })) }),
        /malformed response: 0\.index: Too small: expected number to be >=0/,
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
  const config = loadRerankerConfig({
    RERANKER_PROVIDER: spec.provider,
    RERANKER_BASE_URL: server.url,
    RERANKER_API_KEY: "sk-test-key-123",
    RERANKER_MODEL: spec.model,
    RERANKER_TIMEOUT_MS: "3000",
    RERANKER_MAX_RETRIES: "2",
    ...env,
  });
  // Waits between attempts pass on a fake clock: tests read the waits asked for instead of timing them.
  const clock = createFakeClock();
  return { server, provider: createRerankProvider(config, logger, clock), clock };
}

const answering =
  (spec: AdapterSpec) =>
  (request: RecordedRequest): FakeAnswer => ({ json: spec.answer(spec.passagesOf(request.body as Body).map(scoreOf)) });

const providerError = (code: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(isContextHubError(error), `expected a ContextHubError, got ${String(error)}`);
  assert.equal(error.code, code);
  assert.match(error.message, pattern);
  assert.doesNotMatch(error.message, /sk-test-key-123/);
  return true;
};

const query = "why are postgres queries slow";
const passages = ["a", "bb bb", "ccc ccc ccc", "dddd dddd dddd dddd", "eeeee"];

for (const spec of adapters) {
  const label = `${spec.provider} rerank \\(model ${spec.model.replace(/[./]/g, "\\$&")}\\)`;

  test(`${spec.provider}: every passage gets its own score in passage order, across batches of RERANKER_BATCH_SIZE`, async (t) => {
    const { server, provider } = await startAdapter(t, spec, answering(spec), { RERANKER_BATCH_SIZE: "2" });
    assert.deepEqual(provider.describe(), { provider: spec.provider, model: spec.model });
    assert.equal(provider.isReady(), true, "an HTTP provider is ready at start");
    assert.deepEqual(await provider.score(query, passages), passages.map(scoreOf));
    assert.equal(server.requests.length, 3);
    const batches = server.requests
      .map((request) => spec.passagesOf(request.body as Body))
      .sort((a, b) => passages.indexOf(a[0]!) - passages.indexOf(b[0]!));
    assert.deepEqual(batches, [["a", "bb bb"], ["ccc ccc ccc", "dddd dddd dddd dddd"], ["eeeee"]]);
    for (const request of server.requests) {
      assert.equal(request.method, "POST");
      assert.equal(request.path, spec.path);
      assert.equal(request.headers["content-type"], "application/json");
      spec.assertRequest(request, query);
    }
  });

  test(`${spec.provider}: a 4xx is not retried and names provider, model, status and a fixed cause, never the provider's words`, async (t) => {
    const { server, provider } = await startAdapter(t, spec, () => ({
      status: 413,
      json: { error: "batch size 5 > maximum allowed batch size 4", error_type: "Validation" },
    }));
    await assert.rejects(
      provider.score(query, passages),
      providerError(
        "PROVIDER_ERROR",
        new RegExp(`^${label} failed: HTTP 413 \\(request too large\\) after 1 attempt$`),
      ),
    );
    assert.equal(server.requests.length, 1);
  });

  test(`${spec.provider}: a 5xx is retried RERANKER_MAX_RETRIES times, then fails naming the status and attempts`, async (t) => {
    const { server, provider } = await startAdapter(t, spec, () => ({
      status: 500,
      json: { message: "internal server error" },
    }));
    await assert.rejects(
      provider.score(query, ["x"]),
      providerError("PROVIDER_ERROR", new RegExp(`^${label} failed: HTTP 500 \\(provider error\\) after 3 attempts$`)),
    );
    assert.equal(server.requests.length, 3);
  });

  test(
    `${spec.provider}: a server that never answers is DEADLINE_EXCEEDED within RERANKER_TIMEOUT_MS`,
    { timeout: 30_000 },
    async (t) => {
      const { provider } = await startAdapter(t, spec, () => "hang", { RERANKER_TIMEOUT_MS: "200" });
      const started = performance.now();
      await assert.rejects(
        provider.score(query, ["x"]),
        providerError("DEADLINE_EXCEEDED", new RegExp(`^${label} failed: no answer within 200 ms`)),
      );
      // A real timer against a real socket; timers never fire early, and a request never ended fails on the test's timeout.
      assert.ok(performance.now() - started >= 190, "not ended before its 200 ms budget");
    },
  );

  test(`${spec.provider}: a 429 is retried after the Retry-After wait`, async (t) => {
    const { server, provider, clock } = await startAdapter(t, spec, (request, index) =>
      index === 0
        ? { status: 429, headers: { "retry-after": "0.3" }, json: { message: "too many requests" } }
        : answering(spec)(request),
    );
    assert.deepEqual(await provider.score(query, ["one", "three"]), [scoreOf("one"), scoreOf("three")]);
    assert.equal(server.requests.length, 2);
    assert.deepEqual(clock.sleeps, [300], "one wait, of the 300 ms the provider asked for");
  });

  for (const [what, answer, pattern] of spec.malformed) {
    test(`${spec.provider}: an answer with ${what} is PROVIDER_ERROR`, async (t) => {
      const { server, provider } = await startAdapter(t, spec, (request) =>
        answer(spec.passagesOf(request.body as Body).map(scoreOf)),
      );
      await assert.rejects(
        provider.score(query, ["one", "two!", "three"]),
        providerError("PROVIDER_ERROR", new RegExp(`^${label} failed: ${pattern.source}`)),
      );
      assert.equal(server.requests.length, 1, "a malformed answer is not retried");
    });
  }
}
