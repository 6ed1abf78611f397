import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from "@opentelemetry/api";
import { logs } from "@opentelemetry/api-logs";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-node";
import { createRequire } from "node:module";
import type { NodeSDK } from "@opentelemetry/sdk-node";
import { z } from "zod";
import { envOptionalString, envString, loadConfig } from "./config.js";

/**
 * OpenTelemetry tracing, off unless configured: with OTEL_EXPORTER_OTLP_ENDPOINT
 * (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, spans go to that collector over
 * OTLP/HTTP. Spans cover MCP tool calls, gRPC calls on both sides (the W3C
 * trace context rides in gRPC metadata), database queries and model-provider
 * requests; log lines carry the trace and span ids beside the request id.
 */

export interface Tracing {
  /** Flushes pending spans and stops exporting. */
  shutdown(): Promise<void>;
}

let active: { sdk: NodeSDK; processors: SpanProcessor[]; users: number } | undefined;

/**
 * The SDK, loaded when tracing starts: it pulls in every exporter it can
 * build (about half a second of imports), which a process tracing nothing
 * should not pay at startup.
 */
function loadNodeSdk(): typeof NodeSDK {
  const require = createRequire(import.meta.url);
  return (require("@opentelemetry/sdk-node") as { NodeSDK: typeof NodeSDK }).NodeSDK;
}

/**
 * The OpenTelemetry variables every service reads. The OTLP exporter reads
 * the endpoints (and the other standard OTEL_EXPORTER_OTLP_* settings, such
 * as headers) itself; these are the ones that decide whether and as what
 * a service traces.
 */
export const tracingEnvSchema = {
  OTEL_EXPORTER_OTLP_ENDPOINT: envOptionalString().describe(
    "OTLP/HTTP collector base URL, e.g. http://otel-collector:4318; spans go to its /v1/traces. Unset (and no traces endpoint): tracing is off.",
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: envOptionalString().describe(
    "Full OTLP/HTTP traces URL, used instead of OTEL_EXPORTER_OTLP_ENDPOINT for traces; setting either turns tracing on.",
  ),
  OTEL_SERVICE_NAME: envOptionalString().describe(
    "The service.name spans carry; unset: the service's own name (gateway, store, …).",
  ),
  OTEL_SDK_DISABLED: envString("false").describe("`true` (any case) turns tracing off even when an endpoint is set."),
};

const tracingEnv = z.object(tracingEnvSchema);

/** Whether the environment asks for traces. */
export function isTracingConfigured(env: NodeJS.ProcessEnv): boolean {
  const settings = loadConfig(tracingEnv, env);
  if (settings.OTEL_SDK_DISABLED.toLowerCase() === "true") return false;
  return (
    settings.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined
  );
}

/**
 * Starts exporting traces for this process if the environment asks for it
 * (one provider per process, shared by every service in it). `processors`
 * replaces the OTLP exporter (tests).
 */
export function startTracing(
  serviceName: string,
  env: NodeJS.ProcessEnv,
  processors?: SpanProcessor[],
): Tracing | undefined {
  if (processors === undefined && !isTracingConfigured(env)) return undefined;
  if (active === undefined) {
    const spanProcessors = processors ?? [new BatchSpanProcessor(new OTLPTraceExporter())];
    const Sdk = loadNodeSdk();
    const sdk = new Sdk({
      // Only the resource named here: the SDK's host and process detectors would add attributes this service never sent.
      resource: resourceFromAttributes({
        "service.name": loadConfig(tracingEnv, env).OTEL_SERVICE_NAME ?? serviceName,
      }),
      autoDetectResources: false,
      spanProcessors,
      // W3C trace context and baggage, whatever OTEL_PROPAGATORS says: gRPC metadata carries exactly these headers.
      textMapPropagator: new CompositePropagator({
        propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
      }),
      // Traces only: with no readers or processors of their own the SDK would start OTLP metric and log exporters too.
      metricReaders: [],
      logRecordProcessors: [],
    });
    sdk.start();
    active = { sdk, processors: spanProcessors, users: 0 };
  }
  const state = active;
  state.users++;
  let stopped = false;
  return {
    async shutdown() {
      if (stopped) return;
      stopped = true;
      state.users--;
      if (state.users > 0) {
        await Promise.all(state.processors.map((processor) => processor.forceFlush()));
        return;
      }
      await state.sdk.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
      logs.disable();
      if (active === state) active = undefined;
    },
  };
}

const tracer = () => trace.getTracer("context-hub");

/** Whether this process records spans; callers skip work that only feeds span attributes when it does not. */
export function isTracing(): boolean {
  return active !== undefined;
}

/** The span `withSpan` hands to work while tracing is off: records nothing. */
const idleSpan = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Runs `work` in a span that records failures; a no-op span, and no context switch, when tracing is off. */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  options: { kind?: SpanKind; parent?: Context } = {},
): Promise<T> {
  if (active === undefined) return work(idleSpan);
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes },
    options.parent ?? context.active(),
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Writes the current trace context into carrier headers (gRPC metadata, HTTP headers). */
export function injectTraceContext(set: (key: string, value: string) => void): void {
  propagation.inject(context.active(), {}, { set: (_carrier, key, value) => set(key, value) });
}

/** Reads a trace context from carrier headers. */
export function extractTraceContext(get: (key: string) => string | undefined): Context {
  return propagation.extract(
    context.active(),
    {},
    { get: (_carrier, key) => get(key), keys: () => ["traceparent", "tracestate"] },
  );
}

/** The active span's ids, for log lines. */
export function currentTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return traceFlags === 0 && traceId === "00000000000000000000000000000000" ? undefined : { traceId, spanId };
}

export { SpanKind };
