/**
 * The chart against the services' own configuration loaders: the environment
 * every scenario renders (Secrets filled in as an operator would) is loaded by
 * `loadGatewayConfig`, `loadEmbedderConfig`, … from the built services, and the
 * values reach the settings they are meant to. A misspelt variable, a value
 * the service rejects or a setting that lands nowhere fails here without
 * starting any process.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import {
  componentName,
  mustFind,
  podSpecOf,
  render,
  repoRoot,
  scenarios,
  type Container,
  type KubeObject,
} from "./chart.js";

/** What the tests read of each loader's result; the loaders' own types live in the services. */
interface GatewaySettings {
  auth: {
    methods: string[];
    keyCacheMs: number;
    localPrincipal: { tenant: string; subject: string };
    oidc?: {
      tenant: { claim: string } | { fixed: string };
      algorithms: string[];
      clockSkewSeconds: number;
      jwksCacheMs: number;
      jwksCooldownMs: number;
      httpTimeoutMs: number;
    };
  };
  summariesEnabled: boolean;
  rateLimits: {
    read: { perMinute: number; burst: number };
    write: { perMinute: number; burst: number };
    authFailures: { perMinute: number; burst: number };
  };
  trustedProxies: string[];
  maxReadBodyBytes: number;
  disabledTools: string[];
  instructions: string | undefined;
  allowedOrigins: string[];
  maxBodyBytes: number;
  timeouts: { storeMs: number; embedMs: number; summaryMs: number; sectionSummaryMs: number; rerankMs: number };
}
interface StoreSettings {
  vectors: { kind: string; qdrant?: { url: string; apiKey: string; collection: string } };
  idempotency: { ttlMs: number };
}
interface WorkerSettings {
  provider: string;
  http?: { baseUrl: string; model: string; apiKey?: unknown; dimension?: number };
}
type Loader<T> = (env: NodeJS.ProcessEnv) => T;

const loaders = {
  gateway: { path: "services/gateway/dist/config.js", name: "loadGatewayConfig" },
  store: { path: "services/store/dist/config.js", name: "loadStoreConfig" },
  embedder: { path: "services/embedder/dist/config.js", name: "loadEmbedderConfig" },
  summarizer: { path: "services/summarizer/dist/config.js", name: "loadSummarizerConfig" },
  reranker: { path: "services/reranker/dist/config.js", name: "loadRerankerConfig" },
} as const;
type Service = keyof typeof loaders;

const missing = Object.values(loaders)
  .map((loader) => loader.path)
  .filter((path) => !existsSync(join(repoRoot, path)));

async function loaderOf<T>(service: Service): Promise<Loader<T>> {
  const { path, name } = loaders[service];
  const module = (await import(pathToFileURL(join(repoRoot, path)).href)) as Record<string, unknown>;
  const loader = module[name];
  assert.equal(typeof loader, "function", `${path} exports ${name}`);
  return loader as Loader<T>;
}

/** A value of the right shape for each Secret key the chart refers to. */
function secretValue(variable: string): string {
  if (variable === "DATABASE_URL") return "postgres://contexthub:secret@db.example.com:5432/contexthub";
  return `${variable.toLowerCase()}-from-secret`;
}

/**
 * The environment a kubelet would give the container, with every Secret the
 * chart names holding what docs/deploy.md says it holds: a provider Secret
 * holds the worker's API key, secretKeyRefs get a value of the right shape.
 */
function environmentOf(service: string, container: Container): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  if ((container.envFrom ?? []).some((source) => source.secretRef !== undefined))
    env[`${service.toUpperCase()}_API_KEY`] = "provider-key-from-secret";
  for (const variable of container.env ?? []) {
    env[variable.name] =
      variable.value ?? (variable.valueFrom?.secretKeyRef !== undefined ? secretValue(variable.name) : undefined);
  }
  return env;
}

function containerOf(objects: readonly KubeObject[], service: string): Container {
  const container = podSpecOf(mustFind(objects, "Deployment", componentName(service)))?.containers.find(
    (candidate) => candidate.name === service,
  );
  assert.ok(container, `${service} container`);
  return container;
}

