import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../../../..");
const protoDir = join(root, "proto");
const bin = join(root, "node_modules", ".bin");

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

test("the .proto files are lint-clean", () => {
  execFileSync(join(bin, "buf"), ["lint"], { cwd: protoDir, stdio: "pipe" });
});

test("committed generated code matches the .proto files", (t) => {
  const out = mkdtempSync(join(tmpdir(), "context-hub-gen-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  execFileSync(join(bin, "buf"), ["generate", "--output", out], {
    cwd: protoDir,
    stdio: "pipe",
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
  });
  const fresh = join(out, "src", "gen");
  execFileSync(process.execPath, [join(root, "scripts", "mark-generated.js"), fresh]);
  const committed = join(protoDir, "src", "gen");
  assert.deepEqual(
    listFiles(fresh),
    listFiles(committed),
    "the set of generated files differs: run `npm run generate`",
  );
  for (const file of listFiles(committed)) {
    assert.equal(
      readFileSync(join(fresh, file), "utf8"),
      readFileSync(join(committed, file), "utf8"),
      `${file} drifted from its .proto: run \`npm run generate\``,
    );
  }
});
