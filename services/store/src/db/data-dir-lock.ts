import { open, readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";

/** Held while a store has a PGlite data directory open. */
export interface DataDirLock {
  release(): Promise<void>;
}

const lockFileName = "context-hub-store.lock";
const heldHere = new Set<string>();

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Claims a PGlite data directory for this process. PGlite has no lock of its
 * own and two processes writing one directory corrupt it, so a second store
 * is refused while the first lives. A lock left by a dead process (or by an
 * earlier life of this pid, as in a container restart) is taken over.
 */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  const path = join(resolve(dataDir), lockFileName);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, "wx");
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      heldHere.add(path);
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          heldHere.delete(path);
          await rm(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number.parseInt((await readFile(path, "utf8").catch(() => "")).trim(), 10);
      const heldByLiveStore =
        Number.isInteger(holder) &&
        holder > 0 &&
        isProcessAlive(holder) &&
        (holder !== process.pid || heldHere.has(path));
      if (heldByLiveStore) {
        throw new Error(
          `the data directory ${resolve(dataDir)} is in use by another store (process ${holder}); stop that store or set STORE_DATA_DIR to another directory`,
        );
      }
      await rm(path, { force: true });
    }
  }
  throw new Error(`could not lock the data directory ${resolve(dataDir)}`);
}
