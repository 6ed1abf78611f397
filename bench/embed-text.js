// The built-in embedding's CPU time on long hostile and legitimate texts, chunked as the embedder chunks them, each
// text embedded cold (in a fresh process, so no term is cached from an earlier text). With --baseline, the same texts
// are embedded by another build of packages/text in the same run, alternating, and the vectors compared bit for bit.
//
// Usage: node bench/embed-text.js [--chars 1000000] [--runs 3] [--inputs headings,long-headings,...]
//                                 [--baseline <another checkout's packages/text/dist>]
// Build first: `npx tsc -b`.
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { distinctWords, fillLines } from "@context-hub/common/testing";

const here = fileURLToPath(import.meta.url);
const { values } = parseArgs({
  options: {
    chars: { type: "string", default: "1000000" },
    runs: { type: "string", default: "3" },
    inputs: { type: "string", default: "headings,long-headings,nested-headings,distinct-words,prose" },
    baseline: { type: "string" },
    // Internal: one cold embedding in a child process.
    child: { type: "string" },
    build: { type: "string" },
  },
});
const chars = Number(values.chars);

const sentences = [
  "The survey measured the flow at each gauge twice a day.",
  "We found the upstream readings drifted after heavy rain, so the team recalibrated the sensors.",
  "Results improved once the logger clocks were synchronised with the station master.",
  "Next, someone should compare the winter series with last year's baseline before the review.",
];

const generators = {
  // Numbered headings: every number is a term seen once.
  headings: () => fillLines(chars, (index) => `## Heading ${index}\n`),
  "long-headings": () =>
    fillLines(chars, (index) => `## ${distinctWords(index, 497)}\n\nA paragraph about it. It has two sentences.\n\n`),
  "nested-headings": () =>
    fillLines(chars, (index) => `${"#".repeat((index % 6) + 1)} Level ${index}\n\nThe text of part ${index}.\n\n`),
  // Words outside the vocabulary, none repeated: the most work per character the built-in embedding knows.
  "distinct-words": () => fillLines(chars, (index) => `q${((index * 2_654_435_761) % 4_294_967_291).toString(36)} `),
  prose: () =>
    fillLines(chars, (index) =>
      index % 40 === 0 ? `\n\n## Gauge ${index / 40}\n\n` : `${sentences[index % sentences.length]} `,
    ),
};

async function embedOnce(build, name) {
  const text = await import(pathToFileURL(resolve(build, "index.js")).href);
  const vectors = await text.loadWordVectors(text.toDefaultCacheDir(process.env));
  const input = generators[name]();
  const began = performance.now();
  const chunks = text.chunkText(input, { size: 1500, overlap: 200 });
  const embedded = chunks.map((chunk) =>
    text.embedText(input.slice(chunk.start, chunk.end), vectors, { lexicalDimensions: 156 }),
  );
  const ms = performance.now() - began;
  let hash = 0x811c9dc5;
  for (const vector of embedded) {
    const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
    for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  }
  process.stdout.write(JSON.stringify({ ms, chunks: chunks.length, hash }));
}

function runChild(build, name) {
  const result = spawnSync(process.execPath, [here, "--child", name, "--build", build, "--chars", String(chars)], {
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`embedding ${name} with ${build} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const median = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

if (values.child !== undefined) {
  await embedOnce(values.build, values.child);
} else {
  const builds = {
    current: resolve(here, "../../packages/text/dist"),
    ...(values.baseline === undefined ? {} : { baseline: resolve(values.baseline) }),
  };
  console.log(
    `chars ${chars}, runs ${values.runs}, chunks of 1500 with 200 overlap, builtin-glove-256d-v3 layout; load ${loadavg()[0].toFixed(1)}`,
  );
  for (const name of values.inputs.split(",")) {
    if (!(name in generators))
      throw new Error(`--inputs: unknown input ${name}; known: ${Object.keys(generators).join(", ")}`);
    const samples = Object.fromEntries(Object.keys(builds).map((key) => [key, []]));
    const hashes = new Set();
    let chunks = 0;
    for (let run = 0; run < Number(values.runs); run++) {
      for (const [key, build] of Object.entries(builds)) {
        const result = runChild(build, name);
        samples[key].push(result.ms);
        hashes.add(result.hash);
        chunks = result.chunks;
      }
    }
    const current = median(samples.current);
    const line = [`${name}: ${chunks} chunks, current ${current.toFixed(0)} ms`];
    if (samples.baseline !== undefined) {
      const baseline = median(samples.baseline);
      line.push(
        `baseline ${baseline.toFixed(0)} ms`,
        `baseline ÷ current ${(baseline / current).toFixed(2)}`,
        hashes.size === 1 ? "vectors identical" : "VECTORS DIFFER",
      );
    }
    console.log(line.join(", "));
  }
  console.log(`load after ${loadavg()[0].toFixed(1)}`);
}
