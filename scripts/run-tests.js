// Runs every compiled test file (dist/**/*.test.js) of every workspace with node's test runner.
// Pass workspace folders or file filters to narrow it: `node scripts/run-tests.js services/store`.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
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

// A compiled test whose source was moved or deleted would still run from dist/ and test code that no longer exists.
const orphans = selected.filter((file) => !existsSync(file.replace("/dist/", "/src/").replace(/\.js$/, ".ts")));
if (orphans.length > 0) {
  console.error(
    `Compiled tests without a source file (delete the workspace's dist/ and run \`tsc -b\`):\n  ${orphans.join("\n  ")}`,
  );
  process.exit(1);
}

if (selected.length === 0) {
  console.error("No test files found. Did `tsc -b` run?");
  process.exit(1);
}

// TAP as it runs, then the failed tests again in a few lines at the very end (scripts/failure-summary.js).
const reporters = [
  "--test-reporter=tap",
  "--test-reporter-destination=stdout",
  `--test-reporter=${new URL("./failure-summary.js", import.meta.url).pathname}`,
  "--test-reporter-destination=stdout",
];
const result = spawnSync(process.execPath, ["--test", "--test-concurrency=1", ...reporters, ...selected], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);
