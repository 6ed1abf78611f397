/** The write path's per-stage latency histogram and the timer every stage runs under. */
import { fineLatencyBuckets, histogram } from "@context-hub/common";

export type WriteStage = "validate" | "dedup_check" | "embed" | "summarize" | "commit" | "total";

const stageSeconds = histogram(
  "contexthub_write_stage_seconds",
  "Write latency per stage of the write path, in seconds; outcome ok, error, or cancelled (generation no longer wanted: the write folded into its duplicate or another leg failed).",
  ["stage", "outcome"],
  fineLatencyBuckets,
);

/**
 * Times one stage of a write and records it, whether it succeeds or fails. A
 * stage that fails after `cancel` was aborted counts as cancelled, not as an
 * error: its result was no longer wanted.
 */
export async function timeStage<T>(stage: WriteStage, work: () => Promise<T>, cancel?: AbortSignal): Promise<T> {
  const started = performance.now();
  try {
    const result = await work();
    stageSeconds.observe({ stage, outcome: "ok" }, (performance.now() - started) / 1000);
    return result;
  } catch (error) {
    stageSeconds.observe(
      { stage, outcome: cancel?.aborted === true ? "cancelled" : "error" },
      (performance.now() - started) / 1000,
    );
    throw error;
  }
}
