import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@context-hub/common";
import { openDatabase } from "./open-database.js";

const logger = createLogger("test", "silent");

test("a replica in verify mode refuses an unmigrated schema and serves a migrated one", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-verify-"));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  await assert.rejects(
    openDatabase({ url: "", dataDir, poolMax: 1, migrations: "verify" }, logger),
    /older than this store needs.*run the migrations first/s,
  );
  const migrated = await openDatabase({ url: "", dataDir, poolMax: 1, migrations: "apply" }, logger);
  await migrated.close();
  const verified = await openDatabase({ url: "", dataDir, poolMax: 1, migrations: "verify" }, logger);
  const { rows } = await verified.query<{ count: string }>("SELECT count(*)::text AS count FROM schema_migrations");
  assert.ok(Number(rows[0]?.count) >= 1);
  await verified.close();
});
