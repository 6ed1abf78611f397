// Runs every compiled test file (dist/**/*.test.js) of every workspace with node's test runner.
// Pass workspace folders or file filters to narrow it: `node scripts/run-tests.js services/store`.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const roots = ["proto", "packages", "services", "apps", "test", "charts"];
const filters = process.argv.slice(2);

function collect(dir, out) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === "node_modules") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith(".test.js") && path.split("/").includes("dist")) out.push(path);
  }
}

const files = [];
for (const root of roots) collect(root, files);
const selected = files
  .map((file) => relative(process.cwd(), file))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

if (selected.length === 0) {
  console.error("No test files found. Did `tsc -b` run?");
  process.exit(1);
}

const result = spawnSync(process.execPath, ["--test", "--test-concurrency=1", ...selected], { stdio: "inherit" });
process.exit(result.status ?? 1);
