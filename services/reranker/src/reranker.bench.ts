// Measures the built-in reranker on this machine: `node services/reranker/dist/reranker.bench.js [cacheDir]`.
import { loadWordVectors, toDefaultCacheDir } from "@context-hub/text";
import { scoreRelevance } from "./relevance.js";

const vectors = await loadWordVectors(process.argv[2] ?? toDefaultCacheDir(process.env));
const sample =
  "The gateway validates every write, then asks the embedder and the summarizer in parallel. " +
  "We found that the HNSW scan was slow because the visibility filter ran after the scan, so we enabled iterative scans. " +
  "Latency dropped from four seconds to 180 ms at the 99th percentile. Users must keep the write path under 50 ms. ";
for (const [count, length] of [
  [50, 300],
  [50, 1000],
  [200, 1000],
] as const) {
  const passages = Array.from(
    { length: count },
    (_, index) => `${sample.repeat(4).slice(index % 50, (index % 50) + length)} passage-${index}`,
  );
  for (let index = 0; index < 20; index++) scoreRelevance(`why was the vector scan slow ${index}`, passages, vectors);
  const started = performance.now();
  let calls = 0;
  while (performance.now() - started < 1000)
    scoreRelevance(`why was the vector scan slow ${calls++}`, passages, vectors);
  console.log(
    `Rerank ${count} passages of ${length} chars: ${((performance.now() - started) / calls).toFixed(2)} ms per call`,
  );
}
