// Measures the text utilities on this machine: `node packages/text/dist/text.bench.js`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chunkText } from "./chunker.js";
import { embedText } from "./embedding.js";
import { parseOutline } from "./markdown.js";
import { openWordVectors } from "./word-vector-cache.js";

const sample =
  "The gateway validates every write, then asks the embedder and the summarizer in parallel. " +
  "We found that the HNSW scan was slow because the visibility filter ran after the scan, so we enabled iterative scans. " +
  "Latency dropped from four seconds to 180 ms at the 99th percentile. Users must keep the write path under 50 ms; " +
  "the getUserName helper and the pgvector extension stay as they are. Next, someone should check the Qdrant path, " +
  "which filters on tenant, thread, owner and grantees before the limit. The reranker takes 6 ms for 50 passages. ";

function toKilobyteText(index: number): string {
  return `${sample.repeat(3).slice(0, 1000)} entry-${index}`;
}

function perSecond(label: string, run: (index: number) => void, seconds = 1): void {
  for (let index = 0; index < 200; index++) run(index);
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < seconds * 1000) run(count++);
  const elapsed = performance.now() - started;
  console.log(`${label}: ${Math.round((count / elapsed) * 1000)}/s (${((elapsed / count) * 1000).toFixed(1)} µs each)`);
}

const cacheDir = mkdtempSync(join(tmpdir(), "context-hub-bench-"));
try {
  const rssBefore = process.memoryUsage().rss;
  const built = await openWordVectors({ cacheDir });
  console.log(
    `word vectors, first load (parse JSON, write cache): ${built.origin.loadMs.toFixed(0)} ms; RSS +${((process.memoryUsage().rss - rssBefore) / 1e6).toFixed(0)} MB`,
  );
  const cached = await openWordVectors({ cacheDir, sourcePath: join(cacheDir, "absent.json") });
  console.log(
    `word vectors, cached load: ${cached.origin.loadMs.toFixed(0)} ms (${cached.size} words × ${cached.dimension})`,
  );
  perSecond("embedText, 1 KB text", (index) => embedText(toKilobyteText(index), cached));
  const long = Array.from({ length: 100 }, (_, index) => toKilobyteText(index)).join("\n\n");
  perSecond("chunkText, 100 KB text (1500/200)", () => chunkText(long, { size: 1500, overlap: 200 }));
  const markdown = Array.from(
    { length: 50 },
    (_, index) => `## Section ${index}\n\n${toKilobyteText(index)}\n\n\`\`\`\n# code\n\`\`\``,
  ).join("\n\n");
  perSecond("parseOutline, 50 sections / 55 KB", () => parseOutline(markdown));
} finally {
  rmSync(cacheDir, { recursive: true, force: true });
}
