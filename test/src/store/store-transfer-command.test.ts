/**
 * `context-hub export` and `context-hub import` on PGlite data directories:
 * the file on stdout, progress on stderr, the summary lines, a directory
 * another store holds refused, and a running hub reached through its store.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { runExportCommand, runImportCommand, writeRuntimeFile } from "@context-hub/cli";
import { generatedFor, principal, startTestStore, textEntry } from "./store-fixtures.js";

function capture() {
  const text: string[] = [];
  return {
    text,
    sink: { write: (line: string) => void text.push(line), isTTY: false },
    out: (line: string) => void text.push(line),
  };
}

test("export writes the file and progress; import restores it once, a second time skips every row; a directory another store holds is refused", async () => {
  const directory = await mkdtemp(join(tmpdir(), "context-hub-transfer-cli-"));
  const from = join(directory, "from");
  const to = join(directory, "to");
  const file = join(directory, "export.jsonl");
  try {
    const store = await startTestStore({ url: "", dataDir: from, poolMax: 1 });
    try {
      for (const text of ["first note", "second note", "third note"]) {
        await store.client.commit({
          principal: principal("acme", "alice"),
          entry: textEntry("t", text),
          generated: generatedFor(text),
        });
      }
      await assert.rejects(
        runExportCommand(["--data-dir", from], {}, createWriteStream(join(directory, "never.jsonl")), {
          progress: capture().sink,
        }),
        /is in use by another store/,
      );
    } finally {
      await store.close();
    }

    const progress = capture();
    const output = createWriteStream(file);
    assert.equal(
      await runExportCommand(["--data-dir", from, "--tenant", "acme"], {}, output, {
        progress: progress.sink,
        progressLineMs: 0,
      }),
      0,
    );
    output.end();
    await finished(output);
    const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
    const rows = lines.length - 2;
    assert.equal(JSON.parse(lines[0]!).tenant, "acme");
    assert.match(progress.text.join(""), new RegExp(`exported ${rows}/${rows} rows \\(100%\\)`));
    assert.match(progress.text.join(""), /Exported \d+ row\(s\): 3 entry, 6 chunk, 3 audit_record\./);

    const first = capture();
    assert.equal(await runImportCommand([file, "--data-dir", to], {}, first.out, { progress: capture().sink }), 0);
    assert.match(
      first.text.join(""),
      new RegExp(
        `^Imported ${rows} row\\(s\\): 3 entry, 6 chunk, 3 audit_record; 0 already stored as they are were skipped\\.`,
      ),
    );
    const second = capture();
    assert.equal(await runImportCommand([file, "--data-dir", to], {}, second.out, { progress: capture().sink }), 0);
    assert.match(
      second.text.join(""),
      new RegExp(`^Imported 0 row\\(s\\); ${rows} already stored as they are were skipped\\.`),
    );

    // A hub running on the directory is reached through its store's address (here one that answers nothing).
    writeRuntimeFile(to, { pid: process.pid, storeAddress: "127.0.0.1:1", url: "http://127.0.0.1:1/mcp" });
    await assert.rejects(
      runImportCommand([file, "--data-dir", to], {}, () => undefined, { progress: capture().sink }),
      /the store service is unavailable/,
    );
    await assert.rejects(
      runImportCommand([join(directory, "missing.jsonl"), "--data-dir", to], {}, () => undefined),
      /cannot read .*missing\.jsonl/,
    );
    await assert.rejects(
      runExportCommand(["--data-dir", join(directory, "typo")], {}, createWriteStream(join(directory, "never.jsonl")), {
        progress: capture().sink,
      }),
      /there is no store in .*typo: check --data-dir/,
    );
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});
