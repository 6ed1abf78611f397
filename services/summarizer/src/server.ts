// The summarizer's gRPC transport: translates SummarizerService messages to and from the domain.
import { invalidArgument, type ServiceImplementation } from "@context-hub/common";
import { commonV1, type summarizerV1 } from "@context-hub/proto";
import type { Summarizer } from "./summarizer.js";
import type { TextSource } from "./summary-provider.js";

/** The domain source of a proto Source; unknown values are the caller's mistake. */
export function fromProtoSource(source: commonV1.Source): TextSource {
  switch (source) {
    case commonV1.Source.USER:
      return "user";
    case commonV1.Source.AGENT:
      return "agent";
    case commonV1.Source.UNSPECIFIED:
      return "unspecified";
    default:
      throw invalidArgument(`source ${String(source)} is not a known Source`, "send SOURCE_USER, SOURCE_AGENT or SOURCE_UNSPECIFIED");
  }
}

/** The SummarizerService handlers over a summarizer. */
export function createSummarizerHandlers(summarizer: Summarizer): ServiceImplementation<typeof summarizerV1.SummarizerService> {
  return {
    async describe() {
      return summarizer.describe();
    },
    async summarize(request, context) {
      return { summary: await summarizer.summarize(request.text, fromProtoSource(request.source), context.signal) };
    },
    async summarizeSections(request, context) {
      const sections = await summarizer.summarizeSections(request.text, fromProtoSource(request.source), context.signal);
      return {
        sections: sections.map((section) => ({
          nodeId: section.nodeId,
          heading: section.heading,
          level: section.level,
          span: { start: section.start, end: section.end },
          summary: section.summary,
        })),
      };
    },
  };
}
