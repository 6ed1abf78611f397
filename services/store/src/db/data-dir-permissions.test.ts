import { after, test } from "node:test";
import assert from "node:assert/strict";
import { chmod, lstat, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createPgliteConnection } from "./pglite-database.js";

const directories: string[] = [];

after(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

async function scratch(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "context-hub-perms-"));
  directories.push(directory);
  return directory;
}

/** Every path under `root` (the root included) whose group or other bits are set, with its octal mode. */
async function openPaths(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (path: string) => {
    const { mode } = await lstat(path);
    if ((mode & 0o077) !== 0) found.push(`${relative(root, path) || "."} ${(mode & 0o777).toString(8)}`);
    if ((await lstat(path)).isDirectory()) for (const name of await readdir(path)) await visit(join(path, name));
  };
  await visit(root);
  return found;
}

/** Opens the database in `dataDir`, writes a row and closes it, as a store start and stop would. */
async function useDatabase(dataDir: string): Promise<void> {
  const db = await createPgliteConnection({ dataDir });
  try {
    await db.query("CREATE TABLE IF NOT EXISTS notes (body text)");
    await db.query("INSERT INTO notes VALUES ('private to its owner')");
  } finally {
    await db.close();
  }
}

const posixOnly = { skip: process.platform === "win32" ? "POSIX permission bits only" : false };

test(
  "a new data directory is created 0700 and every file in it, PGlite's own included, ends up 0600",
  posixOnly,
  async () => {
    const dataDir = join(await scratch(), "data");
    await useDatabase(dataDir);
    assert.equal((await stat(dataDir)).mode & 0o777, 0o700);
    const entries = await readdir(dataDir, { recursive: true });
    assert.ok(entries.length > 500, `a PGlite database holds hundreds of files (found ${entries.length})`);
    assert.deepEqual(await openPaths(dataDir), [], "nothing is open to group or others");
    const modes = new Set<number>();
    for (const name of entries) {
      const info = await lstat(join(dataDir, name));
      if (info.isFile()) modes.add(info.mode & 0o777);
    }
    assert.deepEqual([...modes], [0o600], "files are 0600");
    // Files the database writes on a later start follow the store's umask.
    await useDatabase(dataDir);
    assert.deepEqual(await openPaths(dataDir), []);
  },
);

test(
  "a data directory others can read is refused with the command that fixes it, and left as it was",
  posixOnly,
  async () => {
    const dataDir = join(await scratch(), "data dir");
    await useDatabase(dataDir);
    await chmod(dataDir, 0o755);
    const before = await readdir(dataDir);
    await assert.rejects(createPgliteConnection({ dataDir }), (error: Error) => {
      assert.match(error.message, /the data directory .* can be read or written by other users/);
      assert.match(error.message, /the directory itself/);
      assert.ok(error.message.endsWith(`chmod -R go-rwx '${dataDir}'`), error.message);
      return true;
    });
    assert.equal((await stat(dataDir)).mode & 0o777, 0o755, "the refusal changes nothing");
    assert.deepEqual(await readdir(dataDir), before, "no lock file or anything else is left behind");

    await chmod(dataDir, 0o700);
    await useDatabase(dataDir);
  },
);

test("a file inside a private data directory that others can write is refused by name", posixOnly, async () => {
  const dataDir = join(await scratch(), "data");
  await useDatabase(dataDir);
  await chmod(join(dataDir, "PG_VERSION"), 0o666);
  await chmod(join(dataDir, "global"), 0o750);
  await assert.rejects(createPgliteConnection({ dataDir }), (error: Error) => {
    assert.match(
      error.message,
      /2 of \d+ paths are open to group or others \((?:PG_VERSION, global|global, PG_VERSION)\)/,
    );
    assert.match(error.message, new RegExp(`chmod -R go-rwx ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
    return true;
  });
  // The fix the message names is enough.
  const { execFileSync } = await import("node:child_process");
  execFileSync("chmod", ["-R", "go-rwx", dataDir]);
  await useDatabase(dataDir);
});

test(
  "an empty directory made beforehand is narrowed to 0700 rather than refused: nothing in it was exposed",
  posixOnly,
  async () => {
    const dataDir = join(await scratch(), "data");
    await mkdir(dataDir, { mode: 0o777 });
    await chmod(dataDir, 0o777);
    await useDatabase(dataDir);
    assert.equal((await stat(dataDir)).mode & 0o777, 0o700);
    assert.deepEqual(await openPaths(dataDir), []);
  },
);

test("a data directory path that is a file is refused", posixOnly, async () => {
  const path = join(await scratch(), "data");
  await writeFile(path, "not a directory");
  await assert.rejects(createPgliteConnection({ dataDir: path }), /is not a directory/);
});
