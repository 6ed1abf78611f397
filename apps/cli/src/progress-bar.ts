/**
 * The progress report of the long operator commands (reembed, reindex,
 * backfill-memories, export, import):
 * done/total chunks, this run's rate and the time left. On a terminal it
 * redraws one bar at most ten times a second; anywhere else (a log file, CI,
 * a Kubernetes Job) it writes a plain line every `lineMs`, and always a last
 * one, so a log shows how far a run got before it stopped.
 */

/** Where the progress goes: a terminal gets one redrawn line, anything else a plain line now and then. */
export interface ProgressSink {
  write(text: string): void;
  isTTY: boolean;
}

/** The process's standard error, where the commands report progress unless told otherwise. */
export const stderrSink = (): ProgressSink => ({
  write: (text: string) => process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
});

export interface ProgressState {
  /** Chunks finished, including those an earlier (resumed) run finished. */
  done: number;
  total: number;
  /** Chunks this run wrote; the rate and the time left come from it. */
  written: number;
}

export interface ProgressBar {
  update(state: ProgressState): void;
  finish(): void;
}

/** A count with thousands separators, as the commands print them. */
export const count = (value: number): string => value.toLocaleString("en-US");

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, "0")}m`;
}

/** A progress bar whose plain lines start with `label` (e.g. "reindexed"), counting `unit` (chunks unless named). */
export function createProgressBar(sink: ProgressSink, label: string, lineMs: number, unit = "chunks"): ProgressBar {
  const began = performance.now();
  let state: ProgressState = { done: 0, total: 0, written: 0 };
  let lastDrawn = Number.NEGATIVE_INFINITY;
  const draw = (final: boolean) => {
    const now = performance.now();
    if (!final && now - lastDrawn < (sink.isTTY ? 100 : lineMs)) return;
    lastDrawn = now;
    const seconds = (now - began) / 1000;
    const rate = seconds > 0 ? state.written / seconds : 0;
    const done = Math.min(state.done, state.total);
    const left = state.total - done;
    const eta = left === 0 ? 0 : rate > 0 ? left / rate : Number.POSITIVE_INFINITY;
    const percent = state.total === 0 ? 100 : Math.floor((done / state.total) * 100);
    const text = `${count(done)}/${count(state.total)} ${unit} (${percent}%)  ${rate.toFixed(1)} ${unit}/s  ETA ${duration(eta)}`;
    if (sink.isTTY) {
      const width = 30;
      const filled = Math.round((percent / 100) * width);
      sink.write(`\r\u001b[2K[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${text}${final ? "\n" : ""}`);
    } else {
      sink.write(`${label} ${text}\n`);
    }
  };
  return {
    update(next) {
      state = next;
      draw(false);
    },
    finish() {
      draw(true);
    },
  };
}
