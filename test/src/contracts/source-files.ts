// The sources the contract tests read: the repository's root, and a workspace's source files.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root (this file compiles to test/dist/contracts/). */
export const root = resolve(fileURLToPath(import.meta.url), "../../../..");

/** Source files of a workspace: its src tree without tests, test helpers' fixtures or generated code. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) {
        if (name !== "gen" && name !== "node_modules") walk(path);
      } else if (name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts")) out.push(path);
    }
  };
  const src = join(root, dir, "src");
  if (existsSync(src)) walk(src);
  return out;
}
