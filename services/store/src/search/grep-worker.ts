// Worker thread of grep: runs a pattern over texts one by one and reports each result as soon as it has it,
// so the store's main thread can stop a pattern that takes too long on any one text (see grep-runner.ts).
import { parentPort } from "node:worker_threads";
import { grepText, type GrepTextOptions, type GrepTextResult } from "./grep-text.js";

/** A batch of texts to grep, from the runner. */
export interface GrepWorkerJob {
  source: string;
  flags: string;
  texts: string[];
  options: GrepTextOptions;
}

/** What the worker reports: `started` once it holds the job, one message per text in order, then `done`. */
export type GrepWorkerMessage =
  | { type: "started" }
  | { type: "text"; index: number; result: GrepTextResult }
  | { type: "done" };

parentPort?.on("message", (job: GrepWorkerJob) => {
  const regex = new RegExp(job.source, job.flags);
  parentPort?.postMessage({ type: "started" } satisfies GrepWorkerMessage);
  job.texts.forEach((text, index) => {
    const message: GrepWorkerMessage = { type: "text", index, result: grepText(text, regex, job.options) };
    parentPort?.postMessage(message);
  });
  parentPort?.postMessage({ type: "done" } satisfies GrepWorkerMessage);
});
