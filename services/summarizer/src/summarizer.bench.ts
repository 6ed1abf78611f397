// Measures the built-in summarizer on this machine: `node services/summarizer/dist/summarizer.bench.js`.
import { createBuiltinSummaryProvider } from "./builtin-summary-provider.js";
import { createSummarizer } from "./summarizer.js";
import { createSummaryTextWork } from "./summary-text-work.js";

const sample =
  "The gateway validates every write, then asks the embedder and the summarizer in parallel. " +
  "We found that the HNSW scan was slow because the visibility filter ran after the scan, so we enabled iterative scans. " +
  "Latency dropped from four seconds to 180 ms at the 99th percentile. Users must keep the write path under 50 ms; " +
  "the getUserName helper and the pgvector extension stay as they are. Next, someone should check the Qdrant path, " +
  "which filters on tenant, thread, owner and grantees before the limit. The reranker takes 6 ms for 50 passages. ";
const kilobyte = (index: number) => `${sample.repeat(3).slice(0, 1000)} entry-${index}.`;

async function perSecond(label: string, run: (index: number) => Promise<unknown>): Promise<void> {
  for (let index = 0; index < 200; index++) await run(index);
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < 1000) await run(count++);
  const elapsed = performance.now() - started;
  console.log(`${label}: ${Math.round((count / elapsed) * 1000)}/s (${((elapsed / count) * 1000).toFixed(1)} µs each)`);
}

const work = createSummaryTextWork({ workers: 1, budgetMs: 60_000 });
const summarizer = createSummarizer({
  provider: createBuiltinSummaryProvider(work),
  work,
  minChars: 500,
  sectionMinChars: 400,
  maxTextChars: 1_000_000,
});
await perSecond("summary, 1 KB text", (index) => summarizer.summarize(kilobyte(index), "agent"));
await perSecond("node summaries, 1 KB text in 2 sections", (index) =>
  summarizer.summarizeSections(
    `# A\n\n${kilobyte(index).slice(0, 500)}\n\n## B\n\n${kilobyte(index).slice(500)}`,
    "agent",
  ),
);
const long = Array.from(
  { length: 20 },
  (_, index) => `## Part ${index}\n\n${kilobyte(index)}\n\n${kilobyte(index + 1)}`,
).join("\n\n");
await perSecond("summary and node summaries, 40 KB text in 20 sections", async (index) => {
  await summarizer.summarize(long + index, "user");
  await summarizer.summarizeSections(long + index, "user");
});
await work.close();
