import { startAllInOne, type AllInOne } from "@context-hub/cli";

/**
 * `context-hub start` in this process on an in-memory PGlite store, quiet, on
 * a free port: the environment is this process's with `env` on top.
 */
export function startMemoryHub(env: NodeJS.ProcessEnv = {}): Promise<AllInOne> {
  return startAllInOne({
    env: { ...process.env, LOG_LEVEL: "silent", DATABASE_URL: "", ...env },
    port: 0,
    dataDir: "memory://",
  });
}
