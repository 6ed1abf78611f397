import { test } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { resolveHttpProviderSettings, toSecret } from "./provider-config.js";

const raw = { baseUrl: "", apiKey: "", model: "m", timeoutMs: 1000, maxRetries: 2 };
const resolve = (overrides: Partial<typeof raw>, requirements: Parameters<typeof resolveHttpProviderSettings>[3]) => {
  const problems: string[] = [];
  const settings = resolveHttpProviderSettings(
    "EMBEDDER",
    "openai",
    { ...raw, ...overrides },
    requirements,
    (variable, message) => problems.push(`${variable}: ${message}`),
  );
  return { settings, problems };
};

test("the default base URL applies, and a hosted API there needs a key", () => {
  const hosted = { defaultBaseUrl: "https://api.openai.com", apiKey: "with-default-base-url" } as const;
  assert.deepEqual(resolve({}, hosted).problems, [
    "EMBEDDER_API_KEY: required when EMBEDDER_PROVIDER is openai at https://api.openai.com",
  ]);
  const withKey = resolve({ apiKey: "sk-secret-value" }, hosted).settings!;
  assert.equal(withKey.baseUrl, "https://api.openai.com");
  assert.equal(withKey.apiKey!.reveal(), "sk-secret-value");
  for (const baseUrl of ["https://api.openai.com/", "https://api.openai.com/v1", " https://api.openai.com "]) {
    assert.equal(resolve({ baseUrl }, hosted).problems.length, 1, `${baseUrl} is the hosted API too`);
  }
  assert.deepEqual(
    resolve({ baseUrl: "http://vllm:8000" }, hosted).problems,
    [],
    "a self-hosted server at another address needs no key",
  );
});

test("model and base URL are checked, each problem naming its variable", () => {
  assert.deepEqual(resolve({ model: " ", baseUrl: "ftp://x" }, { apiKey: "never" }).problems, [
    "EMBEDDER_MODEL: required when EMBEDDER_PROVIDER is openai",
    "EMBEDDER_BASE_URL: expected an http:// or https:// URL",
  ]);
  assert.deepEqual(resolve({}, { apiKey: "never" }).problems, [
    "EMBEDDER_BASE_URL: required when EMBEDDER_PROVIDER is openai",
  ]);
});

test("a secret never shows in strings, JSON or inspect output", () => {
  const secret = toSecret("sk-very-secret");
  const holder = { apiKey: secret };
  assert.equal(`${secret}`, "[redacted]");
  assert.doesNotMatch(JSON.stringify(holder), /very-secret/);
  assert.doesNotMatch(inspect(holder, { depth: 5 }), /very-secret/);
  assert.equal(secret.reveal(), "sk-very-secret");
});
