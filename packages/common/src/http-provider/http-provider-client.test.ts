import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { isContextHubError, type ContextHubError } from "../errors.js";
import { createLogger } from "../logger.js";
import { runWithRequestContext } from "../request-context.js";
import { createHttpProviderClient, joinProviderUrl, type HttpProviderClientOptions } from "./http-provider-client.js";
import { loggedBodyChars, networkCause, statusCause, toBodyExcerpt } from "./provider-wording.js";
import { startRecordingHttpServer, type FakeAnswer } from "../testing/recording-http-server.js";
import { createFakeClock } from "../testing/fake-clock.js";

const answerSchema = z.object({ value: z.number() });

async function setup(
  t: { after(fn: () => Promise<void>): void },
  answers: (index: number) => FakeAnswer,
  options: Partial<HttpProviderClientOptions> = {},
) {
  const server = await startRecordingHttpServer((_request, index) => answers(index));
  t.after(() => server.close());
  // Waits between attempts pass on a fake clock, so a test reads the waits asked for instead of timing them.
  const clock = createFakeClock();
  const client = createHttpProviderClient({
    provider: "acme",
    operation: "things",
    model: "acme-1",
    baseUrl: server.url,
    headers: { authorization: "Bearer sk-test-secret" },
    secrets: ["sk-test-secret"],
    timeoutMs: 2000,
    maxRetries: 2,
    settingsPrefix: "EMBEDDER",
    backoffBaseMs: 10,
    now: clock.now,
    sleep: clock.sleep,
    ...options,
  });
  return { server, client, clock };
}

const isError = (code: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(isContextHubError(error), `expected a ContextHubError, got ${String(error)}`);
  assert.equal(error.code, code);
  assert.match(error.message, pattern);
  assert.doesNotMatch(error.message, /sk-test-secret/);
  return true;
};

test("a good answer is parsed and validated; the request carries JSON and the headers", async (t) => {
  const { server, client } = await setup(t, () => ({ json: { value: 42, extra: "ignored" } }));
  assert.deepEqual(await client.postJson("/v1/things", { hello: "world" }, answerSchema), { value: 42 });
  const [request] = server.requests;
  assert.equal(request!.method, "POST");
  assert.equal(request!.path, "/v1/things");
  assert.equal(request!.headers["content-type"], "application/json");
  assert.equal(request!.headers.authorization, "Bearer sk-test-secret");
  assert.deepEqual(request!.body, { hello: "world" });
});

test("5xx is retried up to maxRetries, then fails naming provider, model, status, a fixed cause and attempts", async (t) => {
  const { server, client } = await setup(t, () => ({
    status: 503,
    json: { error: { message: "overloaded, key sk-test-secret" } },
  }));
  await assert.rejects(
    client.postJson("/v1/things", {}, answerSchema),
    isError(
      "PROVIDER_ERROR",
      /^acme things \(model acme-1\) failed: HTTP 503 \(provider unavailable\) after 3 attempts$/,
    ),
  );
  assert.equal(server.requests.length, 3);
});

test("a 5xx followed by success returns the success", async (t) => {
  const { server, client } = await setup(t, (index) =>
    index === 0 ? { status: 500, body: "oops" } : { json: { value: 1 } },
  );
  assert.deepEqual(await client.postJson("/v1/things", {}, answerSchema), { value: 1 });
  assert.equal(server.requests.length, 2);
});

test("4xx other than 429 is not retried, and the remedy names the variable to check", async (t) => {
  const { server, client } = await setup(t, () => ({ status: 401, json: { error: "invalid api key" } }));
  await assert.rejects(client.postJson("/v1/things", {}, answerSchema), (error: ContextHubError) => {
    isError("PROVIDER_ERROR", /HTTP 401 \(authentication failed\) after 1 attempt$/)(error);
    assert.equal(error.remedy, "check EMBEDDER_API_KEY");
    assert.deepEqual(error.details, {
      provider: "acme",
      model: "acme-1",
      attempts: 1,
      status: 401,
      cause: "authentication failed",
    });
    return true;
  });
  assert.equal(server.requests.length, 1);
});

