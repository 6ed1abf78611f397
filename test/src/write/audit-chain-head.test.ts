import { test } from "node:test";
import assert from "node:assert/strict";
import { createGrpcClient, createLogger } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import { startAllInOne } from "@context-hub/cli";
import { openDatabase } from "@context-hub/store";
import { auditHash, createUuidV7 } from "@context-hub/store/testing";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { startTestPostgres } from "../support/postgres.js";

/**
 * A store appends audit records after the chain head it last wrote, checked
 * against the database in the same statement. When another store has
 * appended meanwhile (two replicas on one PostgreSQL), the guess misses and
 * the record goes after the real head: the chain stays whole.
 */
test("appends after another store's records keep the tenant's chain whole (PostgreSQL)", async (t) => {
  const postgres = await startTestPostgres();
  t.after(() => postgres.close());
  const hub = await startAllInOne({
    env: { ...process.env, LOG_LEVEL: "silent", DATABASE_URL: postgres.url },
    port: 0,
  });
  t.after(() => hub.close());
  const client = await connectMcpClient(hub.url);
  t.after(() => client.close());
  const store = createGrpcClient(storeV1.AuditService, {
    address: hub.services.store.address,
    peer: "store",
    deadlineMs: 10_000,
  });
  t.after(() => store.close());
  const db = await openDatabase({ url: postgres.url, dataDir: "", poolMax: 1 }, createLogger("test", "silent"));
  t.after(() => db.close());

  const write = (index: number) =>
    callOk(client, "store_context", {
      thread_id: "chain",
      source: "agent",
      text: `Chain note ${index}: the head moved.`,
    });
  await write(1);
  await write(2);
  const { rows } = await db.query<{ tenant: string; seq: string; hash: string }>(
    "SELECT tenant, seq::text AS seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1",
  );
  const head = rows[0]!;
  // Another store of the same deployment appends a record the first one has not seen.
  const record = {
    previousHash: head.hash,
    tenant: head.tenant,
    seq: Number(head.seq) + 1,
    id: createUuidV7(),
    at: new Date(Math.floor(Date.now() / 1000) * 1000),
    actor: "other-replica",
    action: "entry.create" as const,
    outcome: "ok" as const,
    targetIds: [createUuidV7()],
    beforeHashes: [],
    afterHashes: ["0".repeat(64)],
    requestId: "other",
    details: {},
  };
  await db.query(
    `INSERT INTO audit_log (tenant, seq, id, at, actor, action, outcome, target_ids, before_hashes, after_hashes, request_id, details, previous_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      record.tenant,
      record.seq,
      record.id,
      record.at.toISOString(),
      record.actor,
      record.action,
      record.outcome,
      record.targetIds,
      record.beforeHashes,
      record.afterHashes,
      record.requestId,
      "{}",
      record.previousHash,
      auditHash(record),
    ],
  );
  await write(3);
  await write(4);

  const { tenants } = await store.verifyAuditLog({ tenant: head.tenant });
  assert.equal(tenants[0]?.intact, true, `broken at ${tenants[0]?.brokenId}`);
  assert.equal(
    Number(tenants[0]?.records),
    Number(head.seq) + 3,
    "both appends after the foreign record are in the chain",
  );
  const { rows: actors } = await db.query<{ actor: string }>(
    "SELECT actor FROM audit_log WHERE tenant = $1 ORDER BY seq DESC LIMIT 3",
    [head.tenant],
  );
  assert.deepEqual(
    actors.map((row) => row.actor),
    [actors[0]!.actor, actors[0]!.actor, "other-replica"],
  );
});
