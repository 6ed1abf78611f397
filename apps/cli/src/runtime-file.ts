import { chmodSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";

/** What a running `context-hub start` or `context-hub stdio` publishes in its data directory, so other commands can reach it. */
export interface RuntimeInfo {
  pid: number;
  storeAddress: string;
  /** Where MCP is served: an http:// URL, or for `context-hub stdio` an http+unix:// one naming `socketPath`. */
  url: string;
  /**
   * A `context-hub stdio` hub serves MCP over HTTP (path /mcp) on this Unix
   * socket as well, for its own user's other processes: the Claude Code kit's
   * hooks. The socket's directory admits only that user.
   */
  socketPath?: string;
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

/**
 * Removes the runtime file, when given a pid only if the file still names
 * it: two stdio hubs on one PostgreSQL server may share a directory, and the
 * one that stops first must not unpublish the other.
 */
export function removeRuntimeFile(dataDir: string, pid?: number): void {
  if (pid !== undefined && readRuntimeFile(dataDir)?.pid !== pid) return;
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

/** The name `context-hub stdio` gives its MCP socket, in a private directory named like the store socket's. */
export const gatewaySocketName = "gateway.sock";

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
  return removeSocketDirectory(info.storeAddress.slice("unix:".length), storeSocketName);
}

/** As `removeStaleStoreSocket`, for the MCP socket a killed `context-hub stdio` left behind. */
export function removeStaleGatewaySocket(dataDir: string): string | undefined {
  const info = readRuntimeFile(dataDir);
  if (info === undefined || typeof info.pid !== "number" || isAlive(info.pid)) return undefined;
  if (typeof info.socketPath !== "string") return undefined;
  return removeSocketDirectory(info.socketPath, gatewaySocketName);
}

/** Removes `socketPath`'s directory if it has the shape the hub makes and holds nothing but that socket. */
function removeSocketDirectory(socketPath: string, socketName: string): string | undefined {
  const directory = dirname(socketPath);
  if (
    basename(socketPath) !== socketName ||
    dirname(directory) !== resolve(tmpdir()) ||
    !basename(directory).startsWith(storeSocketDirPrefix)
  )
    return undefined;
  try {
    if (readdirSync(directory).some((name) => name !== socketName)) return undefined;
    rmSync(directory, { recursive: true, force: true });
    return directory;
  } catch {
    // Gone already, or not ours to remove: either way nothing for this start to do.
    return undefined;
  }
}