test("429 waits for Retry-After before the next attempt", async (t) => {
  const { server, client, clock } = await setup(t, (index) =>
    index === 0
      ? { status: 429, headers: { "retry-after": "0.2" }, json: { error: "slow down" } }
      : { json: { value: 7 } },
  );
  assert.deepEqual(await client.postJson("/v1/things", {}, answerSchema), { value: 7 });
  assert.equal(server.requests.length, 2);
  assert.deepEqual(clock.sleeps, [200], "one wait, of the 200 ms the provider asked for");
});

test("a Retry-After longer than the time left fails at once instead of waiting", async (t) => {
  const { server, client, clock } = await setup(
    t,
    () => ({ status: 429, headers: { "retry-after": "10" }, body: "" }),
    { timeoutMs: 1000, maxRetryAfterMs: 60_000 },
  );
  await assert.rejects(
    client.postJson("/v1/things", {}, answerSchema),
    isError(
      "PROVIDER_ERROR",
      /HTTP 429 \(rate limited\) after 1 attempt; the 10000 ms Retry-After wait would pass the 1000 ms timeout$/,
    ),
  );
  assert.deepEqual(clock.sleeps, [], "no wait at all");
  assert.equal(server.requests.length, 1);
});

test("a Retry-After longer than the client may wait fails at once, naming the wait asked for, instead of retrying early", async (t) => {
  for (const headers of [{ "retry-after": "60" }, { "retry-after-ms": "60000" }] as Record<string, string>[]) {
    const { server, client, clock } = await setup(
      t,
      () => ({ status: 429, headers, json: { error: "quota exceeded" } }),
      {
        timeoutMs: 120_000,
      },
    );
    await assert.rejects(client.postJson("/v1/things", {}, answerSchema), (error: ContextHubError) => {
      isError(
        "PROVIDER_ERROR",
        /HTTP 429 \(rate limited\) after 1 attempt; the 60000 ms Retry-After wait is longer than the 30000 ms a retry may wait$/,
      )(error);
      assert.equal(error.remedy, "the provider asked to wait 60000 ms before trying again; retry after that");
      assert.deepEqual(error.details, {
        provider: "acme",
        model: "acme-1",
        attempts: 1,
        status: 429,
        cause: "rate limited",
        retry_after_ms: 60000,
      });
      return true;
    });
    assert.deepEqual(clock.sleeps, [], "no wait at all");
    assert.equal(server.requests.length, 1, "no retry before the time the provider asked for");
  }
});

test("maxRetryAfterMs bounds the Retry-After the client honours; a 503 with one is treated alike", async (t) => {
  const { server, client } = await setup(t, () => ({ status: 503, headers: { "retry-after": "0.3" }, body: "" }), {
    maxRetryAfterMs: 100,
  });
  await assert.rejects(
    client.postJson("/v1/things", {}, answerSchema),
    isError(
      "PROVIDER_ERROR",
      /HTTP 503 \(provider unavailable\) after 1 attempt; the 300 ms Retry-After wait is longer than the 100 ms a retry may wait$/,
    ),
  );
  assert.equal(server.requests.length, 1);
});

test("the backoff waits what the injected random draws, within the exponential step and its cap", async (t) => {
  const draws = [0.5, 0.999, 0.999];
  const asked: number[] = [];
  const random = () => {
    const draw = draws[asked.length] ?? 0;
    asked.push(draw);
    return draw;
  };
  const { server, client, clock } = await setup(t, () => ({ status: 503, body: "busy" }), {
    maxRetries: 3,
    backoffBaseMs: 200,
    backoffCapMs: 500,
    timeoutMs: 10_000,
    random,
  });
  await assert.rejects(
    client.postJson("/v1/things", {}, answerSchema),
    isError("PROVIDER_ERROR", /HTTP 503 \(provider unavailable\) after 4 attempts$/),
  );
  assert.equal(asked.length, 3, "one draw per wait");
  assert.equal(server.requests.length, 4);
  // Steps of 200, 400 and 800 ms, the last capped at 500: 0.5·200, 0.999·400 and 0.999·500 (an uncapped third would be 799).
  assert.deepEqual(clock.sleeps, [100, 399, 499]);
});

