import { pino, type Logger } from "pino";
import { currentRequestContext } from "./request-context.js";
import { currentTraceIds } from "./tracing.js";

export type { Logger } from "pino";

/** A JSON logger that stamps every line with the service name and the current request id; to stdout unless given a `destination` (tests). */
export function createLogger(service: string, level = "info", destination?: { write(line: string): void }): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const context = currentRequestContext();
      const ids = currentTraceIds();
      return {
        ...(context === undefined ? {} : { requestId: context.requestId }),
        ...(context?.clientRequestId === undefined ? {} : { clientRequestId: context.clientRequestId }),
        ...(ids === undefined ? {} : { traceId: ids.traceId, spanId: ids.spanId }),
      };
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
