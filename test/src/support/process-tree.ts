import { readdirSync, readFileSync } from "node:fs";

/** The pids of a process's direct children, from /proc (every thread's children list); empty once it is gone. */
export function childPids(pid: number): number[] {
  const pids = new Set<number>();
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/))
        if (child !== "") pids.add(Number(child));
    }
  } catch {
    // The process is gone: no children.
  }
  return [...pids];
}

/** The pid of the PostgreSQL server listening on `port`: the postgres process whose command line has `-p <port>`. */
export function postmasterPid(port: number): number | undefined {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      const flag = args.indexOf("-p");
      if (/(^|\/)postgres$/.test(args[0] ?? "") && flag > 0 && args[flag + 1] === String(port)) return Number(name);
    } catch {
      // Gone while we looked.
    }
  }
  return undefined;
}

/**
 * Sends `signal` to the PostgreSQL server on `port` and every process it
 * started (backends, checkpointer, WAL writer…): SIGSTOP freezes the whole
 * server with its connections open, SIGCONT lets it go on. Returns how many
 * processes were signalled.
 */
export function signalPostgres(port: number, signal: NodeJS.Signals): number {
  const root = postmasterPid(port);
  if (root === undefined) throw new Error(`no PostgreSQL server with -p ${port} on this machine`);
  const pids = [root, ...childPids(root)];
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // A backend that exited meanwhile.
    }
  }
  return pids.length;
}
