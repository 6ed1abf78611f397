/** Reading what a run of the MCP conformance suite (`@modelcontextprotocol/conformance`, any version) wrote. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One check of a scenario, as the suite records it. */
export interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

/** Each scenario's checks from a conformance results directory (`server-<scenario>-<timestamp>/checks.json`). */
export function readResults(dir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const name of readdirSync(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(name)?.[1];
    if (scenario !== undefined)
      results.set(scenario, JSON.parse(readFileSync(join(dir, name, "checks.json"), "utf8")) as Check[]);
  }
  return results;
}

/** The check statuses the suite counts as a scenario's failure. */
const failing = (check: Check) => check.status === "FAILURE" || check.status === "WARNING";

/** The scenarios that failed, as the suite counts it: any FAILURE or WARNING check. */
export function failedScenarios(results: Map<string, Check[]>): string[] {
  return [...results].filter(([, checks]) => checks.some(failing)).map(([scenario]) => scenario);
}

/** One line per scenario naming its failing checks, for an assertion's message. */
export function failureDetail(results: Map<string, Check[]>, scenarios: readonly string[]): string {
  return scenarios
    .map(
      (scenario) =>
        `${scenario}: ${(results.get(scenario) ?? [])
          .filter(failing)
          .map((check) => check.errorMessage ?? check.id)
          .join("; ")}`,
    )
    .join("\n");
}
