import type { Logger, RunningService } from "@context-hub/common";
import { startGrpcService } from "@context-hub/common";
import { summarizerV1 } from "@context-hub/proto";
import { createBuiltinSummaryProvider } from "./builtin-summary-provider.js";
import type { SummarizerConfig } from "./config.js";
import { createSummarizerHandlers } from "./server.js";
import { createSummarizer } from "./summarizer.js";
import type { SummaryProvider } from "./summary-provider.js";

export { loadSummarizerConfig, summarizerProviders, type SummarizerConfig } from "./config.js";
export type { SectionText, SummaryProvider, TextSource } from "./summary-provider.js";
export { builtinSummaryLength, builtinSummaryModel, createBuiltinSummaryProvider } from "./builtin-summary-provider.js";
export { summarizeExtractive, type ExtractiveOptions } from "./extractive-summary.js";
export { createSummarizer, type SectionSummary, type Summarizer, type SummarizerOptions } from "./summarizer.js";

export interface SummarizerDependencies {
  /** Replaces the provider chosen by `config.provider` (tests, custom runtimes). */
  provider?: SummaryProvider;
}

/** The provider `config.provider` names. */
export function createSummaryProvider(config: SummarizerConfig): SummaryProvider {
  switch (config.provider) {
    case "builtin":
      return createBuiltinSummaryProvider();
  }
}

/** Starts the summarizer: gRPC SummarizerService plus the ops endpoint. The built-in provider needs no warm-up. */
export async function startSummarizer(config: SummarizerConfig, logger: Logger, dependencies: SummarizerDependencies = {}): Promise<RunningService> {
  const provider = dependencies.provider ?? createSummaryProvider(config);
  const summarizer = createSummarizer({ provider, minChars: config.minChars, sectionMinChars: config.sectionMinChars, maxTextChars: config.maxTextChars });
  return startGrpcService({
    name: "summarizer",
    host: config.host,
    port: config.port,
    opsPort: config.opsPort,
    logger,
    register: (builder) => builder.addService(summarizerV1.SummarizerService, createSummarizerHandlers(summarizer)),
  });
}
