/**
 * The chart-driven local run: render a scenario, run the migrations hook and
 * every Deployment's container with exactly the rendered environment (cluster
 * names mapped to 127.0.0.1, ports to free local ports), probe them as the
 * kubelet would, run the MCP round trip and the `helm test` Pod's command,
 * scrape /metrics where the ServiceMonitor would, and stop everything with
 * SIGTERM. It proves that chart and code agree on commands, ports, variable
 * names, health checks and metric names.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { componentName, mustFind, podSpecOf, release, render, repoRoot, services, type KubeObject } from "./chart.js";
import { LocalCluster, probeOnce, waitForProbe, type RunningContainer } from "./local-cluster.js";
import {
  declaredFamilies,
  dashboardExpressions,
  externalMetrics,
  isExposed,
  metricNamesIn,
  ruleExpressions,
} from "./metric-names.js";
import { startTestPostgres, type TestPostgres } from "@context-hub/test/postgres";

/**
 * The scenario run here, as an operator installs it (API-key authentication),
 * plus a credential for the `helm test` Pod, which ci/minimal leaves out, and
 * gateway settings from values whose effect a client sees.
 */
const scenario = "minimal";
const instructions = "Memory of the chart-driven run: store findings under the thread chart-run.";
const disabledTool = "get_audit_log";
const overrides = [
  "tests.credential.existingSecret=context-hub-smoke",
  "tests.credential.key=token",
  `gateway.instructions=${instructions}`,
  `gateway.disabledTools={${disabledTool}}`,
  "gateway.rateLimits.read.perMinute=600",
  "gateway.rateLimits.write.burst=30",
];
/** A key of the API-keys file the operator mounts (shape: chk_ + 256 random bits, base64url). */
const apiKey = `chk_${randomBytes(32).toString("base64url")}`;
const apiKeysFile = JSON.stringify({
  keys: [{ key: apiKey, tenant: "chart-run", subject: "chart-smoke", scopes: ["context:read", "context:write"] }],
});

const missingEntryPoints = services
  .map((name) => `services/${name}/dist/main.js`)
  .filter((path) => !existsSync(join(repoRoot, path)));
const smokeEntryPoint = "apps/cli/dist/main.js";

