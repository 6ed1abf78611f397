// Worker thread of the summarizer: the CPU-heavy work on long caller texts (extractive summaries, Markdown outlines),
// run off the thread that answers calls and under a budget that can stop it (see summary-text-work.ts).
import { serveWorkerTasks } from "@context-hub/common";
import { summaryTextTasks } from "./summary-text-work.js";

serveWorkerTasks(summaryTextTasks);