describe(
  "every scenario's rendered environment is accepted by the services' own configuration loaders",
  { skip: missing.length > 0 ? `not built yet: ${missing.join(", ")}` : false },
  () => {
    const rendered = new Map(scenarios().map((scenario) => [scenario, render(scenario)]));
    const objectsOf = (scenario: string) => rendered.get(scenario) ?? assert.fail(`no render of ${scenario}`);

    test("each of the five services loads its configuration from every scenario without an error", async () => {
      for (const service of Object.keys(loaders) as Service[]) {
        const load = await loaderOf<unknown>(service);
        for (const [scenario, objects] of rendered) {
          assert.doesNotThrow(
            () => load(environmentOf(service, containerOf(objects, service))),
            `${scenario}: ${service}`,
          );
        }
      }
    });

    test("and the check can fail: a value the gateway rejects is reported", async () => {
      const load = await loaderOf<GatewaySettings>("gateway");
      const container = containerOf(objectsOf("minimal"), "gateway");
      const env = { ...environmentOf("gateway", container), CONTEXT_HUB_INSTRUCTIONS: "x".repeat(16_385) };
      assert.throws(() => load(env), /CONTEXT_HUB_INSTRUCTIONS/);
    });

    test("the gateway's settings from values are the ones it runs with", async () => {
      const load = await loaderOf<GatewaySettings>("gateway");
      const tuned = load(environmentOf("gateway", containerOf(objectsOf("single-tenant-self-hosted"), "gateway")));
      assert.deepEqual(tuned.auth.methods, ["oidc"]);
      assert.deepEqual(tuned.auth.oidc?.tenant, { fixed: "acme" });
      assert.deepEqual(tuned.auth.oidc?.algorithms, ["RS256", "ES256"]);
      assert.equal(tuned.auth.oidc?.clockSkewSeconds, 60);
      assert.equal(tuned.auth.oidc?.jwksCacheMs, 300_000);
      assert.equal(tuned.auth.oidc?.jwksCooldownMs, 30_000);
      assert.equal(tuned.auth.oidc?.httpTimeoutMs, 5_000);
      // The write burst is left null in the scenario, so the gateway's default applies.
      assert.deepEqual(tuned.rateLimits, {
        read: { perMinute: 1200, burst: 300 },
        write: { perMinute: 240, burst: 60 },
        authFailures: { perMinute: 20, burst: 60 },
      });
      assert.deepEqual(tuned.disabledTools, ["delete_context_batch", "get_audit_log"]);
      assert.match(tuned.instructions ?? "", /^Acme's shared memory\./);
      assert.deepEqual(tuned.allowedOrigins, ["https://chat.acme.example"]);
      assert.equal(tuned.maxBodyBytes, 16 * 1024 * 1024);
      assert.equal(tuned.maxReadBodyBytes, 256 * 1024);
      assert.deepEqual(tuned.trustedProxies, ["10.42.0.0/16"]);
      assert.deepEqual(tuned.timeouts, {
        storeMs: 15_000,
        embedMs: 60_000,
        summaryMs: 90_000,
        sectionSummaryMs: 10_000,
        rerankMs: 8_000,
      });
      assert.equal(tuned.summariesEnabled, true);

      const claimed = load(environmentOf("gateway", containerOf(objectsOf("oidc"), "gateway")));
      assert.deepEqual(claimed.auth.oidc?.tenant, { claim: "org" });
      assert.equal(claimed.auth.keyCacheMs, 5_000);
      assert.equal(claimed.instructions, undefined, "empty instructions mean the built-in text");

      const local = load(
        environmentOf(
          "gateway",
          containerOf(
            render("in-cluster-databases", { set: ["auth.localPrincipal.tenant=lab", "gateway.summaries=false"] }),
            "gateway",
          ),
        ),
      );
      assert.deepEqual(local.auth.localPrincipal, { tenant: "lab", subject: "local" });
      assert.equal(local.summariesEnabled, false);
    });

    test("the store runs the vector backend from values: pgvector by default, Qdrant at the configured URL and collection with the key from its Secret", async () => {
      const load = await loaderOf<StoreSettings>("store");
      const vectorsOf = (scenario: string) =>
        load(environmentOf("store", containerOf(objectsOf(scenario), "store"))).vectors;
      for (const scenario of ["minimal", "oidc", "ha", "single-tenant-self-hosted"])
        assert.deepEqual(vectorsOf(scenario), { kind: "pgvector", qdrant: undefined }, scenario);
      const external = vectorsOf("external-postgres-qdrant");
      assert.equal(external.kind, "qdrant");
      assert.deepEqual(
        { url: external.qdrant?.url, apiKey: external.qdrant?.apiKey, collection: external.qdrant?.collection },
        {
          url: "http://qdrant.vector.svc.cluster.local:6333",
          apiKey: secretValue("STORE_QDRANT_API_KEY"),
          collection: "acme_context_chunks",
        },
      );
      const inChart = vectorsOf("in-cluster-databases");
      assert.equal(inChart.kind, "qdrant");
      assert.deepEqual(
        { url: inChart.qdrant?.url, apiKey: inChart.qdrant?.apiKey, collection: inChart.qdrant?.collection },
        { url: `http://${componentName("qdrant")}:6333`, apiKey: "", collection: "context_hub_chunks" },
      );
    });

    test("the store keeps idempotency keys for the window from values: a day by default", async () => {
      const load = await loaderOf<StoreSettings>("store");
      assert.equal(
        load(environmentOf("store", containerOf(objectsOf("minimal"), "store"))).idempotency.ttlMs,
        86_400_000,
      );
      const tuned = render("minimal", { set: ["store.idempotencyTtlSeconds=3600"] });
      assert.equal(load(environmentOf("store", containerOf(tuned, "store"))).idempotency.ttlMs, 3_600_000);
    });

    test("each worker runs the provider, model, address and dimension from values, with the key only from its Secret", async () => {
      const expectations: Array<[string, Service, string, string, string, number | undefined, boolean]> = [
        [
          "external-postgres-qdrant",
          "embedder",
          "openai",
          "text-embedding-3-small",
          "https://llm-gateway.example.com/openai/v1",
          1536,
          true,
        ],
        [
          "external-postgres-qdrant",
          "summarizer",
          "anthropic",
          "claude-haiku-4-5",
          "https://api.anthropic.com",
          undefined,
          true,
        ],
        ["external-postgres-qdrant", "reranker", "cohere", "rerank-v3.5", "https://api.cohere.com", undefined, true],
        [
          "single-tenant-self-hosted",
          "embedder",
          "ollama",
          "nomic-embed-text",
          "http://ollama.ai.svc.cluster.local:11434",
          768,
          false,
        ],
        [
          "single-tenant-self-hosted",
          "summarizer",
          "ollama",
          "qwen2.5:7b-instruct",
          "http://ollama.ai.svc.cluster.local:11434",
          undefined,
          false,
        ],
        [
          "single-tenant-self-hosted",
          "reranker",
          "tei",
          "BAAI/bge-reranker-v2-m3",
          "http://tei-rerank.ai.svc.cluster.local:8080",
          undefined,
          false,
        ],
      ];
      for (const [scenario, service, provider, model, baseUrl, dimension, keyed] of expectations) {
        const load = await loaderOf<WorkerSettings>(service);
        const settings = load(environmentOf(service, containerOf(objectsOf(scenario), service)));
        const where = `${scenario}: ${service}`;
        assert.equal(settings.provider, provider, where);
        assert.equal(settings.http?.model, model, where);
        assert.equal(settings.http?.baseUrl, baseUrl, where);
        if (service === "embedder") assert.equal(settings.http?.dimension, dimension, where);
        assert.equal(
          settings.http?.apiKey !== undefined,
          keyed,
          `${where}: API key present only from the provider Secret`,
        );
      }
      for (const service of ["embedder", "summarizer", "reranker"] as const) {
        const load = await loaderOf<WorkerSettings>(service);
        const builtin = load(environmentOf(service, containerOf(objectsOf("minimal"), service)));
        assert.equal(builtin.provider, "builtin", `minimal: ${service}`);
      }
    });
  },
);
