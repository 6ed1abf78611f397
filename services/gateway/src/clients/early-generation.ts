import type { Logger } from "@context-hub/common";
import type { EarlyGenerationSetting } from "../config.js";
import type { Peers } from "./peers.js";

/** The one provider whose calls cost nothing but the worker's own CPU: no bill, no rate limit, no network. */
const freeProvider = "builtin";

export interface EarlyGeneration {
  /** True when the next write may generate before its pre-check has answered. */
  enabled(): boolean;
  /** Settles once the first decision is made: at once for `on` and `off`, after the first round of questions for `auto`. */
  decided: Promise<void>;
  stop(): void;
}

export interface EarlyGenerationOptions {
  setting: EarlyGenerationSetting;
  peers: Pick<Peers, "embedder" | "summarizer">;
  logger: Pick<Logger, "info" | "warn">;
  /** How often `auto` asks the workers again, so a worker redeployed with another provider is noticed. */
  refreshMs: number;
  /** How soon `auto` asks again after a worker could not be reached. */
  retryMs: number;
  /** Deadline of each Describe call. */
  callTimeoutMs: number;
}

/**
 * Decides when a write's generation starts. The pre-check exists to spare a
 * likely retransmit its generation; waiting for it costs a new entry the
 * pre-check's round trip. With hosted providers that round trip is small
 * beside the provider's own latency, and generation spent on a retransmit is
 * billed and counts against the provider's rate limit, so generation waits.
 * With the built-in providers generation is a millisecond or two of local
 * CPU, the same order as the pre-check, so starting both at once shortens
 * every write and a retransmit only wastes that CPU (its calls are
 * cancelled once the pre-check finds the duplicate).
 *
 * `auto` starts off (generation waits) and turns on once both workers
 * describe the built-in provider (the summarizer counts as free when
 * summaries are off); it asks again every `refreshMs` (after `retryMs`
 * when a worker could not be reached) and keeps its last answer meanwhile.
 */
export function createEarlyGeneration(options: EarlyGenerationOptions): EarlyGeneration {
  if (options.setting !== "auto") {
    const fixed = options.setting === "on";
    return { enabled: () => fixed, decided: Promise.resolve(), stop: () => undefined };
  }
  const { peers, logger } = options;
  let enabled = false;
  let decidedOnce = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  /** Asks both workers; true when they answered. */
  const ask = async (): Promise<boolean> => {
    try {
      const deadline = { deadlineMs: options.callTimeoutMs };
      const [embedder, summarizer] = await Promise.all([
        peers.embedder.describe({}, deadline),
        peers.summarizer?.describe({}, deadline),
      ]);
      if (stopped) return true;
      const free =
        embedder.provider === freeProvider && (summarizer === undefined || summarizer.provider === freeProvider);
      if (free !== enabled || !decidedOnce) {
        const providers = `embedder ${embedder.provider}${summarizer === undefined ? "" : `, summarizer ${summarizer.provider}`}`;
        logger.info(
          { providers },
          free
            ? "generation starts beside the dedup pre-check: the providers are built in"
            : "generation waits for the dedup pre-check: a provider is hosted",
        );
      }
      enabled = free;
      decidedOnce = true;
      return true;
    } catch (error) {
      if (!stopped) {
        const keeping = decidedOnce
          ? "keeping the last answer"
          : "generation waits for the dedup pre-check until they answer";
        logger.warn(
          { error: error instanceof Error ? error.message : String(error) },
          `could not ask the generation workers for their providers; ${keeping}`,
        );
      }
      return false;
    }
  };
  const askAndSchedule = async () => {
    const answered = await ask();
    if (stopped) return;
    timer = setTimeout(() => void askAndSchedule(), answered ? options.refreshMs : options.retryMs);
    timer.unref();
  };
  const decided = askAndSchedule();

  return {
    enabled: () => enabled,
    decided,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
