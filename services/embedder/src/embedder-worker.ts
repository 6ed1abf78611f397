// Worker thread of the embedder: chunking and built-in embedding of long texts, run off the thread that answers
// calls and under a budget that can stop them (see embedder-text-work.ts).
import { workerData } from "node:worker_threads";
import { serveWorkerTasks } from "@context-hub/common";
import { chunkText, embedText, loadWordVectors, type WordVectors } from "@context-hub/text";
import { toWordVectorLoadError } from "./builtin-embedding-provider.js";
import type { EmbedderTextTasks, EmbedderWorkerData } from "./embedder-text-work.js";
import { embedWithinBudget } from "./embedding-pace.js";

const { cacheDir } = workerData as EmbedderWorkerData;
let vectors: WordVectors | undefined;

const tasks: EmbedderTextTasks = {
  chunk: ({ texts, size, overlap }) => texts.map((text) => chunkText(text, { size, overlap })),
  embed: ({ texts, layout, budget }) => {
    if (vectors === undefined)
      throw new Error("this embedder worker has no word vectors: the built-in provider is not configured");
    const loaded = vectors;
    return embedWithinBudget(texts, (text) => embedText(text, loaded, layout), budget);
  },
};

serveWorkerTasks(tasks, async () => {
  if (cacheDir === undefined) return;
  try {
    vectors = await loadWordVectors(cacheDir);
  } catch (error) {
    throw toWordVectorLoadError(cacheDir, error);
  }
});
