import { test } from "node:test";
import assert from "node:assert/strict";
import { runBackfillMemoriesCommand } from "./backfill-memories-command.js";

test("a bad --batch-size, or an in-memory store, is refused before anything is opened", async () => {
  for (const value of ["0", "-3", "1.5", "many", "2000"]) {
    await assert.rejects(
      runBackfillMemoriesCommand(
        [`--batch-size=${value}`],
        { STORE_DATA_DIR: "/nonexistent/never-created" },
        () => undefined,
      ),
      /--batch-size must be a whole number from 1 to 1000/,
    );
  }
  await assert.rejects(
    runBackfillMemoriesCommand(["--dry-run"], { STORE_DATA_DIR: "memory://" }, () => undefined),
    /no stored memories to give mirror entries/,
  );
  let help = "";
  assert.equal(await runBackfillMemoriesCommand(["--help"], {}, (text) => (help += text)), 0);
  assert.match(help, /^Usage: context-hub backfill-memories/);
});
