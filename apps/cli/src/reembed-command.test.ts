import { test } from "node:test";
import assert from "node:assert/strict";
import { runReembedCommand } from "./reembed-command.js";

test("a bad --batch-size is refused before anything is opened", async () => {
  for (const value of ["0", "-3", "1.5", "many", "20000"]) {
    await assert.rejects(
      runReembedCommand([`--batch-size=${value}`], { STORE_DATA_DIR: "/nonexistent/never-created" }, () => undefined),
      /--batch-size must be a whole number from 1 to 10000/,
    );
  }
  await assert.rejects(
    runReembedCommand(["--dry-run"], { STORE_DATA_DIR: "memory://" }, () => undefined),
    /nothing stored to re-embed/,
  );
});
