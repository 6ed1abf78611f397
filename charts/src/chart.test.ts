// The chart on a machine with no cluster: lint, render every ci/ scenario, validate every object offline, and assert what operators rely on.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, test } from "node:test";
import {
  chartDir,
  componentName,
  find,
  mustFind,
  podSpecOf,
  probePort,
  release,
  kubeVersion,
  oldestHelmBinary,
  oldestHelmVersion,
  render,
  repoRoot,
  runHelm,
  scenarioFile,
  scenarios,
  services,
  template,
  type Container,
  type KubeObject,
  type PodSpec,
} from "./chart.js";
import { checkUnknownFields, validateWithModels } from "./kube-validate.js";
import { externalMetrics, metricNamesIn, dashboardExpressions, ruleExpressions } from "./metric-names.js";

const all = scenarios();
const rendered = new Map<string, KubeObject[]>(all.map((scenario) => [scenario, render(scenario)]));
const objectsOf = (scenario: string): KubeObject[] => rendered.get(scenario) ?? assert.fail(`no render of ${scenario}`);
const scenarioValues = (scenario: string): string => readFileSync(scenarioFile(scenario), "utf8");

/** The environment variable names each service reads (the contract in docs/service-layout.md and the chart's issue). */
const serviceEnv: Record<string, readonly string[]> = {
  gateway: [
    "GATEWAY_HOST",
    "GATEWAY_PORT",
    "STORE_ADDRESS",
    "EMBEDDER_ADDRESS",
    "SUMMARIZER_ADDRESS",
    "RERANKER_ADDRESS",
    "CONTEXT_HUB_AUTH",
    "CONTEXT_HUB_API_KEYS_FILE",
    "CONTEXT_HUB_ALLOW_NON_LOOPBACK",
    "CONTEXT_HUB_PUBLIC_URL",
    "OIDC_ISSUER",
    "OIDC_AUDIENCE",
    "OIDC_JWKS_URL",
    "OIDC_TENANT_CLAIM",
    "OIDC_GROUPS_CLAIM",
    "OIDC_SCOPES_CLAIM",
    "OIDC_TENANT",
    "OIDC_ALGORITHMS",
    "OIDC_CLOCK_SKEW_SECONDS",
    "OIDC_JWKS_CACHE_MS",
    "OIDC_JWKS_COOLDOWN_MS",
    "OIDC_HTTP_TIMEOUT_MS",
    "CONTEXT_HUB_KEY_CACHE_MS",
    "CONTEXT_HUB_LOCAL_TENANT",
    "CONTEXT_HUB_LOCAL_SUBJECT",
    "CONTEXT_HUB_SUMMARIES",
    "CONTEXT_HUB_RATE_READ_PER_MIN",
    "CONTEXT_HUB_RATE_READ_BURST",
    "CONTEXT_HUB_RATE_WRITE_PER_MIN",
    "CONTEXT_HUB_RATE_WRITE_BURST",
    "CONTEXT_HUB_DISABLED_TOOLS",
    "CONTEXT_HUB_TOOLSETS",
    "CONTEXT_HUB_INSTRUCTIONS",
    "CONTEXT_HUB_ALLOWED_ORIGINS",
    "CONTEXT_HUB_MAX_BODY_BYTES",
    "CONTEXT_HUB_MAX_READ_BODY_BYTES",
    "CONTEXT_HUB_RATE_AUTH_FAILURES_PER_MIN",
    "CONTEXT_HUB_RATE_AUTH_FAILURES_BURST",
    "CONTEXT_HUB_TRUSTED_PROXIES",
    "CONTEXT_HUB_API_KEYS_FILE_POLL_MS",
    "GATEWAY_STORE_TIMEOUT_MS",
    "GATEWAY_EMBED_TIMEOUT_MS",
    "GATEWAY_SUMMARY_TIMEOUT_MS",
    "GATEWAY_SECTION_SUMMARY_TIMEOUT_MS",
    "GATEWAY_RERANK_TIMEOUT_MS",
    "GATEWAY_EARLY_GENERATION",
  ],
  store: [
    "STORE_HOST",
    "STORE_PORT",
    "STORE_OPS_PORT",
    "STORE_MIGRATIONS",
    "STORE_IDEMPOTENCY_TTL_SECONDS",
    "DATABASE_URL",
    "DATABASE_POOL_MAX",
    "STORE_PREPARED_STATEMENTS",
    "DATABASE_PASSWORD",
    "STORE_VECTOR_BACKEND",
    "STORE_QDRANT_URL",
    "STORE_QDRANT_API_KEY",
    "STORE_QDRANT_COLLECTION",
  ],
  embedder: [
    "EMBEDDER_HOST",
    "EMBEDDER_PORT",
    "EMBEDDER_OPS_PORT",
    "EMBEDDER_PROVIDER",
    "EMBEDDER_MODEL",
    "EMBEDDER_BASE_URL",
    "EMBEDDER_DIMENSION",
    "EMBEDDER_CACHE_DIR",
  ],
  summarizer: [
    "SUMMARIZER_HOST",
    "SUMMARIZER_PORT",
    "SUMMARIZER_OPS_PORT",
    "SUMMARIZER_PROVIDER",
    "SUMMARIZER_MODEL",
    "SUMMARIZER_BASE_URL",
  ],
  reranker: [
    "RERANKER_HOST",
    "RERANKER_PORT",
    "RERANKER_OPS_PORT",
    "RERANKER_PROVIDER",
    "RERANKER_MODEL",
    "RERANKER_BASE_URL",
    "RERANKER_CACHE_DIR",
  ],
};
const everyServiceEnv = ["LOG_LEVEL", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME"];
/** Variables the chart sets that no service reads: DATABASE_PASSWORD only feeds `$(DATABASE_PASSWORD)` in the bundled PostgreSQL's DATABASE_URL. */
const chartOnlyEnv: Record<string, readonly string[]> = { store: ["DATABASE_PASSWORD"] };
/** The configuration reference's section of each service (scripts/configuration-reference.js). */
const schemaSection: Record<string, string> = {
  gateway: "Gateway",
  store: "Store",
  embedder: "Embedder",
  summarizer: "Summarizer",
  reranker: "Reranker",
};

/** Every variable each section of the config schemas defines, read from the built services by the reference's generator. */
async function schemaVariables(): Promise<Map<string, string[]>> {
  const generator = (await import(pathToFileURL(join(repoRoot, "scripts/configuration-reference.js")).href)) as {
    definedVariables(): Promise<Map<string, string[]>>;
  };
  return generator.definedVariables();
}
const defaultPorts: Record<string, { port: number; opsPort?: number }> = {
  gateway: { port: 8080 },
  store: { port: 50051, opsPort: 9091 },
  embedder: { port: 50052, opsPort: 9092 },
  summarizer: { port: 50053, opsPort: 9093 },
  reranker: { port: 50054, opsPort: 9094 },
};

function envOf(container: Container): Map<string, string | undefined> {
  return new Map((container.env ?? []).map((variable) => [variable.name, variable.value]));
}

function mainContainer(objects: readonly KubeObject[], service: string): { pod: PodSpec; container: Container } {
  const pod = podSpecOf(mustFind(objects, "Deployment", componentName(service)));
  assert.ok(pod);
  const container = pod.containers.find((candidate) => candidate.name === service);
  assert.ok(container, `${service} has a container named after it`);
  return { pod, container };
}

function podLabels(object: KubeObject): Record<string, string> {
  return (object.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

describe("helm lint --strict", () => {
  for (const scenario of all) {
    test(`passes for ci/${scenario}-values.yaml`, () => {
      const result = runHelm(["lint", "--strict", chartDir, "-f", scenarioFile(scenario)]);
      assert.equal(result.status, 0, result.stdout + result.stderr);
      assert.doesNotMatch(result.stdout, /\[(WARNING|ERROR)\]/);
    });
  }
});

/** Rendered manifests with each Secret's data cut off: a generated password differs from one render to the next. */
function withoutSecretData(manifests: string): string {
  return manifests
    .split("\n---\n")
    .map((document) =>
      /^kind: Secret$/m.test(document) ? document.replace(/^(data|stringData):[\s\S]*$/m, "$1: (generated)") : document,
    )
    .join("\n---\n");
}

describe(`the oldest supported Helm (${oldestHelmVersion})`, () => {
  for (const scenario of all) {
    test(`lints ci/${scenario}-values.yaml strictly and renders it as the pinned Helm does`, () => {
      const lint = runHelm(["lint", "--strict", chartDir, "-f", scenarioFile(scenario)], oldestHelmBinary);
      assert.equal(lint.status, 0, lint.stdout + lint.stderr);
      assert.doesNotMatch(lint.stdout, /\[(WARNING|ERROR)\]/);
      const args = [
        "template",
        release.name,
        chartDir,
        "--namespace",
        release.namespace,
        "--kube-version",
        kubeVersion,
        "-f",
        scenarioFile(scenario),
        "--api-versions",
        "monitoring.coreos.com/v1",
      ];
      const old = runHelm(args, oldestHelmBinary);
      assert.equal(old.status, 0, old.stderr);
      assert.equal(
        withoutSecretData(old.stdout),
        withoutSecretData(runHelm(args).stdout),
        `Helm ${oldestHelmVersion} renders ci/${scenario}-values.yaml differently`,
      );
    });
  }
});

describe("every rendered object is valid", () => {
  test("the scenarios the docs describe exist: minimal, external-postgres-qdrant, oidc, ha, single-tenant-self-hosted", () => {
    for (const scenario of ["minimal", "external-postgres-qdrant", "oidc", "ha", "single-tenant-self-hosted"])
      assert.ok(all.includes(scenario), `ci/${scenario}-values.yaml exists`);
  });
  for (const scenario of all) {
    test(`against the Kubernetes and Prometheus Operator schemas: ${scenario}`, () => {
      const objects = objectsOf(scenario);
      assert.deepEqual(validateWithModels(objects), []);
      assert.deepEqual(checkUnknownFields(objects), []);
    });
  }
  test("and the schemas catch a misspelt field, so the check above can fail", () => {
    const objects = structuredClone(objectsOf("minimal"));
    const { container } = mainContainer(objects, "store");
    (container.securityContext as Record<string, unknown>).readOnlyRootFileSystem = true;
    assert.equal(checkUnknownFields(objects).length, 1);
  });
  test("every object lands in the release namespace, except a dashboard sent elsewhere on purpose", () => {
    for (const scenario of all) {
      for (const object of objectsOf(scenario)) {
        if (object.kind === "ConfigMap" && scenario === "ha") assert.equal(object.metadata.namespace, "monitoring");
        else
          assert.equal(
            object.metadata.namespace,
            release.namespace,
            `${scenario}: ${object.kind}/${object.metadata.name}`,
          );
      }
    }
  });
});

describe("pods are locked down", () => {
  for (const scenario of all) {
    test(`non-root, read-only root filesystem, no escalation, no capabilities, RuntimeDefault seccomp, no token: ${scenario}`, () => {
      let pods = 0;
      for (const object of objectsOf(scenario)) {
        const pod = podSpecOf(object);
        if (pod === undefined) continue;
        pods++;
        const where = `${scenario}: ${object.kind}/${object.metadata.name}`;
        assert.equal(pod.securityContext?.runAsNonRoot, true, where);
        assert.notEqual(pod.securityContext?.runAsUser, 0, where);
        assert.deepEqual(pod.securityContext?.seccompProfile, { type: "RuntimeDefault" }, where);
        assert.equal(pod.automountServiceAccountToken, false, where);
        for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
          const context = container.securityContext ?? {};
          assert.equal(context.readOnlyRootFilesystem, true, `${where} ${container.name}`);
          assert.equal(context.allowPrivilegeEscalation, false, `${where} ${container.name}`);
          assert.equal(context.runAsNonRoot, true, `${where} ${container.name}`);
          assert.deepEqual(context.capabilities?.drop, ["ALL"], `${where} ${container.name}`);
          assert.ok(
            container.volumeMounts?.some(
              (mount) => mount.mountPath === "/tmp" || mount.mountPath === "/var/cache/context-hub",
            ),
            `${where} ${container.name} has a writable emptyDir`,
          );
        }
      }
      assert.ok(pods >= 7, `${scenario} renders the five services, the migrations Job and the test Pod`);
    });
  }
});

describe("each service", () => {
  for (const scenario of all) {
    test(`has a Deployment, Service, ServiceAccount, PodDisruptionBudget and (when autoscaled) HPA that fit together: ${scenario}`, () => {
      const objects = objectsOf(scenario);
      for (const service of services) {
        const name = componentName(service);
        const deployment = mustFind(objects, "Deployment", name);
        const labels = podLabels(deployment);
        const { pod } = mainContainer(objects, service);

        const svc = mustFind(objects, "Service", name);
        const svcSpec = svc.spec as {
          selector: Record<string, string>;
          ports: Array<{ name: string; port: number; targetPort: string }>;
        };
        assert.ok(selects(svcSpec.selector, labels), `${name} Service selects its pods`);
        const containerPorts = new Set(
          pod.containers.flatMap((container) => container.ports ?? []).map((port) => port.name),
        );
        for (const port of svcSpec.ports)
          assert.ok(containerPorts.has(port.targetPort), `${name} Service targets container port ${port.targetPort}`);

        const account = mustFind(objects, "ServiceAccount", name);
        assert.equal(account.automountServiceAccountToken, false);
        assert.equal(pod.serviceAccountName, name);

        const pdb = mustFind(objects, "PodDisruptionBudget", name);
        assert.ok(
          selects((pdb.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels, labels),
        );

        const hpa = find(objects, "HorizontalPodAutoscaler", name);
        const replicas = (deployment.spec as { replicas?: number }).replicas;
        if (hpa === undefined) {
          assert.equal(typeof replicas, "number", `${name} without an HPA sets replicas`);
        } else {
          assert.equal(replicas, undefined, `${name} leaves replicas to its HPA`);
          assert.deepEqual((hpa.spec as { scaleTargetRef: unknown }).scaleTargetRef, {
            apiVersion: "apps/v1",
            kind: "Deployment",
            name,
          });
        }
        assert.ok((pod.topologySpreadConstraints ?? []).length > 0, `${name} spreads its pods`);
      }
    });
  }

  test("is probed where it serves health: HTTP /healthz and /readyz on the gateway, grpc.health.v1 and the ops /readyz on the others", () => {
    const objects = objectsOf("minimal");
    for (const service of services) {
      const { container } = mainContainer(objects, service);
      const ports = defaultPorts[service];
      assert.ok(ports);
      assert.ok(
        container.startupProbe && container.livenessProbe && container.readinessProbe,
        `${service} has all three probes`,
      );
      if (service === "gateway") {
        for (const [probe, path] of [
          [container.startupProbe, "/healthz"],
          [container.livenessProbe, "/healthz"],
          [container.readinessProbe, "/readyz"],
        ] as const) {
          assert.equal(probe.httpGet?.path, path);
          assert.equal(probePort(container, probe.httpGet?.port ?? -1), ports.port);
        }
      } else {
        assert.equal(container.startupProbe.grpc?.port, ports.port);
        assert.equal(container.livenessProbe.grpc?.port, ports.port);
        assert.equal(container.readinessProbe.httpGet?.path, "/readyz");
        assert.equal(probePort(container, container.readinessProbe.httpGet?.port ?? -1), ports.opsPort);
      }
    }
  });

  test("drains on shutdown: a preStop sleep shorter than the grace period, which leaves time to drain", () => {
    for (const scenario of all) {
      for (const service of services) {
        const { pod, container } = mainContainer(objectsOf(scenario), service);
        const command = container.lifecycle?.preStop?.exec?.command ?? [];
        assert.equal(command[0], "/bin/sleep");
        const sleep = Number(command[1]);
        assert.ok(
          sleep > 0 && (pod.terminationGracePeriodSeconds ?? 30) >= sleep + 10,
          `${scenario} ${service}: grace covers the sleep and a 10 s drain`,
        );
      }
    }
  });

  test("runs `node services/<name>/dist/main.js` from the one image, with only the variables the service reads", () => {
    for (const scenario of all) {
      const objects = objectsOf(scenario);
      const images = new Set<string>();
      for (const service of services) {
        const { pod, container } = mainContainer(objects, service);
        assert.deepEqual(container.command, ["node", `services/${service}/dist/main.js`]);
        images.add(container.image);
        assert.equal(pod.enableServiceLinks, false, "no injected *_PORT variables next to the service's own");
        const allowed = new Set([...everyServiceEnv, ...(serviceEnv[service] ?? [])]);
        for (const name of envOf(container).keys())
          assert.ok(allowed.has(name), `${scenario} ${service}: unexpected variable ${name}`);
        const host = `${service.toUpperCase()}_HOST`;
        assert.equal(envOf(container).get(host), "0.0.0.0");
      }
      const migrate = podSpecOf(mustFind(objects, "Job", componentName("migrations")))?.containers[0];
      assert.deepEqual(migrate?.command, ["node", "services/store/dist/main.js", "migrate"]);
      images.add(migrate.image);
      assert.equal(images.size, 1, "one image for every service");
    }
  });

  test("sets only variables the services' config schemas define (docs/configuration.md), and wires every one the chart must", async () => {
    const defined = await schemaVariables();
    const shared = defined.get("Every service") ?? assert.fail("no shared section in the config schemas");
    // Every scenario, and one with the settings every scenario leaves null (burst sizes the gateway defaults) set.
    const renders = [
      ...all.map((scenario) => ({ name: `ci/${scenario}`, objects: objectsOf(scenario) })),
      {
        name: "every null setting set",
        objects: render("single-tenant-self-hosted", {
          set: ["gateway.rateLimits.write.burst=60", "gateway.rateLimits.authFailures.burst=60"],
        }),
      },
    ];
    for (const service of services) {
      const section =
        defined.get(schemaSection[service] ?? "") ?? assert.fail(`no config schema section for ${service}`);
      const known = new Set([...shared, ...section, ...(chartOnlyEnv[service] ?? [])]);
      const wired = new Set<string>();
      for (const { name: scenario, objects } of renders) {
        for (const name of envOf(mainContainer(objects, service).container).keys()) {
          assert.ok(
            known.has(name),
            `${scenario}: the chart sets ${name} on the ${service}, but no config schema defines it (a misspelling, or a variable the service no longer reads)`,
          );
          wired.add(name);
        }
      }
      for (const name of [...everyServiceEnv, ...(serviceEnv[service] ?? [])]) {
        assert.ok(
          known.has(name),
          `${name} is on the chart's list for the ${service}, but no config schema defines it`,
        );
        assert.ok(wired.has(name), `the chart never wires ${name} into the ${service}, though it must`);
      }
    }
  });

  test("listens where the docs say, and the gateway dials each peer's Service on that port", () => {
    const objects = objectsOf("minimal");
    const gateway = envOf(mainContainer(objects, "gateway").container);
    assert.equal(gateway.get("GATEWAY_PORT"), "8080");
    for (const service of services.filter((name) => name !== "gateway")) {
      const ports = defaultPorts[service];
      const env = envOf(mainContainer(objects, service).container);
      const prefix = service.toUpperCase();
      assert.equal(env.get(`${prefix}_PORT`), String(ports?.port));
      assert.equal(env.get(`${prefix}_OPS_PORT`), String(ports?.opsPort));
      const svc = mustFind(objects, "Service", componentName(service));
      const grpcPort = (svc.spec as { ports: Array<{ name: string; port: number }> }).ports.find(
        (port) => port.name === "grpc",
      )?.port;
      assert.equal(gateway.get(`${prefix}_ADDRESS`), `${componentName(service)}:${grpcPort}`);
    }
  });
});

describe("configuration from values", () => {
  test("DATABASE_URL and the API keys come from Secrets; the API-keys file is mounted where CONTEXT_HUB_API_KEYS_FILE points", () => {
    const objects = objectsOf("minimal");
    const store = mainContainer(objects, "store").container;
    const url = store.env?.find((variable) => variable.name === "DATABASE_URL");
    assert.deepEqual(url?.valueFrom?.secretKeyRef, { name: "context-hub-database", key: "url" });
    const { pod, container } = mainContainer(objects, "gateway");
    const env = envOf(container);
    assert.equal(env.get("CONTEXT_HUB_AUTH"), "api-key");
    assert.equal(env.get("CONTEXT_HUB_API_KEYS_FILE"), "/etc/context-hub/api-keys/api-keys.json");
    assert.equal(env.has("CONTEXT_HUB_ALLOW_NON_LOOPBACK"), false, "authentication is on, so no loopback override");
    const mount = container.volumeMounts?.find((candidate) => candidate.mountPath === "/etc/context-hub/api-keys");
    assert.ok(mount);
    assert.equal(pod.volumes?.find((volume) => volume.name === mount.name)?.secret?.secretName, "context-hub-api-keys");
  });

  test("external Postgres and Qdrant, provider secrets and tracing reach the right services", () => {
    const objects = objectsOf("external-postgres-qdrant");
    const store = mainContainer(objects, "store").container;
    assert.equal(envOf(store).get("STORE_VECTOR_BACKEND"), "qdrant");
    assert.equal(envOf(store).get("STORE_QDRANT_URL"), "http://qdrant.vector.svc.cluster.local:6333");
    assert.equal(envOf(store).get("STORE_QDRANT_COLLECTION"), "acme_context_chunks");
    assert.deepEqual(store.env?.find((variable) => variable.name === "STORE_QDRANT_API_KEY")?.valueFrom?.secretKeyRef, {
      name: "context-hub-qdrant",
      key: "api-key",
    });
    assert.equal(
      store.env?.find((variable) => variable.name === "STORE_QDRANT_API_KEY")?.value,
      undefined,
      "the Qdrant key never appears as a plain value",
    );
    const migrate = podSpecOf(mustFind(objects, "Job", componentName("migrations")))?.containers[0];
    assert.deepEqual(
      migrate?.env?.filter((variable) => variable.name.startsWith("STORE_")),
      store.env?.filter(
        (variable) => variable.name.startsWith("STORE_VECTOR") || variable.name.startsWith("STORE_QDRANT"),
      ),
      "the migrations Job sees the same vector backend as the store",
    );
    assert.deepEqual(store.env?.find((variable) => variable.name === "DATABASE_URL")?.valueFrom?.secretKeyRef, {
      name: "context-hub-database",
      key: "DATABASE_URL",
    });
    assert.equal(envOf(store).get("DATABASE_POOL_MAX"), "20");
    assert.equal(envOf(store).get("STORE_PREPARED_STATEMENTS"), "true");
    for (const [service, provider, model, baseUrl] of [
      ["embedder", "openai", "text-embedding-3-small", "https://llm-gateway.example.com/openai/v1"],
      ["summarizer", "anthropic", "claude-haiku-4-5", undefined],
      ["reranker", "cohere", "rerank-v3.5", undefined],
    ] as const) {
      const { container } = mainContainer(objects, service);
      const env = envOf(container);
      const prefix = service.toUpperCase();
      assert.equal(env.get(`${prefix}_PROVIDER`), provider);
      assert.equal(env.get(`${prefix}_MODEL`), model);
      assert.equal(
        env.get(`${prefix}_BASE_URL`),
        baseUrl,
        `${service}: an empty baseUrl is not rendered, so the provider's default (or the Secret's value) applies`,
      );
      assert.equal(env.has(`${prefix}_API_KEY`), false, `${service}: the API key comes only from the provider Secret`);
      assert.deepEqual(container.envFrom, [{ secretRef: { name: `context-hub-${service}-provider` } }]);
    }
    assert.equal(envOf(mainContainer(objects, "embedder").container).get("EMBEDDER_DIMENSION"), "1536");
    for (const service of services) {
      assert.equal(
        envOf(mainContainer(objects, service).container).get("OTEL_EXPORTER_OTLP_ENDPOINT"),
        "http://otel-collector.observability.svc.cluster.local:4318",
      );
    }
    assert.equal(find(objects, "StatefulSet", componentName("postgresql")), undefined);
    assert.equal(find(objects, "StatefulSet", componentName("qdrant")), undefined);
  });

  test("OIDC settings and the public resource URL reach the gateway, and the Ingress exposes only /mcp and the protected-resource metadata", () => {
    const objects = objectsOf("oidc");
    const env = envOf(mainContainer(objects, "gateway").container);
    assert.equal(env.get("CONTEXT_HUB_AUTH"), "api-key,oidc");
    assert.equal(env.get("CONTEXT_HUB_PUBLIC_URL"), "https://context.example.com/mcp");
    assert.equal(env.get("OIDC_ISSUER"), "https://login.example.com/realms/acme");
    assert.equal(env.get("OIDC_AUDIENCE"), "context-hub");
    assert.equal(env.get("OIDC_JWKS_URL"), "https://login.example.com/realms/acme/protocol/openid-connect/certs");
    assert.equal(env.get("OIDC_TENANT_CLAIM"), "org");
    assert.equal(env.get("OIDC_GROUPS_CLAIM"), "groups");
    assert.equal(env.get("OIDC_SCOPES_CLAIM"), "scope");
    const ingress = mustFind(objects, "Ingress", componentName("gateway"));
    const rules = (
      ingress.spec as {
        rules: Array<{
          host: string;
          http: { paths: Array<{ path: string; backend: { service: { name: string } } }> };
        }>;
      }
    ).rules;
    assert.equal(rules[0]?.host, "context.example.com");
    assert.deepEqual(
      rules[0]?.http.paths.map((path) => path.path),
      ["/mcp", "/.well-known/oauth-protected-resource"],
    );
    for (const path of rules[0]?.http.paths ?? []) assert.equal(path.backend.service.name, componentName("gateway"));
    const smoke = podSpecOf(mustFind(objects, "Pod", componentName("smoke-test")))?.containers[0];
    assert.deepEqual(smoke?.env?.[0]?.valueFrom?.secretKeyRef, { name: "context-hub-smoke", key: "api-key" });
  });

  test("the in-chart Postgres and Qdrant are wired to the store, with a generated password kept across upgrades", () => {
    const objects = objectsOf("in-cluster-databases");
    const store = mainContainer(objects, "store").container;
    const env = envOf(store);
    assert.equal(
      env.get("DATABASE_URL"),
      `postgres://contexthub:$(DATABASE_PASSWORD)@${componentName("postgresql")}:5432/contexthub`,
    );
    const names = (store.env ?? []).map((variable) => variable.name);
    assert.ok(
      names.indexOf("DATABASE_PASSWORD") < names.indexOf("DATABASE_URL"),
      "Kubernetes expands $(DATABASE_PASSWORD) only when it is defined first",
    );
    assert.equal(env.get("STORE_VECTOR_BACKEND"), "qdrant");
    assert.equal(env.get("STORE_QDRANT_URL"), `http://${componentName("qdrant")}:6333`);
    assert.equal(env.get("STORE_QDRANT_COLLECTION"), "context_hub_chunks");
    assert.equal(env.has("STORE_QDRANT_API_KEY"), false, "no key Secret named, so none rendered");
    const postgres = mustFind(objects, "StatefulSet", componentName("postgresql"));
    assert.match(podSpecOf(postgres)?.containers[0]?.image ?? "", /^pgvector\/pgvector:/);
    const secret = mustFind(objects, "Secret", componentName("postgresql"));
    assert.equal(secret.metadata.annotations?.["helm.sh/resource-policy"], "keep");
    mustFind(objects, "StatefulSet", componentName("qdrant"));
    const gateway = envOf(mainContainer(objects, "gateway").container);
    assert.equal(gateway.get("CONTEXT_HUB_AUTH"), "none");
    assert.equal(gateway.get("CONTEXT_HUB_ALLOW_NON_LOOPBACK"), "true");
    assert.equal(gateway.get("CONTEXT_HUB_LOCAL_TENANT"), "local");
    assert.equal(gateway.get("CONTEXT_HUB_LOCAL_SUBJECT"), "local");
  });

  test("pgvector is the vector backend unless Qdrant is configured, and then no Qdrant variable is rendered", () => {
    for (const scenario of ["minimal", "oidc", "ha", "single-tenant-self-hosted"]) {
      const objects = objectsOf(scenario);
      const stores = [
        mainContainer(objects, "store").container,
        podSpecOf(mustFind(objects, "Job", componentName("migrations")))?.containers[0],
      ];
      for (const container of stores) {
        assert.ok(container);
        const env = envOf(container);
        assert.equal(env.get("STORE_VECTOR_BACKEND"), "pgvector", scenario);
        assert.deepEqual(
          [...env.keys()].filter((name) => name.startsWith("STORE_QDRANT")),
          [],
          scenario,
        );
      }
    }
  });

  test("the gateway's OIDC tenant, rate limits, disabled tools, instructions, origins, body limit and deadlines come from values", () => {
    const env = envOf(mainContainer(objectsOf("single-tenant-self-hosted"), "gateway").container);
    const expected: Record<string, string | undefined> = {
      CONTEXT_HUB_AUTH: "oidc",
      OIDC_TENANT: "acme",
      OIDC_TENANT_CLAIM: undefined,
      OIDC_ALGORITHMS: "RS256,ES256",
      OIDC_CLOCK_SKEW_SECONDS: "60",
      OIDC_JWKS_CACHE_MS: "300000",
      OIDC_JWKS_COOLDOWN_MS: "30000",
      OIDC_HTTP_TIMEOUT_MS: "5000",
      CONTEXT_HUB_API_KEYS_FILE: undefined,
      CONTEXT_HUB_KEY_CACHE_MS: undefined,
      CONTEXT_HUB_RATE_READ_PER_MIN: "1200",
      CONTEXT_HUB_RATE_READ_BURST: "300",
      CONTEXT_HUB_RATE_WRITE_PER_MIN: "240",
      // Left null in the scenario: the gateway's default applies.
      CONTEXT_HUB_RATE_WRITE_BURST: undefined,
      CONTEXT_HUB_DISABLED_TOOLS: "delete_context_batch,get_audit_log",
      CONTEXT_HUB_TOOLSETS: "core,search,library,workflow,admin",
      CONTEXT_HUB_INSTRUCTIONS:
        "Acme's shared memory. Store decisions and findings with the project name as the thread id; search before asking a colleague.",
      CONTEXT_HUB_ALLOWED_ORIGINS: "https://chat.acme.example",
      CONTEXT_HUB_MAX_BODY_BYTES: "16777216",
      CONTEXT_HUB_MAX_READ_BODY_BYTES: "262144",
      CONTEXT_HUB_RATE_AUTH_FAILURES_PER_MIN: "20",
      CONTEXT_HUB_RATE_AUTH_FAILURES_BURST: undefined,
      CONTEXT_HUB_TRUSTED_PROXIES: "10.42.0.0/16",
      GATEWAY_STORE_TIMEOUT_MS: "15000",
      GATEWAY_EMBED_TIMEOUT_MS: "60000",
      GATEWAY_SUMMARY_TIMEOUT_MS: "90000",
      GATEWAY_SECTION_SUMMARY_TIMEOUT_MS: "10000",
      GATEWAY_RERANK_TIMEOUT_MS: "8000",
      GATEWAY_EARLY_GENERATION: "auto",
    };
    for (const [name, value] of Object.entries(expected)) assert.equal(env.get(name), value, name);
    // Defaults render as plain integers, never in Go's float notation (6.7108864e+07).
    const defaults = envOf(mainContainer(objectsOf("minimal"), "gateway").container);
    assert.equal(
      defaults.has("CONTEXT_HUB_MAX_BODY_BYTES"),
      false,
      "left to the gateway, which computes it from the write limits",
    );
    assert.equal(defaults.get("CONTEXT_HUB_API_KEYS_FILE_POLL_MS"), "10000");
    assert.equal(defaults.get("CONTEXT_HUB_KEY_CACHE_MS"), "5000");
    for (const name of [
      "CONTEXT_HUB_RATE_READ_PER_MIN",
      "CONTEXT_HUB_RATE_READ_BURST",
      "CONTEXT_HUB_RATE_WRITE_PER_MIN",
      "CONTEXT_HUB_RATE_WRITE_BURST",
      "CONTEXT_HUB_DISABLED_TOOLS",
      "CONTEXT_HUB_TOOLSETS",
      "CONTEXT_HUB_INSTRUCTIONS",
    ]) {
      assert.equal(defaults.has(name), false, `${name} is left to the gateway by default`);
    }
    // 0 is a setting (no limit), not an absent value.
    const unlimited = envOf(
      mainContainer(render("minimal", { set: ["gateway.rateLimits.write.perMinute=0"] }), "gateway").container,
    );
    assert.equal(unlimited.get("CONTEXT_HUB_RATE_WRITE_PER_MIN"), "0");
  });

  test("self-hosted providers take their kind, model, address and dimension from values, with no Secret", () => {
    const objects = objectsOf("single-tenant-self-hosted");
    const expected = {
      embedder: {
        EMBEDDER_PROVIDER: "ollama",
        EMBEDDER_MODEL: "nomic-embed-text",
        EMBEDDER_BASE_URL: "http://ollama.ai.svc.cluster.local:11434",
        EMBEDDER_DIMENSION: "768",
      },
      summarizer: {
        SUMMARIZER_PROVIDER: "ollama",
        SUMMARIZER_MODEL: "qwen2.5:7b-instruct",
        SUMMARIZER_BASE_URL: "http://ollama.ai.svc.cluster.local:11434",
      },
      reranker: {
        RERANKER_PROVIDER: "tei",
        RERANKER_MODEL: "BAAI/bge-reranker-v2-m3",
        RERANKER_BASE_URL: "http://tei-rerank.ai.svc.cluster.local:8080",
      },
    };
    for (const [service, variables] of Object.entries(expected)) {
      const { container } = mainContainer(objects, service);
      const env = envOf(container);
      for (const [name, value] of Object.entries(variables)) assert.equal(env.get(name), value, `${service} ${name}`);
      assert.equal(container.envFrom, undefined, `${service} needs no provider Secret`);
    }
    // The built-in providers render none of these.
    for (const service of ["embedder", "summarizer", "reranker"]) {
      const env = envOf(mainContainer(objectsOf("minimal"), service).container);
      const prefix = service.toUpperCase();
      assert.deepEqual(
        [`${prefix}_PROVIDER`, `${prefix}_MODEL`, `${prefix}_BASE_URL`, `${prefix}_DIMENSION`].filter((name) =>
          env.has(name),
        ),
        [],
        service,
      );
    }
  });

  test("values that contradict each other stop the render with a remedy, all listed at once", () => {
    const defaults = template(undefined);
    assert.match(defaults.stderr, /auth\.apiKeys\.existingSecret[^]*database\.existingSecret/);
    const cases: Array<[string | undefined, string[], RegExp]> = [
      [undefined, [], /database\.existingSecret/],
      ["minimal", ["auth.mode=none"], /auth\.allowUnauthenticated=true/],
      ["minimal", ["auth.apiKeys.existingSecret="], /auth\.apiKeys\.existingSecret/],
      ["minimal", ["auth.mode=oidc"], /auth\.oidc\.issuer/],
      ["oidc", ["ingress.enabled=false"], /publicUrl/],
      ["minimal", ["qdrant.enabled=true", "qdrant.url=http://q:6333"], /not both/],
      ["minimal", ["qdrant.collection=bad/name"], /collection/],
      ["oidc", ["auth.oidc.tenant=acme"], /auth\.oidc: set either tenant[^]*not both/],
      [
        "oidc",
        ["auth.oidc.tenantClaim="],
        /auth\.mode includes oidc: set auth\.oidc\.tenantClaim \(OIDC_TENANT_CLAIM[^]*or auth\.oidc\.tenant \(OIDC_TENANT/,
      ],
      ["oidc", ["auth.oidc.algorithms={HS256}"], /algorithms/],
      ["minimal", ["embedder.provider.name=openia"], /embedder\.provider\.name/],
      [
        "minimal",
        ["embedder.provider.name=openai"],
        /embedder\.provider\.model \(EMBEDDER_MODEL\)[^]*embedder\.provider\.existingSecret to a Secret holding EMBEDDER_API_KEY/,
      ],
      [
        "minimal",
        ["reranker.provider.name=tei", "reranker.provider.model=m"],
        /reranker\.provider\.baseUrl \(RERANKER_BASE_URL\)/,
      ],
      [
        "minimal",
        ["reranker.provider.name=voyage", "reranker.provider.model=rerank-2.5"],
        /reranker\.provider\.name is voyage at its default address, which needs an API key/,
      ],
      ["minimal", ["summarizer.provider.baseUrl=ftp://x"], /summarizer\.provider\.baseUrl|baseUrl/],
      ["minimal", ["gateway.disabledTools={Delete Context}"], /disabledTools/],
      ["minimal", ["gateway.toolsets={core,everything}"], /toolsets/],
      ["minimal", ["gateway.rateLimits.read.burst=0"], /burst/],
      ["minimal", ["gateway.maxBodyBytes=10"], /maxBodyBytes/],
      ["minimal", ["gateway.autoscaling.minReplicas=20"], /minReplicas is above maxReplicas/],
      [
        "minimal",
        ["gateway.timeouts.summaryMs=5000"],
        /gateway\.timeouts\.sectionSummaryMs \(5000\) must be less than gateway\.timeouts\.summaryMs \(5000\)/,
      ],
      ["minimal", ["gateway.port=not-a-port"], /gateway\.port|port/],
      ["minimal", ["gateway.unknownKey=1"], /unknownKey|additional/i],
    ];
    for (const [scenario, set, message] of cases) {
      const result = template(scenario, { set });
      assert.notEqual(result.status, 0, `${scenario} ${set.join(" ")} should not render`);
      assert.match(result.stderr, message);
    }
  });

  test("the HA scenario spreads pods hard over zones and nodes and keeps three of each", () => {
    const objects = objectsOf("ha");
    for (const service of services) {
      const { pod } = mainContainer(objects, service);
      const constraints = (pod.topologySpreadConstraints ?? []) as Array<{
        topologyKey: string;
        whenUnsatisfiable: string;
      }>;
      assert.deepEqual(constraints.map((constraint) => [constraint.topologyKey, constraint.whenUnsatisfiable]).sort(), [
        ["kubernetes.io/hostname", "DoNotSchedule"],
        ["topology.kubernetes.io/zone", "DoNotSchedule"],
      ]);
      const hpa = mustFind(objects, "HorizontalPodAutoscaler", componentName(service));
      assert.ok((hpa.spec as { minReplicas: number }).minReplicas >= 3);
    }
  });
});

describe("hooks", () => {
  test("the migrations Job runs before anything else with an external database, after the in-chart one on install, and before every upgrade", () => {
    for (const scenario of all) {
      const objects = objectsOf(scenario);
      const job = mustFind(objects, "Job", componentName("migrations"));
      const account = mustFind(objects, "ServiceAccount", componentName("migrations"));
      const inChart = /postgresql:\s*\n\s*enabled: true|qdrant:\s*\n\s*enabled: true/.test(scenarioValues(scenario));
      const expected = inChart ? "post-install,pre-upgrade" : "pre-install,pre-upgrade";
      assert.equal(job.metadata.annotations?.["helm.sh/hook"], expected, scenario);
      assert.equal(
        account.metadata.annotations?.["helm.sh/hook"],
        expected,
        "its ServiceAccount exists when the Job starts",
      );
      assert.ok(
        Number(account.metadata.annotations?.["helm.sh/hook-weight"]) <
          Number(job.metadata.annotations?.["helm.sh/hook-weight"]),
      );
      assert.match(job.metadata.annotations?.["helm.sh/hook-delete-policy"] ?? "", /before-hook-creation/);
      const pod = podSpecOf(job);
      assert.equal(pod?.serviceAccountName, componentName("migrations"));
      const env = pod?.containers[0]?.env?.map((variable) => variable.name) ?? [];
      assert.ok(env.includes("DATABASE_URL"));
    }
  });

  test("helm test runs the smoke command against the gateway's Service", () => {
    for (const scenario of all) {
      const objects = objectsOf(scenario);
      const pod = mustFind(objects, "Pod", componentName("smoke-test"));
      assert.equal(pod.metadata.annotations?.["helm.sh/hook"], "test");
      const container = podSpecOf(pod)?.containers[0];
      // Plain http to the in-cluster Service is explicit (--insecure); the key comes from the environment, never the command line.
      assert.deepEqual(container?.command, [
        "node",
        "apps/cli/dist/main.js",
        "smoke",
        "--url",
        `http://${componentName("gateway")}:8080/mcp`,
        "--insecure",
      ]);
      assert.equal((pod.spec as { restartPolicy: string }).restartPolicy, "Never");
    }
  });
});

describe("network policies", () => {
  function policy(objects: readonly KubeObject[], component: string) {
    return mustFind(objects, "NetworkPolicy", componentName(component)).spec as {
      podSelector: { matchLabels: Record<string, string> };
      policyTypes: string[];
      ingress: Array<{
        from?: Array<{ podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: unknown }>;
        ports?: Array<{ port: number }>;
      }>;
      egress?: Array<{
        to?: Array<{ podSelector?: { matchLabels: Record<string, string> } }>;
        ports?: Array<{ port: number }>;
      }>;
    };
  }
  const componentOf = (peer: { podSelector?: { matchLabels: Record<string, string> } }) =>
    peer.podSelector?.matchLabels["app.kubernetes.io/component"];

  for (const scenario of all) {
    test(`only the gateway reaches the store and workers on their gRPC ports: ${scenario}`, () => {
      const objects = objectsOf(scenario);
      for (const service of services.filter((name) => name !== "gateway")) {
        const spec = policy(objects, service);
        assert.ok(
          selects(spec.podSelector.matchLabels, podLabels(mustFind(objects, "Deployment", componentName(service)))),
        );
        const grpcPort = defaultPorts[service]?.port;
        const grpcRules = spec.ingress.filter((rule) => rule.ports?.some((port) => port.port === grpcPort));
        assert.equal(grpcRules.length, 1);
        assert.deepEqual(grpcRules[0]?.from?.map(componentOf), ["gateway"]);
        for (const rule of spec.ingress) {
          for (const port of rule.ports ?? [])
            assert.ok([grpcPort, defaultPorts[service]?.opsPort].includes(port.port));
        }
      }
    });
  }

  test("only the store and the migrations Job reach the in-chart databases", () => {
    const objects = objectsOf("in-cluster-databases");
    for (const database of ["postgresql", "qdrant"]) {
      const spec = policy(objects, database);
      assert.equal(spec.ingress.length, 1);
      assert.deepEqual(spec.ingress[0]?.from?.map(componentOf), ["store", "migrations"]);
    }
  });

  test("with egress restricted, only the store and migrations may reach the databases; the gateway reaches only its peers", () => {
    const objects = objectsOf("external-postgres-qdrant");
    for (const component of ["gateway", "store", "embedder", "summarizer", "reranker", "migrations", "test"]) {
      assert.ok(policy(objects, component).policyTypes.includes("Egress"), `${component} has an egress policy`);
    }
    const databasePorts = (component: string) =>
      (policy(objects, component).egress ?? []).filter((rule) =>
        rule.ports?.some((port) => port.port === 5432 || port.port === 6333),
      );
    assert.equal(databasePorts("store").length, 2);
    assert.equal(databasePorts("migrations").length, 2);
    for (const component of ["gateway", "embedder", "summarizer", "reranker", "test"])
      assert.equal(databasePorts(component).length, 0, component);
    const gatewayPeers = (policy(objects, "gateway").egress ?? [])
      .flatMap((rule) => (rule.to ?? []).map(componentOf))
      .filter((peer) => peer !== undefined);
    assert.deepEqual(gatewayPeers.sort(), ["embedder", "reranker", "store", "summarizer"]);
  });

  test("a restricted gateway still admits Prometheus and the helm test Pod", () => {
    const spec = policy(objectsOf("ha"), "gateway");
    const from = spec.ingress.flatMap((rule) => rule.from ?? []);
    assert.ok(from.some((peer) => componentOf(peer) === "test"));
    assert.equal(
      from.filter((peer) => peer.namespaceSelector !== undefined).length,
      2,
      "ingress-nginx and monitoring namespaces",
    );
  });
});

describe("monitoring", () => {
  test("ServiceMonitor and PrometheusRule exist only where the cluster serves monitoring.coreos.com/v1", () => {
    const withOperator = objectsOf("minimal");
    const scrape = mustFind(withOperator, "ServiceMonitor", `${release.name}-context-hub`);
    const endpoints = (scrape.spec as { endpoints: Array<{ port: string; path: string }> }).endpoints;
    assert.deepEqual(
      endpoints.map((endpoint) => [endpoint.port, endpoint.path]),
      [
        ["http", "/metrics"],
        ["ops", "/metrics"],
      ],
    );
    mustFind(withOperator, "PrometheusRule", `${release.name}-context-hub`);
    const without = render("minimal", { prometheusOperator: false });
    assert.equal(
      without.filter((object) => object.kind === "ServiceMonitor" || object.kind === "PrometheusRule").length,
      0,
    );
    const disabled = render("minimal", {
      set: ["metrics.serviceMonitor.enabled=false", "metrics.prometheusRule.enabled=false"],
    });
    assert.equal(
      disabled.filter((object) => object.kind === "ServiceMonitor" || object.kind === "PrometheusRule").length,
      0,
    );
  });

  test("the alerts cover write p95, tool errors, provider failures and unready pods, with the thresholds from values", () => {
    const rules = ruleExpressions(objectsOf("ha"));
    assert.deepEqual(rules.map((rule) => rule.alert).sort(), [
      "ContextHubPodNotReady",
      "ContextHubProviderFailures",
      "ContextHubToolErrorRatioHigh",
      "ContextHubWriteLatencyHigh",
    ]);
    const write = rules.find((rule) => rule.alert === "ContextHubWriteLatencyHigh");
    assert.match(
      write?.expr ?? "",
      /histogram_quantile\(0\.95, .*contexthub_write_stage_seconds_bucket\{.*stage="total".*> 1\.5$/s,
    );
    for (const rule of rules)
      assert.match(rule.expr, new RegExp(`namespace="${release.namespace}"`), `${rule.alert} is scoped to the release`);
  });

  test("the outbox-lag alert exists only with Qdrant as the vector backend, with its threshold and hold time from values", () => {
    const alertOf = (objects: readonly KubeObject[]) =>
      objects
        .filter((object) => object.kind === "PrometheusRule")
        .flatMap(
          (object) =>
            (object.spec as { groups: Array<{ rules: Array<{ alert?: string; expr: string; for?: string }> }> }).groups,
        )
        .flatMap((group) => group.rules)
        .find((rule) => rule.alert === "ContextHubVectorOutboxLagging");
    const external = alertOf(objectsOf("external-postgres-qdrant"));
    assert.ok(external, "external Qdrant");
    assert.match(
      external.expr,
      /^max\(contexthub_vector_outbox_lag_seconds\{namespace="context-hub", job=~"[^"]+"\}\) > 120$/,
    );
    assert.equal(external.for, "5m");
    const inChart = alertOf(objectsOf("in-cluster-databases"));
    assert.ok(inChart, "in-chart Qdrant");
    assert.match(inChart.expr, /> 300$/);
    assert.equal(inChart.for, "10m");
    for (const scenario of ["minimal", "oidc", "ha", "single-tenant-self-hosted"])
      assert.equal(alertOf(objectsOf(scenario)), undefined, `${scenario} uses pgvector`);
  });

  test("the dashboard ConfigMap carries the Grafana sidecar label and the dashboard file unchanged", () => {
    const objects = objectsOf("ha");
    const configMap = mustFind(objects, "ConfigMap", componentName("dashboard"));
    assert.equal(configMap.metadata.labels?.grafana_dashboard, "1");
    assert.equal(configMap.metadata.annotations?.grafana_folder, "Context Hub");
    const data = (configMap.data as Record<string, string>)["context-hub.json"];
    assert.deepEqual(
      JSON.parse(data ?? ""),
      JSON.parse(readFileSync(join(chartDir, "dashboards", "context-hub.json"), "utf8")),
    );
  });

  test("the dashboard and the alerts read only the metric names the services promise to export", () => {
    // The contract from the chart's issue; the chart-driven run checks the same
    // names against what the running services actually expose.
    const promised = new Set([
      "contexthub_write_stage_seconds_bucket",
      "contexthub_write_stage_seconds_count",
      "contexthub_tool_calls_total",
      "contexthub_tool_duration_seconds_bucket",
      "contexthub_search_seconds_bucket",
      "contexthub_provider_request_seconds_bucket",
      "contexthub_provider_request_seconds_count",
      "grpc_server_handling_seconds_bucket",
      "grpc_server_handling_seconds_count",
      "grpc_client_handling_seconds_bucket",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_p99_seconds",
      // The store's vector outbox (with Qdrant as the backend).
      "contexthub_vector_outbox_pending",
      "contexthub_vector_outbox_lag_seconds",
    ]);
    const used = new Set<string>();
    for (const expression of [
      ...dashboardExpressions(),
      ...ruleExpressions(objectsOf("external-postgres-qdrant")).map((rule) => rule.expr),
    ]) {
      for (const name of metricNamesIn(expression)) used.add(name);
    }
    const unknown = [...used].filter((name) => !promised.has(name) && !externalMetrics.has(name));
    assert.deepEqual(unknown, []);
    for (const name of [
      "contexthub_write_stage_seconds_bucket",
      "contexthub_tool_calls_total",
      "contexthub_search_seconds_bucket",
      "contexthub_provider_request_seconds_bucket",
      "process_resident_memory_bytes",
      "contexthub_vector_outbox_pending",
      "contexthub_vector_outbox_lag_seconds",
    ]) {
      assert.ok(used.has(name), `${name} is on the dashboard or in an alert`);
    }
  });

  test("metric name extraction ignores labels, functions, ranges and variables", () => {
    assert.deepEqual(
      [
        ...metricNamesIn(
          'histogram_quantile(0.95, sum by (le, stage) (rate(a_bucket{job=~"$job", stage!="total"}[$__rate_interval]))) / on (x) group_left (y) b_total > 2 and max(c)',
        ),
      ].sort(),
      ["a_bucket", "b_total", "c"],
    );
  });
});
