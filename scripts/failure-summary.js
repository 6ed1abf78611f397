// A node:test reporter that prints nothing while tests run and, at the end, one line per failed test (file, test name,
// the first line of its error), so the last lines of a long run's output name what failed.
import { relative } from "node:path";

export default async function* failureSummary(source) {
  const failures = [];
  for await (const event of source) {
    if (event.type !== "test:fail" || event.data.details?.type === "suite") continue;
    const error = event.data.details?.error;
    const cause = error?.cause ?? error;
    const message = String(cause?.message ?? cause ?? "").split("\n")[0];
    const file = event.data.file === undefined ? "?" : relative(process.cwd(), event.data.file);
    failures.push(`  ${file} › ${event.data.name}: ${message}`);
  }
  if (failures.length > 0) yield `\n${failures.length} failed:\n${failures.join("\n")}\n`;
}
