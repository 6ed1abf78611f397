/**
 * Generation for texts about to be written (I-4): embeddings of every chunk
 * of every text in one batch, summaries and node summaries in parallel. A
 * failed mandatory leg (embedding; the summary when a summarizer is
 * configured) cancels the other and fails the write, naming the leg, before
 * anything is committed.
 */
import { ContextHubError, createChildAbortController, isContextHubError } from "@context-hub/common";
import {
  noSummary,
  toGenerated,
  type EmbeddedText,
  type Generated,
  type GenerationClient,
  type SummarizedText,
} from "../clients/generation-client.js";
import { timeStage, type WriteStage } from "./stage-timing.js";
import type { GenerationInput } from "../write-types.js";

/** Generates for texts; aborting `signal` cancels the worker calls still running (their results are no longer wanted). */
export type Generate = (inputs: readonly GenerationInput[], signal?: AbortSignal) => Promise<Generated[]>;

/** The generation step over the workers' clients. */
export function createGenerate(workers: GenerationClient): Generate {
  const { embed, summarize } = workers;
  return async (inputs, signal) => {
    if (inputs.length === 0) return [];
    const legs = createChildAbortController(signal);
    // A failed leg leaves the other leg's result unwanted too.
    const leg = <T>(
      stage: WriteStage,
      work: (signal: AbortSignal) => Promise<T>,
      onFailure: (error: unknown) => ContextHubError,
    ): Promise<T> =>
      timeStage(stage, () => work(legs.signal), legs.signal).catch((error: unknown) => {
        legs.abort();
        throw onFailure(error);
      });
    const embedding = leg(
      "embed",
      (legSignal) =>
        embed(
          inputs.map((input) => input.text),
          legSignal,
        ),
      (error) => legFailure("embedding", "EMBEDDER_UNAVAILABLE", error),
    );
    // The summary is mandatory; node summaries never fail a write: the summarizer answers without them once
    // sectionSummaryTimeoutMs has passed.
    const summaries =
      summarize === undefined
        ? Promise.resolve(inputs.map(noSummary))
        : leg(
            "summarize",
            (legSignal) => summarize([...inputs], legSignal),
            (error) => legFailure("summary", "SUMMARIZER_UNAVAILABLE", error),
          );

    let embedded: EmbeddedText[];
    let summarized: SummarizedText[];
    try {
      [embedded, summarized] = await Promise.all([embedding, summaries]);
    } finally {
      legs.release();
    }
    return inputs.map((input, index) => toGenerated(input, embedded[index]!, summarized[index]!));
  };
}

/** The error a failed leg fails its write with. */
export function legFailure(
  leg: string,
  code: "EMBEDDER_UNAVAILABLE" | "SUMMARIZER_UNAVAILABLE",
  cause: unknown,
): ContextHubError {
  // A text over its processing budget is no outage: retrying the same text fails the same way, and the error already names its stage.
  if (isContextHubError(cause) && cause.code === "TEXT_BUDGET_EXCEEDED") {
    return new ContextHubError(cause.code, cause.message, {
      ...(cause.remedy === undefined ? {} : { remedy: cause.remedy }),
      details: { ...cause.details, leg },
    });
  }
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ContextHubError(code, `${leg} failed, so nothing was stored: ${reason}`, {
    remedy: "retry the same call later; if it keeps failing, check the generation worker and its provider",
    details: { leg },
    cause,
  });
}