// The per-attempt deadline is a real timer against a real socket: what is tested is that time passing ends the request.
test(
  "a server that sends headers and then stalls the body is DEADLINE_EXCEEDED within the timeout",
  { timeout: 30_000 },
  async (t) => {
    const { server, client } = await setup(
      t,
      () => ({ body: '{"value":', headers: { "content-type": "application/json" }, stall: true }),
      { timeoutMs: 200 },
    );
    const started = performance.now();
    await assert.rejects(
      client.postJson("/v1/things", {}, answerSchema),
      isError("DEADLINE_EXCEEDED", /acme things \(model acme-1\) failed: no answer within 200 ms \(1 attempt\)/),
    );
    // Timers never fire early: the request was given its whole budget (a hang fails on the test's own timeout).
    assert.ok(performance.now() - started >= 190, "not ended before its 200 ms budget");
    assert.equal(server.requests.length, 1, "the budget is spent, so there is no retry");
  },
);

test("a server that never answers is DEADLINE_EXCEEDED within the timeout", { timeout: 30_000 }, async (t) => {
  const { client } = await setup(t, () => "hang", { timeoutMs: 150 });
  const started = performance.now();
  await assert.rejects(
    client.postJson("/v1/things", {}, answerSchema),
    isError("DEADLINE_EXCEEDED", /acme things \(model acme-1\) failed: no answer within 150 ms \(1 attempt\)/),
  );
  assert.ok(performance.now() - started >= 140, "not ended before its 150 ms budget");
});

