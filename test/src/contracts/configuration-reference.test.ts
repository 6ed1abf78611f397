// docs/configuration.md is what the generator makes of the services' config schemas, byte for byte, and every variable in it is described.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../../../..");

interface Generator {
  referencePath: string;
  fixCommand: string;
  renderConfigurationReference(): Promise<string>;
  definedVariables(): Promise<Map<string, string[]>>;
}

const generator = (await import(pathToFileURL(join(root, "scripts/configuration-reference.js")).href)) as Generator;

test("docs/configuration.md is what the config schemas generate", async () => {
  const expected = await generator.renderConfigurationReference();
  const actual = readFileSync(generator.referencePath, "utf8");
  assert.ok(
    actual === expected,
    `docs/configuration.md differs from the config schemas: run \`${generator.fixCommand}\` and commit the result`,
  );
});

test("the generator is deterministic", async () => {
  assert.equal(await generator.renderConfigurationReference(), await generator.renderConfigurationReference());
});

test("the reference lists every service and the variables each reads, tracing's included", async () => {
  const defined = await generator.definedVariables();
  assert.deepEqual(
    [...defined.keys()],
    ["Every service", "Gateway", "Store", "Embedder", "Summarizer", "Reranker", "The context-hub command"],
  );
  const every = defined.get("Every service") ?? [];
  for (const name of [
    "LOG_LEVEL",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_SERVICE_NAME",
    "OTEL_SDK_DISABLED",
  ])
    assert.ok(every.includes(name), name);
  assert.ok(defined.get("Gateway")?.includes("GATEWAY_RERANK_TIMEOUT_MS"));
  assert.ok(defined.get("Store")?.includes("STORE_SEARCH_LANGUAGE"), "the search variables are part of the store's");
  assert.ok(defined.get("The context-hub command")?.includes("CONTEXT_HUB_TOKEN"));
  // A variable is listed once: the shared ones only under "Every service".
  for (const [title, names] of defined)
    if (title !== "Every service") assert.equal(names.includes("LOG_LEVEL"), false, title);
});
