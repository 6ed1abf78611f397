/**
 * PGlite's buffer cache (`shared_buffers`): how large it is for a data
 * directory. PostgreSQL reads every page through it; a page it misses is
 * read through PGlite's file system layer, which on PGlite's one thread
 * costs every caller. A cache as large as the database's relation files
 * keeps a busy store's pages in it (docs/performance.md: at 100,000 entries
 * any-word full text reads thousands of entry pages per search).
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** PGlite's own default, and the least the store sizes it to. */
export const minimumSharedBuffersMb = 128;

/** The most the store sizes it to by itself (an operator may set more, within `pgliteMemoryMb`). */
export const largestAutomaticSharedBuffersMb = 1024;

/**
 * What the buffer cache and an index build's `maintenance_work_mem` may hold
 * together: PGlite's memory ends at 2 GB, and the rest of PostgreSQL
 * (catalogue caches, sorts, a statement's working memory) needs the remainder.
 */
export const pgliteMemoryMb = 1536;

/** Sizes are rounded up to this many MB. */
const sizeStepMb = 64;

/**
 * The cache for a database whose relation files take `relationBytes`: a
 * quarter more than them, rounded up to 64 MB, at least PGlite's default and
 * at most `largestAutomaticSharedBuffersMb` or `ceilingMb`, whichever is
 * lower (a ceiling below the default leaves the default).
 */
export function automaticSharedBuffersMb(relationBytes: number, ceilingMb: number): number {
  const wantedMb = Math.ceil((relationBytes * 1.25) / (1024 * 1024) / sizeStepMb) * sizeStepMb;
  return Math.max(minimumSharedBuffersMb, Math.min(wantedMb, largestAutomaticSharedBuffersMb, ceilingMb));
}

/** Bytes of the files under `directory` (the database's relation files under `base/`); 0 when it does not exist yet. */
export async function directoryBytes(directory: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  let total = 0;
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}

/** What decides the cache: a size the operator set, or 0 to size it from the data directory under a ceiling. */
export interface SharedBuffersSetting {
  /** MB; 0 sizes it from the data directory (automaticSharedBuffersMb). */
  mb: number;
  /** The most an automatic size may take (what an index build leaves of `pgliteMemoryMb`). */
  ceilingMb: number;
}

/** The cache, in MB, for PGlite on `dataDir`; undefined: a new in-memory database, which has nothing to size it by. */
export async function sharedBuffersFor(dataDir: string | undefined, setting: SharedBuffersSetting): Promise<number> {
  if (setting.mb > 0) return setting.mb;
  if (dataDir === undefined) return minimumSharedBuffersMb;
  return automaticSharedBuffersMb(await directoryBytes(join(dataDir, "base")), setting.ceilingMb);
}
