import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The default cache directory of Context Hub's derived files (such as the
 * word-vector cache): `$XDG_CACHE_HOME/context-hub`, else `~/.cache/context-hub`.
 * Pure: reads only `env` (`XDG_CACHE_HOME`, then `HOME`), falling back to the OS home directory.
 */
export function toDefaultCacheDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : join(env.HOME ? env.HOME : homedir(), ".cache");
  return join(base, "context-hub");
}
