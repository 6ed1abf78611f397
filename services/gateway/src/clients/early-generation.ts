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
 * summaries are off); it asks again every `refreshMs`, and keeps its last
 * answer while a worker cannot be reached.
 */
export function createEarlyGeneration(options: EarlyGenerationOptions): EarlyGeneration {
  if (options.setting !== "auto") {
    const fixed = options.setting === "on";
    return { enabled: () => fixed, decided: Promise.resolve(), stop: () => undefined };
  }
  const { peers, logger } = options;
  let enabled = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const ask = async () => {
    try {
      const deadline = { deadlineMs: options.callTimeoutMs };
      const [embedder, summarizer] = await Promise.all([peers.embedder.describe({}, deadline), peers.summarizer?.describe({}, deadline)]);
      const free = embedder.provider === freeProvider && (summarizer === undefined || summarizer.provider === freeProvider);
      if (free !== enabled && !stopped) {
        enabled = free;
        const providers = `embedder ${embedder.provider}${summarizer === undefined ? "" : `, summarizer ${summarizer.provider}`}`;
        logger.info({ providers }, free ? "generation starts beside the dedup pre-check: the providers are built in" : "generation waits for the dedup pre-check: a provider is hosted");
      }
    } catch (error) {
      logger.warn({ error: error instanceof Error ? error.message : String(error) }, "could not ask the generation workers for their providers; keeping the last answer");
    }
  };
  const schedule = () => {
    timer = setTimeout(() => void ask().finally(() => stopped || schedule()), options.refreshMs);
    timer.unref();
  };
  const decided = ask().finally(() => stopped || schedule());

  return {
    enabled: () => enabled,
    decided,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
