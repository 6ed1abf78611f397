import { chmod, lstat, mkdir, readdir, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { isMainThread } from "node:worker_threads";

/** Permission bits that let the group or others read or write. */
const openToOthers = 0o066;

/** Most entries the start-up check looks at; a PGlite directory holds about a thousand, so this is the whole tree in practice. */
const maxCheckedEntries = 100_000;

/** Paths named in the refusal; the count covers the rest. */
const namedPaths = 5;

/** What the walk of a data directory found. */
interface OpenEntries {
  checked: number;
  open: string[];
}

async function findOpenEntries(root: string): Promise<OpenEntries> {
  const found: OpenEntries = { checked: 0, open: [] };
  const pending = [root];
  while (pending.length > 0 && found.checked < maxCheckedEntries) {
    const directory = pending.pop()!;
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      if (found.checked >= maxCheckedEntries) break;
      found.checked++;
      const path = join(directory, entry.name);
      // A link's own bits say nothing (they are always rwx); what it points to is not ours to judge or to follow.
      if (entry.isSymbolicLink()) continue;
      const { mode } = await lstat(path);
      if ((mode & openToOthers) !== 0) found.open.push(path);
      if (entry.isDirectory()) pending.push(path);
    }
  }
  return found;
}

/**
 * Makes the PGlite data directory private to this user before the database
 * opens it, or refuses it:
 *
 * - a missing directory is created 0700 (its parents too, when missing);
 * - an existing empty directory (made by hand, or a fresh volume) is
 *   narrowed to 0700, since nothing in it can have been exposed yet;
 * - a directory holding data that the group or others can read or write,
 *   itself or any file or directory under it, is refused with the command
 *   that fixes it, `chmod -R go-rwx DIR`: the database, its API key hashes
 *   and every tenant's text would be open to other accounts on the machine.
 *
 * Sets the process's umask to 077 (on the main thread, where Node allows
 * it), so every file the database and the store create later is 0600 and
 * every directory 0700. On Windows, where these bits do not describe
 * access, it only creates the directory.
 *
 * @throws Error naming the directory, the open paths and the fix.
 */
export async function preparePrivateDataDir(dataDir: string): Promise<void> {
  const root = resolve(dataDir);
  if (process.platform === "win32") {
    await mkdir(root, { recursive: true });
    return;
  }
  if (isMainThread) process.umask(0o077);
  let existing;
  try {
    existing = await stat(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    await mkdir(root, { recursive: true, mode: 0o700 });
    // mkdir's mode passes through the umask of a process that could not set one (a worker thread): state it exactly.
    await chmod(root, 0o700);
    return;
  }
  if (!existing.isDirectory())
    throw new Error(`the data directory ${root} is not a directory; set STORE_DATA_DIR to a directory`);
  if ((await readdir(root)).length === 0) {
    if ((existing.mode & 0o077) !== 0) await chmod(root, 0o700);
    return;
  }
  const { checked, open } = await findOpenEntries(root);
  if ((existing.mode & openToOthers) !== 0) open.unshift(root);
  if (open.length === 0) return;
  const shown = open
    .slice(0, namedPaths)
    .map((path) => (path === root ? "the directory itself" : relative(root, path)));
  const more = open.length > namedPaths ? ` and ${open.length - namedPaths} more` : "";
  throw new Error(
    `the data directory ${root} can be read or written by other users: ${open.length} of ${checked + 1} paths are open to group or others (${shown.join(", ")}${more}). ` +
      `Make it private with: chmod -R go-rwx ${shellQuoted(root)}`,
  );
}

/**
 * Takes group and other permissions off every file and directory under
 * `dataDir` (and the directory itself). PGlite writes the files of a new
 * database with modes of its own (0666 and 0644, whatever the umask), so
 * the store narrows them once the database has opened. Links are left alone.
 */
export async function narrowDataDir(dataDir: string): Promise<void> {
  if (process.platform === "win32") return;
  const root = resolve(dataDir);
  const narrow = async (path: string, mode: number) => {
    if ((mode & 0o077) !== 0) await chmod(path, mode & 0o7700);
  };
  await narrow(root, (await stat(root)).mode);
  const pending = [root];
  let visited = 0;
  while (pending.length > 0 && visited < maxCheckedEntries) {
    const directory = pending.pop()!;
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      if (++visited > maxCheckedEntries) break;
      if (entry.isSymbolicLink()) continue;
      const path = join(directory, entry.name);
      await narrow(path, (await lstat(path)).mode);
      if (entry.isDirectory()) pending.push(path);
    }
  }
}

/** `path` as one shell word, quoted only when it needs to be. */
function shellQuoted(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