describe(
  `chart-driven local run of ci/${scenario}-values.yaml`,
  { skip: missingEntryPoints.length > 0 ? `not built yet: ${missingEntryPoints.join(", ")}` : false },
  () => {
    let objects: KubeObject[];
    let postgres: TestPostgres | undefined;
    let cluster: LocalCluster;
    let workDir: string;
    let migration: number | string;
    const containers = new Map<string, RunningContainer>();
    let stopped: Awaited<ReturnType<LocalCluster["stopAll"]>> | undefined;

    before(async () => {
      objects = render(scenario, { set: overrides });
      postgres = await startTestPostgres();
      workDir = mkdtempSync(join(tmpdir(), "context-hub-chart-run-"));
      const deployments = services.map((name) => mustFind(objects, "Deployment", componentName(name)));
      cluster = await LocalCluster.create(objects, deployments, {
        namespace: release.namespace,
        workDir,
        // What the operator creates before `helm install` (ci/minimal-values.yaml names them).
        secrets: {
          "context-hub-database": { url: postgres.url },
          "context-hub-api-keys": { "api-keys.json": apiKeysFile },
          "context-hub-smoke": { token: apiKey },
        },
      });
      // Hooks first, as Helm runs them: pre-install migrations, then the release's objects.
      const job = mustFind(objects, "Job", componentName("migrations"));
      const migrate = podSpecOf(job)?.containers[0];
      assert.ok(migrate);
      migration = await cluster.runToCompletion(job, migrate, 30_000);
      // Kubernetes starts every Deployment at once; readiness sorts out the order.
      const started = await Promise.all(deployments.map((deployment) => cluster.startWorkload(deployment)));
      started.flat().forEach((running, index) => containers.set(services[index] ?? "?", running));
    });

    after(async () => {
      if (cluster !== undefined) stopped ??= await cluster.stopAll();
      await postgres?.close();
      if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
    });

    const gatewayUrl = () => `http://${cluster.serviceAddress(componentName("gateway"), 8080)}/mcp`;

    test("the migrations hook's command (`node services/store/dist/main.js migrate`) completes", () => {
      assert.equal(
        migration,
        0,
        `the migrations Job ended with ${migration}; the store must offer \`migrate\` (apply pending migrations, then exit 0)`,
      );
    });

    test("every Deployment passes its startup, liveness and readiness probes on the ports the chart names", async () => {
      for (const name of services) {
        const running = containers.get(name);
        assert.ok(running, `${name} started`);
        const { startupProbe, livenessProbe, readinessProbe } = running.container;
        assert.ok(startupProbe && livenessProbe && readinessProbe);
        await waitForProbe(running, startupProbe);
        assert.equal(await probeOnce(running, livenessProbe), undefined, `${name} liveness`);
        // Readiness may depend on peers that are still starting: give it the kubelet's patience.
        await waitForProbe(running, { ...readinessProbe, failureThreshold: 20 });
      }
    });

    test("the gateway turns away a client without a key", async () => {
      const response = await fetch(gatewayUrl(), {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "anonymous", version: "0" } },
        }),
      });
      await response.arrayBuffer();
      assert.equal(response.status, 401);
    });

    test("an MCP client with a key from the mounted API-keys file completes the handshake and a store/search/fetch round trip through the gateway's Service", async () => {
      const client = new Client({ name: "context-hub-chart-run", version: "0.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(gatewayUrl()), {
          requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
        }),
      );
      try {
        // gateway.instructions and gateway.disabledTools, as the client sees them.
        assert.equal(client.getInstructions(), instructions);
        const { tools } = await client.listTools();
        assert.ok(tools.some((tool) => tool.name === "store_context"));
        assert.equal(
          tools.some((tool) => tool.name === disabledTool),
          false,
          `${disabledTool} is disabled by values`,
        );
        const call = async (name: string, args: Record<string, unknown>) => {
          const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
          assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result.content)}`);
          return result.structuredContent as Record<string, unknown>;
        };
        const text = "The chart-driven run stores this note and finds it again through the gateway.";
        const ack = await call("store_context", { thread_id: "chart-run", source: "agent", text, tags: ["helm"] });
        const id = String(ack.context_id);
        const listing = await call("search_context", { thread_id: "chart-run" });
        assert.deepEqual(
          (listing.results as Array<{ id: string }>).map((result) => result.id),
          [id],
        );
        const fetched = await call("get_context_by_ids", { context_ids: [id] });
        assert.equal((fetched.entries as Array<{ text: string }>)[0]?.text, text);
      } finally {
        await client.close();
      }
    });

    test(
      "the `helm test` Pod's command passes against the running release",
      {
        skip: existsSync(join(repoRoot, smokeEntryPoint))
          ? false
          : `${smokeEntryPoint} is not built yet (the smoke command comes with the CLI)`,
      },
      async () => {
        const pod = mustFind(objects, "Pod", componentName("smoke-test"));
        const smoke = podSpecOf(pod)?.containers[0];
        assert.ok(smoke);
        const code = await cluster.runToCompletion(pod, smoke, 60_000);
        const run = cluster.running.at(-1);
        assert.equal(code, 0, run?.output());
      },
    );

    test("the dashboard and every alert read only metric names the running services export", async () => {
      // Scrape where the ServiceMonitor points: each Service's port named in its endpoints.
      const monitor = objects.find((object) => object.kind === "ServiceMonitor");
      assert.ok(monitor, "the scenario renders a ServiceMonitor");
      const portNames = (monitor.spec as { endpoints: Array<{ port: string; path: string }> }).endpoints;
      let exposition = "";
      for (const name of services) {
        const service = mustFind(objects, "Service", componentName(name));
        for (const endpoint of portNames) {
          const port = (service.spec as { ports: Array<{ name: string; port: number }> }).ports.find(
            (candidate) => candidate.name === endpoint.port,
          );
          if (port === undefined) continue;
          const response = await fetch(
            `http://${cluster.serviceAddress(service.metadata.name, port.port)}${endpoint.path}`,
          );
          assert.equal(response.status, 200, `${name} ${endpoint.path}`);
          exposition += `${await response.text()}\n`;
        }
      }
      const families = declaredFamilies(exposition);
      const missing = new Map<string, Set<string>>();
      const check = (where: string, expression: string) => {
        for (const metric of metricNamesIn(expression)) {
          if (externalMetrics.has(metric) || isExposed(metric, families)) continue;
          missing.set(metric, (missing.get(metric) ?? new Set()).add(where));
        }
      };
      for (const expression of dashboardExpressions()) check("dashboard", expression);
      // The alerts of this scenario, and those rendered only with Qdrant as the vector backend.
      for (const rule of [...ruleExpressions(objects), ...ruleExpressions(render("external-postgres-qdrant"))])
        check(rule.alert, rule.expr);
      const report = [...missing].map(([metric, users]) => `${metric} (read by ${[...users].join(", ")})`).sort();
      assert.deepEqual(report, [], `metric names the services do not export:\n${report.join("\n")}`);
    });

    test("every service drains and exits 0 on SIGTERM within its terminationGracePeriodSeconds", async () => {
      stopped = await cluster.stopAll();
      assert.ok(stopped.length >= services.length);
      for (const stop of stopped)
        assert.equal(
          stop.result,
          0,
          `${stop.name} ended with ${stop.result} after ${stop.elapsedMs} ms (grace ${stop.graceSeconds} s)`,
        );
    });
  },
);
