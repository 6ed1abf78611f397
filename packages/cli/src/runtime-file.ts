import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** What a running `context-hub start` publishes beside its data directory, so other commands can reach it. */
export interface RuntimeInfo {
  pid: number;
  storeAddress: string;
  url: string;
}

const fileName = "context-hub-runtime.json";

export function runtimeFilePath(dataDir: string): string {
  return join(resolve(dataDir), fileName);
}

export function writeRuntimeFile(dataDir: string, info: RuntimeInfo): void {
  writeFileSync(runtimeFilePath(dataDir), `${JSON.stringify(info, null, 2)}\n`);
}

export function removeRuntimeFile(dataDir: string): void {
  rmSync(runtimeFilePath(dataDir), { force: true });
}

/** The runtime info of a live `context-hub start` on this data directory, if there is one. */
export function readLiveRuntime(dataDir: string): RuntimeInfo | undefined {
  let info: RuntimeInfo;
  try {
    info = JSON.parse(readFileSync(runtimeFilePath(dataDir), "utf8")) as RuntimeInfo;
  } catch {
    return undefined;
  }
  try {
    process.kill(info.pid, 0);
    return info;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? info : undefined;
  }
}
