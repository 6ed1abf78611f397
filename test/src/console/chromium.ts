/**
 * The Chromium the console suite drives: CHROMIUM_PATH, or Debian's
 * `chromium` on PATH, installed with apt-get when missing and the suite runs
 * as root (as CI does on a clean Debian). If none can be had the suite fails
 * saying why; it never skips.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

function onPath(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? "").split(delimiter)) {
    if (directory === "") continue;
    const candidate = join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    timeout: 15 * 60_000,
  });
  if (result.status !== 0)
    throw new Error(
      `\`${command} ${args.join(" ")}\` failed (${result.error?.message ?? `exit ${String(result.status)}`}): ${result.stderr?.toString().slice(-2000) ?? ""}`,
    );
}

/** The path of a Chromium executable, installing Debian's package first if needed and possible. */
export function chromiumExecutable(): string {
  const configured = process.env.CHROMIUM_PATH;
  if (configured !== undefined && configured !== "") return configured;
  const found = onPath("chromium");
  if (found !== undefined) return found;
  if (process.getuid?.() !== 0)
    throw new Error(
      "The console suite needs Chromium: install Debian's `chromium` package (apt-get install chromium) or set CHROMIUM_PATH; this process is not root, so it cannot install it itself.",
    );
  try {
    run("apt-get", ["update"]);
    run("apt-get", ["install", "-y", "--no-install-recommends", "chromium"]);
  } catch (error) {
    throw new Error(`The console suite needs Chromium and could not install it: ${(error as Error).message}`);
  }
  const installed = onPath("chromium");
  if (installed === undefined) throw new Error("apt-get installed chromium but no `chromium` is on PATH");
  return installed;
}