test("the caller's abort stops the request as DEADLINE_EXCEEDED", async (t) => {
  const controller = new AbortController();
  // The caller gives up once the request is on the wire and the server is sitting on it.
  const { client } = await setup(t, () => {
    controller.abort();
    return "hang";
  });
  await assert.rejects(
    client.postJson("/v1/things", {}, answerSchema, controller.signal),
    isError("DEADLINE_EXCEEDED", /the caller's deadline passed or it cancelled/),
  );
});

test("network errors are retried, then reported with a fixed cause", async (t) => {
  const { server } = await setup(t, () => ({ json: {} }));
  await server.close();
  const client = createHttpProviderClient({
    provider: "acme",
    operation: "things",
    model: "acme-1",
    baseUrl: server.url,
    timeoutMs: 2000,
    maxRetries: 1,
    settingsPrefix: "RERANKER",
    backoffBaseMs: 5,
  });
  await assert.rejects(
    client.postJson("/v1/things", {}, answerSchema),
    isError("PROVIDER_ERROR", /failed: network error \(connection refused\) after 2 attempts$/),
  );
});

test("an answer that is not JSON or does not match the schema is PROVIDER_ERROR, not retried", async (t) => {
  for (const [answer, pattern] of [
    [{ body: "<html>gateway</html>" }, /malformed response: HTTP 200 with a body that is not JSON$/],
    [{ body: '{"value": NaN}' }, /malformed response: HTTP 200 with a body that is not JSON/],
    [{ json: { value: "7" } }, /malformed response: value: Invalid input: expected number, received string/],
    [{ json: [] }, /malformed response: \(body\): Invalid input: expected object, received array/],
  ] as const) {
    const { server, client } = await setup(t, () => answer);
    await assert.rejects(client.postJson("/v1/things", {}, answerSchema), isError("PROVIDER_ERROR", pattern));
    assert.equal(server.requests.length, 1);
  }
});

test("joinProviderUrl keeps path prefixes and queries and does not double /v1", () => {
  assert.equal(
    joinProviderUrl("https://api.openai.com", "/v1/embeddings").href,
    "https://api.openai.com/v1/embeddings",
  );
  assert.equal(
    joinProviderUrl("https://api.openai.com/v1/", "/v1/embeddings").href,
    "https://api.openai.com/v1/embeddings",
  );
  assert.equal(
    joinProviderUrl("https://gw.example/openai?api-version=2024", "/v1/embeddings").href,
    "https://gw.example/openai/v1/embeddings?api-version=2024",
  );
  assert.equal(joinProviderUrl("http://tei:8080/", "/rerank").href, "http://tei:8080/rerank");
});

test("body excerpts prefer the error message field and stay short", () => {
  assert.equal(
    toBodyExcerpt('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    "Overloaded",
  );
  assert.equal(toBodyExcerpt('{"detail":"bad model"}'), "bad model");
  assert.equal(toBodyExcerpt("x".repeat(1000), 300).length, 301);
  assert.equal(toBodyExcerpt("x".repeat(5000)).length, loggedBodyChars + 1);
});

test("what the provider said reaches the log, bounded and redacted, under the request id, and never the caller", async (t) => {
  const lines: string[] = [];
  const logger = createLogger("embedder", "info", { write: (line) => void lines.push(line) });
  const leaked = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c";
  const body = {
    error: {
      message: `Incorrect API key provided: ${leaked}. Internal host 10.2.3.4 said: ${"y".repeat(5_000)}`,
      type: "invalid_request_error",
    },
  };
  const { client } = await setup(t, () => ({ status: 401, json: body }), { logger });
  const error = await runWithRequestContext({ requestId: "req-provider-1" }, () =>
    client.postJson("/v1/things", {}, answerSchema).then(
      () => assert.fail("the call should fail"),
      (caught: unknown) => caught as ContextHubError,
    ),
  );
  assert.equal(error.message, "acme things (model acme-1) failed: HTTP 401 (authentication failed) after 1 attempt");
  assert.doesNotMatch(
    JSON.stringify({ message: error.message, remedy: error.remedy, details: error.details }),
    /sk-live|10\.2\.3\.4|Incorrect API key/,
  );

  const logged = lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((line) => line.provider_said !== undefined);
  assert.ok(logged, `a log line carries the provider's answer: ${lines.join("")}`);
  assert.equal(logged.requestId, "req-provider-1");
  assert.equal(logged.status, 401);
  assert.equal(logged.msg, "acme things (model acme-1) failed: HTTP 401 (authentication failed) after 1 attempt");
  const said = String(logged.provider_said);
  assert.ok(
    said.startsWith(`Incorrect API key provided: ${leaked}. Internal host 10.2.3.4 said: yyy`),
    said.slice(0, 120),
  );
  assert.equal(said.length, loggedBodyChars + 1, "bounded");

  // The client's own key is redacted even in the log.
  lines.length = 0;
  const echo = await setup(t, () => ({ status: 400, body: "bad request for Bearer sk-test-secret" }), { logger });
  await assert.rejects(
    echo.client.postJson("/v1/things", {}, answerSchema),
    isError("PROVIDER_ERROR", /HTTP 400 \(request refused\) after 1 attempt$/),
  );
  assert.match(lines.join(""), /bad request for Bearer \[redacted\]/);
  assert.doesNotMatch(lines.join(""), /sk-test-secret/);
});

test("every status and socket failure maps to a fixed phrase", () => {
  assert.deepEqual([400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504, 529, 418, 599, 302].map(statusCause), [
    "request refused",
    "authentication failed",
    "permission denied",
    "model or endpoint not found",
    "request timed out",
    "request too large",
    "request refused",
    "rate limited",
    "provider error",
    "provider unavailable",
    "provider unavailable",
    "provider unavailable",
    "provider overloaded",
    "request refused",
    "provider error",
    "unexpected answer",
  ]);
  const socket = (code: string) =>
    Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error(`${code} 10.0.0.5:443`), { code }) });
  assert.deepEqual(
    [
      "ECONNREFUSED",
      "ENOTFOUND",
      "ECONNRESET",
      "UND_ERR_CONNECT_TIMEOUT",
      "CERT_HAS_EXPIRED",
      "ERR_TLS_CERT_ALTNAME_INVALID",
      "EWHATEVER",
    ].map((code) => networkCause(socket(code))),
    [
      "connection refused",
      "host not found",
      "connection reset",
      "connection timed out",
      "TLS error",
      "TLS error",
      "network error",
    ],
  );
});
