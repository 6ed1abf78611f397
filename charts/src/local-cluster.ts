/**
 * A stand-in for a cluster on one machine: runs the containers of rendered
 * Deployments, Jobs and Pods as local processes with exactly the environment
 * the chart renders, after resolving what a kubelet would (Secret references,
 * $(VAR) expansion, volumes), and maps cluster DNS names to 127.0.0.1 and every
 * container port to a free local port. Probes are run as the kubelet runs them.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import {
  podSpecOf,
  repoRoot,
  type Container,
  type EnvVar,
  type KubeObject,
  type PodSpec,
  type Probe,
} from "./chart.js";

/** A free TCP port on 127.0.0.1 (released before it is returned; good enough for tests). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The promise's value, or `onTimeout` after `ms`; the timer never outlives the race. */
async function within<T, U>(promise: Promise<T>, ms: number, onTimeout: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<U>((resolve) => (timer = setTimeout(() => resolve(onTimeout), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A container running as a local process. */
export interface RunningContainer {
  /** "<pod owner>/<container>", for messages. */
  name: string;
  container: Container;
  pod: PodSpec;
  /** The environment the process was given, after resolution and remapping. */
  env: Record<string, string>;
  /** Local port of a container port, by name or number. */
  localPort(port: number | string): number;
  /** The last output of the process, for failure messages. */
  output(): string;
  /** Resolves with the exit code (or the signal name) once the process ends. */
  exited: Promise<number | string>;
  process: ChildProcess;
}

export interface LocalClusterOptions {
  namespace: string;
  /** Secrets the operator would have created before installing (name → key → value). */
  secrets: Record<string, Record<string, string>>;
  /** Scratch directory for volumes. */
  workDir: string;
}

interface PortEntry {
  containerPort: number;
  name?: string;
  local: number;
}

export class LocalCluster {
  private readonly ports = new Map<string, PortEntry[]>();
  private readonly serviceRoutes = new Map<string, number>();
  private readonly secrets = new Map<string, Record<string, string>>();
  readonly running: RunningContainer[] = [];

  private constructor(
    private readonly objects: readonly KubeObject[],
    private readonly options: LocalClusterOptions,
  ) {}

  /** Allocates local ports for every container port of the given workloads and routes their Services there. */
  static async create(
    objects: readonly KubeObject[],
    workloads: readonly KubeObject[],
    options: LocalClusterOptions,
  ): Promise<LocalCluster> {
    const cluster = new LocalCluster(objects, options);
    for (const [name, data] of Object.entries(options.secrets)) cluster.secrets.set(name, data);
    for (const secret of objects.filter((object) => object.kind === "Secret")) {
      const data = Object.fromEntries(
        Object.entries((secret.data as Record<string, string> | undefined) ?? {}).map(([key, value]) => [
          key,
          Buffer.from(value, "base64").toString("utf8"),
        ]),
      );
      cluster.secrets.set(secret.metadata.name, {
        ...data,
        ...((secret.stringData as Record<string, string> | undefined) ?? {}),
      });
    }
    for (const workload of workloads) {
      const pod = podSpecOf(workload);
      if (pod === undefined) continue;
      for (const container of pod.containers) {
        const entries: PortEntry[] = [];
        for (const port of container.ports ?? [])
          entries.push({ containerPort: port.containerPort, name: port.name, local: await freePort() });
        cluster.ports.set(`${workload.metadata.name}/${container.name}`, entries);
      }
    }
    for (const service of objects.filter((object) => object.kind === "Service")) {
      const spec = service.spec as {
        selector?: Record<string, string>;
        ports: Array<{ port: number; targetPort?: number | string }>;
      };
      const target = workloads.find((workload) => {
        const labels =
          (workload.spec as { template?: { metadata?: { labels?: Record<string, string> } } }).template?.metadata
            ?.labels ??
          workload.metadata.labels ??
          {};
        return (
          spec.selector !== undefined && Object.entries(spec.selector).every(([key, value]) => labels[key] === value)
        );
      });
      if (target === undefined) continue;
      for (const port of spec.ports) {
        const targetPort = port.targetPort ?? port.port;
        for (const container of podSpecOf(target)?.containers ?? []) {
          const entry = cluster.ports
            .get(`${target.metadata.name}/${container.name}`)
            ?.find((candidate) => candidate.name === targetPort || candidate.containerPort === targetPort);
          if (entry !== undefined) cluster.serviceRoutes.set(`${service.metadata.name}:${port.port}`, entry.local);
        }
      }
    }
    return cluster;
  }

  /** 127.0.0.1:<port> that a Service's port is routed to. */
  serviceAddress(service: string, port: number): string {
    const local = this.serviceRoutes.get(`${service}:${port}`);
    if (local === undefined) throw new Error(`Service ${service} has no routed port ${port}`);
    return `127.0.0.1:${local}`;
  }

  /** Rewrites every "<service>[.<namespace>[.svc[.cluster.local]]]:<port>" in a value to its local address. */
  rewriteHosts(value: string): string {
    const namespace = this.options.namespace.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return value.replace(
      new RegExp(`([a-z0-9]([-a-z0-9]*[a-z0-9])?)(\\.${namespace}(\\.svc(\\.cluster\\.local)?)?)?:(\\d+)`, "g"),
      (match, host: string, _a, _b, _c, _d, port: string) => {
        const local = this.serviceRoutes.get(`${host}:${port}`);
        return local === undefined ? match : `127.0.0.1:${local}`;
      },
    );
  }

  private secretValue(name: string, key: string, where: string): string {
    const value = this.secrets.get(name)?.[key];
    if (value === undefined)
      throw new Error(`${where}: Secret ${name} has no key ${key} (create it before installing)`);
    return value;
  }

  /** Materialises a pod's volumes under the work directory; returns mountPath → local directory for a container. */
  private mountsOf(owner: string, pod: PodSpec, container: Container): Map<string, string> {
    const mounts = new Map<string, string>();
    for (const mount of container.volumeMounts ?? []) {
      const volume = pod.volumes?.find((candidate) => candidate.name === mount.name);
      if (volume === undefined) throw new Error(`${owner}/${container.name}: mount of undeclared volume ${mount.name}`);
      const directory = join(this.options.workDir, owner, mount.name);
      mkdirSync(directory, { recursive: true });
      if (volume.secret !== undefined) {
        const data = this.secrets.get(volume.secret.secretName);
        if (data === undefined) throw new Error(`${owner}: Secret ${volume.secret.secretName} does not exist`);
        for (const [key, value] of Object.entries(data)) writeFileSync(join(directory, key), value);
      }
      mounts.set(mount.mountPath, directory);
    }
    return mounts;
  }

  /**
   * The environment a kubelet would give the container: envFrom Secrets, then
   * env in order with $(VAR) expanded from earlier variables and Secret
   * references resolved; then cluster addresses, container ports and mount
   * paths mapped to this machine.
   */
  private resolveEnv(
    owner: string,
    container: Container,
    ports: readonly PortEntry[],
    mounts: ReadonlyMap<string, string>,
  ): Record<string, string> {
    const where = `${owner}/${container.name}`;
    const env: Record<string, string> = {};
    for (const source of container.envFrom ?? []) {
      if (source.secretRef === undefined) throw new Error(`${where}: only secretRef envFrom is supported`);
      const data = this.secrets.get(source.secretRef.name);
      if (data === undefined) throw new Error(`${where}: Secret ${source.secretRef.name} does not exist`);
      Object.assign(env, data);
    }
    for (const variable of container.env ?? []) env[variable.name] = this.valueOf(variable, env, where);
    for (const [name, value] of Object.entries(env)) env[name] = this.localise(value, ports, mounts);
    return env;
  }

  private valueOf(variable: EnvVar, earlier: Record<string, string>, where: string): string {
    if (variable.value !== undefined) {
      return variable.value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (match, name: string | undefined) =>
        name === undefined ? "$" : (earlier[name] ?? match),
      );
    }
    const secret = variable.valueFrom?.secretKeyRef;
    if (secret !== undefined) return this.secretValue(secret.name, secret.key, where);
    throw new Error(`${where}: ${variable.name} has a source this stand-in does not resolve`);
  }

  private localise(value: string, ports: readonly PortEntry[], mounts: ReadonlyMap<string, string>): string {
    const own = ports.find((port) => String(port.containerPort) === value);
    if (own !== undefined) return String(own.local);
    for (const [mountPath, directory] of mounts) {
      if (value === mountPath || value.startsWith(`${mountPath}/`)) return directory + value.slice(mountPath.length);
    }
    return this.rewriteHosts(value);
  }

  /** Starts one container of a workload as a process in the repository root (the image's WORKDIR). */
  private start(workload: KubeObject, pod: PodSpec, container: Container): RunningContainer {
    const owner = workload.metadata.name;
    const ports = this.ports.get(`${owner}/${container.name}`) ?? [];
    const mounts = this.mountsOf(owner, pod, container);
    const env = this.resolveEnv(owner, container, ports, mounts);
    const argv = [...(container.command ?? []), ...(container.args ?? [])].map((arg) =>
      this.localise(arg, ports, mounts),
    );
    const [command, ...args] = argv;
    if (command === undefined)
      throw new Error(`${owner}/${container.name} has no command; the image's default is not used by this chart`);
    // The image's own ENV (Dockerfile) plus exactly what the chart sets.
    const imageEnv = {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      NODE_ENV: "production",
      HOME: join(this.options.workDir, owner),
    };
    const child = spawn(command === "node" ? process.execPath : command, args, {
      cwd: repoRoot,
      env: { ...imageEnv, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-20_000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const exited = new Promise<number | string>((resolve) =>
      child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
    );
    const running: RunningContainer = {
      name: `${owner}/${container.name}`,
      container,
      pod,
      env,
      process: child,
      exited,
      output: () => output,
      localPort(port) {
        const entry = ports.find((candidate) => candidate.name === port || candidate.containerPort === port);
        if (entry === undefined) throw new Error(`${owner}/${container.name} has no port ${port}`);
        return entry.local;
      },
    };
    this.running.push(running);
    return running;
  }

  /** Runs a workload's init containers to completion, then starts its main containers. */
  async startWorkload(workload: KubeObject): Promise<RunningContainer[]> {
    const pod = podSpecOf(workload);
    if (pod === undefined) throw new Error(`${workload.kind} ${workload.metadata.name} has no pod template`);
    for (const init of pod.initContainers ?? []) {
      const code = await this.runToCompletion(workload, init, 60_000);
      if (code !== 0) throw new Error(`init container ${workload.metadata.name}/${init.name} exited with ${code}`);
    }
    return pod.containers.map((container) => this.start(workload, pod, container));
  }

  /** Runs a container (a Job's, an init container, a test Pod's) and returns its exit code, or "timeout". */
  async runToCompletion(workload: KubeObject, container: Container, timeoutMs: number): Promise<number | string> {
    const pod = podSpecOf(workload);
    if (pod === undefined) throw new Error(`${workload.kind} ${workload.metadata.name} has no pod template`);
    const running = this.start(workload, pod, container);
    const result = await within(running.exited, timeoutMs, "timeout" as const);
    if (result === "timeout") {
      running.process.kill("SIGKILL");
      await running.exited;
    }
    return result;
  }

  /** Stops every process still running (SIGTERM, then SIGKILL after its grace period); returns how each ended. */
  async stopAll(): Promise<Array<{ name: string; result: number | string; graceSeconds: number; elapsedMs: number }>> {
    const stops = this.running
      .filter((running) => running.process.exitCode === null && running.process.signalCode === null)
      .map(async (running) => {
        const graceSeconds = running.pod.terminationGracePeriodSeconds ?? 30;
        const started = Date.now();
        running.process.kill("SIGTERM");
        const result = await within(running.exited, graceSeconds * 1000, "grace period exceeded" as const);
        if (result === "grace period exceeded") {
          running.process.kill("SIGKILL");
          await running.exited;
        }
        return { name: running.name, result, graceSeconds, elapsedMs: Date.now() - started };
      });
    return Promise.all(stops);
  }
}

/** One kubelet-style probe attempt: HTTP 2xx/3xx, gRPC health SERVING, or exec exit 0. */
export async function probeOnce(running: RunningContainer, probe: Probe): Promise<string | undefined> {
  if (probe.httpGet !== undefined) {
    const port = running.localPort(probe.httpGet.port);
    try {
      const response = await fetch(`http://127.0.0.1:${port}${probe.httpGet.path}`, {
        signal: AbortSignal.timeout(3000),
      });
      await response.arrayBuffer();
      return response.status >= 200 && response.status < 400
        ? undefined
        : `GET ${probe.httpGet.path} answered ${response.status}`;
    } catch (error) {
      return `GET ${probe.httpGet.path}: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  if (probe.grpc !== undefined)
    return grpcHealthCheck(`127.0.0.1:${running.localPort(probe.grpc.port)}`, probe.grpc.service ?? "");
  return "this stand-in runs only httpGet and grpc probes";
}

/** Polls a probe the way the kubelet would give up on it: failureThreshold × periodSeconds. */
export async function waitForProbe(running: RunningContainer, probe: Probe): Promise<void> {
  const deadline = Date.now() + (probe.failureThreshold ?? 3) * (probe.periodSeconds ?? 10) * 1000;
  let last: string | undefined = "not probed";
  while (Date.now() < deadline) {
    if (running.process.exitCode !== null)
      throw new Error(`${running.name} exited with ${running.process.exitCode}:\n${running.output()}`);
    last = await probeOnce(running, probe);
    if (last === undefined) return;
    await delay(250);
  }
  throw new Error(`${running.name} never passed its probe (${last}):\n${running.output()}`);
}

/**
 * grpc.health.v1.Health/Check, as the kubelet's gRPC probe sends it. The
 * messages are tiny, so they are encoded by hand: the request carries only
 * `service` (field 1), the reply only `status` (field 1, SERVING = 1).
 */
export async function grpcHealthCheck(address: string, service: string): Promise<string | undefined> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const name = Buffer.from(service, "utf8");
  const request = name.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a, name.length]), name]);
  try {
    return await new Promise<string | undefined>((resolve) => {
      client.makeUnaryRequest(
        "/grpc.health.v1.Health/Check",
        (message: Buffer) => message,
        (bytes: Buffer) => bytes,
        request,
        { deadline: Date.now() + 3000 },
        (error, reply) => {
          if (error) return resolve(`grpc health: ${error.message}`);
          const status = reply !== undefined && reply.length >= 2 && reply[0] === 0x08 ? reply[1] : 0;
          resolve(status === 1 ? undefined : `grpc health status ${status}`);
        },
      );
    });
  } finally {
    client.close();
  }
}
