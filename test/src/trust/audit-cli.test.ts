import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createLogger } from "@context-hub/common";
import { startAllInOne } from "@context-hub/cli";
import { openDatabase, type DatabaseOptions } from "@context-hub/store";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { startTestPostgres } from "../support/postgres.js";

/**
 * `context-hub audit verify` and `context-hub purge` run as an operator
 * would run them, as a separate process against the database a hub wrote:
 * a PGlite data directory (with the hub stopped, since PGlite allows one
 * process per directory) and a PostgreSQL server (with the hub running).
 */

const run = promisify(execFile);
const bin = resolve(fileURLToPath(import.meta.url), "../../../../bin/context-hub.js");
const logger = createLogger("audit-cli-test", "silent");

/** Runs the CLI and returns its exit code and output, whether it succeeds or not. */
async function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(process.execPath, [bin, ...args], { env });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

/** Writes, updates and deletes a few entries through MCP (auth off: tenant "local"). */
async function makeHistory(url: string): Promise<void> {
  const client = await connectMcpClient(url);
  try {
    for (let index = 0; index < 3; index += 1) {
      const ack = await callOk<{ context_id: string }>(client, "store_context", {
        thread_id: "ops",
        source: "user",
        text: `operations note ${index}`,
      });
      if (index === 1)
        await callOk(client, "update_context", { context_id: ack.context_id, text: "operations note 1, revised" });
      if (index === 2) await callOk(client, "delete_context", { context_ids: [ack.context_id], reason: "obsolete" });
    }
  } finally {
    await client.close();
  }
}

/** Changes audit record `seq` of tenant "local" behind the append-only trigger's back, as someone with the database owner's rights could. */
async function tamper(options: DatabaseOptions, seq: number): Promise<void> {
  const db = await openDatabase(options, logger);
  try {
    await db.transaction(async (tx) => {
      await tx.query("ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_change");
      const changed = await tx.query("UPDATE audit_log SET actor = 'mallory' WHERE tenant = 'local' AND seq = $1", [
        seq,
      ]);
      assert.equal(changed.rowCount, 1);
      await tx.query("ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_change");
    });
  } finally {
    await db.close();
  }
}

describe("context-hub audit verify and purge", () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  test("PGlite data directory: an intact chain verifies; a tampered record is reported by number; purge erases deleted history", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "context-hub-audit-"));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env = {
      ...process.env,
      LOG_LEVEL: "silent",
      DATABASE_URL: "",
      STORE_DATA_DIR: dataDir,
      CONTEXT_HUB_AUTH: "none",
    };
    const hub = await startAllInOne({ env, port: 0, dataDir });
    try {
      await makeHistory(hub.url);
    } finally {
      await hub.close();
    }

    const intact = await cli(env, "audit", "verify");
    assert.deepEqual([intact.code, intact.stdout.trim()], [0, "local: 5 record(s), chain intact"]);
    const dry = await cli(env, "purge", "--older-than", "0", "--dry-run");
    assert.match(dry.stdout, /^Would erase 1 kept version\(s\) of 1 entry\(ies\) deleted before .*Nothing was erased/);
    const purged = await cli(env, "purge", "--older-than", "0");
    assert.match(purged.stdout, /^Erased 1 kept version\(s\) of 1 entry\(ies\)/);
    assert.match((await cli(env, "purge", "--older-than", "0")).stdout, /^Erased 0 kept version/);

    await tamper({ url: "", dataDir, poolMax: 1 }, 3);
    const broken = await cli(env, "audit", "verify", "--tenant", "local");
    assert.equal(broken.code, 1);
    assert.match(
      broken.stdout,
      /^local: BROKEN at record 3 \(id [0-9a-f-]{36}\): its content does not match its hash: the record was changed; 2 record\(s\) before it verified/,
    );
    const json = JSON.parse((await cli(env, "audit", "verify", "--json")).stdout) as {
      tenant: string;
      intact: boolean;
      broken_seq: number;
    }[];
    assert.deepEqual(
      json.map((report) => [report.tenant, report.intact, report.broken_seq]),
      [["local", false, 3]],
    );
  });

  test("PostgreSQL server: verify runs beside a live hub and finds a tampered record", async () => {
    const postgres = await startTestPostgres();
    cleanups.push(() => postgres.close());
    const env = { ...process.env, LOG_LEVEL: "silent", DATABASE_URL: postgres.url, CONTEXT_HUB_AUTH: "none" };
    const hub = await startAllInOne({ env, port: 0 });
    cleanups.push(() => hub.close());
    await makeHistory(hub.url);

    assert.deepEqual(await cli(env, "audit", "verify"), { code: 0, stdout: "local: 5 record(s), chain intact\n" });
    await tamper({ url: postgres.url, dataDir: "", poolMax: 1 }, 5);
    const broken = await cli(env, "audit", "verify");
    assert.equal(broken.code, 1);
    assert.match(broken.stdout, /^local: BROKEN at record 5 /);
    assert.equal((await cli(env, "audit", "verify", "--tenant", "nobody")).stdout, "nobody: no audit records\n");
    assert.equal((await cli(env, "audit", "bogus")).code, 2);
  });
});
