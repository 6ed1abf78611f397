import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { withSpan } from "./tracing.js";

/**
 * One registry per process. In the all-in-one runtime several services share
 * a process; their series are told apart by labels, never by registry.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** Latency buckets in seconds, from 1 ms to 60 s. */
export const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Finer buckets for the stages of a write, most of which take 0.5–10 ms on
 * the embedded default: with only 1, 2.5 and 5 ms between them, a stage's
 * median could not be told to within a millisecond.
 */
export const fineLatencyBuckets = [
  0.0005, 0.001, 0.0015, 0.002, 0.0025, 0.003, 0.004, 0.005, 0.0065, 0.008, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
  2.5, 5, 10, 30, 60,
];

function existing<T>(name: string): T | undefined {
  return metricsRegistry.getSingleMetric(name) as T | undefined;
}

/** Gets or creates a histogram, so modules loaded twice in one process share it. */
export function histogram<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets = latencyBuckets,
): Histogram<L> {
  return (
    existing<Histogram<L>>(name) ?? new Histogram({ name, help, labelNames, buckets, registers: [metricsRegistry] })
  );
}

export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return existing<Counter<L>>(name) ?? new Counter({ name, help, labelNames, registers: [metricsRegistry] });
}

export function gauge<L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> {
  return existing<Gauge<L>>(name) ?? new Gauge({ name, help, labelNames, registers: [metricsRegistry] });
}

const providerSeconds = histogram(
  "contexthub_provider_request_seconds",
  "Model provider requests (embed, summarize, answer, rerank) by provider, operation and outcome, in seconds.",
  ["provider", "operation", "outcome"],
);

/** Times one request to a model provider and records its outcome. */
export async function observeProviderRequest<T>(
  provider: string,
  operation: string,
  request: () => Promise<T>,
): Promise<T> {
  return withSpan(`provider ${operation}`, { "contexthub.provider": provider, "contexthub.operation": operation }, () =>
    timeProviderRequest(provider, operation, request),
  );
}

async function timeProviderRequest<T>(provider: string, operation: string, request: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await request();
    providerSeconds.observe({ provider, operation, outcome: "ok" }, (performance.now() - started) / 1000);
    return result;
  } catch (error) {
    providerSeconds.observe({ provider, operation, outcome: "error" }, (performance.now() - started) / 1000);
    throw error;
  }
}
