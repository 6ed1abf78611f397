import { chmodSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";

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

/** Publishes `info` in the data directory, readable and writable by this user only (0600), like the data beside it. */
export function writeRuntimeFile(dataDir: string, info: RuntimeInfo): void {
  const path = runtimeFilePath(dataDir);
  writeFileSync(path, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  // The mode applies only when the file is created: one left by an earlier start keeps its own until told.
  if (process.platform !== "win32") chmodSync(path, 0o600);
}

export function removeRuntimeFile(dataDir: string): void {
  rmSync(runtimeFilePath(dataDir), { force: true });
}

function readRuntimeFile(dataDir: string): RuntimeInfo | undefined {
  try {
    return JSON.parse(readFileSync(runtimeFilePath(dataDir), "utf8")) as RuntimeInfo;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The runtime info of a live `context-hub start` on this data directory, if there is one. */
export function readLiveRuntime(dataDir: string): RuntimeInfo | undefined {
  const info = readRuntimeFile(dataDir);
  return info !== undefined && isAlive(info.pid) ? info : undefined;
}

/** The name `context-hub start` gives the private directory of its store's socket, in the temporary directory. */
export const storeSocketDirPrefix = "context-hub-";
export const storeSocketName = "store.sock";

/**
 * Removes the store socket's directory that a `context-hub start` on this
 * data directory left behind when it was killed without closing (SIGKILL,
 * a power cut): its runtime file names a process that is gone. Only a
 * directory of the shape the hub makes is removed (directly in the
 * temporary directory, named by `storeSocketDirPrefix`, holding nothing
 * but the socket), so a tampered runtime file cannot make this delete
 * anything else. Returns the directory removed, if any.
 */
export function removeStaleStoreSocket(dataDir: string): string | undefined {
  const info = readRuntimeFile(dataDir);
  if (info === undefined || typeof info.pid !== "number" || isAlive(info.pid)) return undefined;
  if (typeof info.storeAddress !== "string" || !info.storeAddress.startsWith("unix:")) return undefined;
  const socketPath = info.storeAddress.slice("unix:".length);
  const directory = dirname(socketPath);
  if (
    basename(socketPath) !== storeSocketName ||
    dirname(directory) !== resolve(tmpdir()) ||
    !basename(directory).startsWith(storeSocketDirPrefix)
  )
    return undefined;
  try {
    if (readdirSync(directory).some((name) => name !== storeSocketName)) return undefined;
    rmSync(directory, { recursive: true, force: true });
    return directory;
  } catch {
    // Gone already, or not ours to remove: either way nothing for this start to do.
    return undefined;
  }
}
