// Measures the embedder end to end over gRPC on this machine: `node services/embedder/dist/embedder.bench.js [cacheDir]`.
import { createGrpcClient, createLogger } from "@context-hub/common";
import { embedderV1 } from "@context-hub/proto";
import { toDefaultCacheDir } from "@context-hub/text";
import { loadEmbedderConfig } from "./config.js";
import { startEmbedder } from "./index.js";

const sample =
  "The gateway validates every write, then asks the embedder and the summarizer in parallel. " +
  "We found that the HNSW scan was slow because the visibility filter ran after the scan, so we enabled iterative scans. " +
  "Latency dropped from four seconds to 180 ms at the 99th percentile. Users must keep the write path under 50 ms. ";
const kilobyte = (index: number) => `${sample.repeat(3).slice(0, 1000)} entry-${index}`;

const config = loadEmbedderConfig({
  ...process.env,
  EMBEDDER_PORT: "0",
  EMBEDDER_OPS_PORT: "-1",
  EMBEDDER_CACHE_DIR: process.argv[2] ?? toDefaultCacheDir(process.env),
  LOG_LEVEL: "silent",
});
const service = await startEmbedder(config, createLogger("embedder-bench", "silent"));
const client = createGrpcClient(embedderV1.EmbedderService, {
  address: `127.0.0.1:${service.port}`,
  peer: "embedder",
  deadlineMs: 60_000,
});
try {
  await client.embedQueries({ texts: ["warm up"] });
  for (const concurrency of [1, 8, 32]) {
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (performance.now() - started < 2000) await client.embedDocuments({ texts: [kilobyte(next++)] });
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const elapsed = performance.now() - started;
    console.log(
      `EmbedDocuments, one 1 KB text per call, ${concurrency} in flight: ${Math.round((next / elapsed) * 1000)} calls/s`,
    );
  }
  const batch = Array.from({ length: 100 }, (_, index) => kilobyte(index));
  const started = performance.now();
  let calls = 0;
  while (performance.now() - started < 2000) {
    await client.embedDocuments({ texts: batch });
    calls++;
  }
  console.log(
    `EmbedDocuments, 100 × 1 KB texts per call: ${Math.round(((calls * 100) / (performance.now() - started)) * 1000)} texts/s`,
  );
} finally {
  client.close();
  await service.close();
}
