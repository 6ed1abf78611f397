import { test } from "node:test";
import assert from "node:assert/strict";
import { auditHash, canonicalJson, genesisHash, verifyChain, type AuditRecord } from "./audit.js";

/** A valid chain of `count` records for tenant "t". */
function chain(count: number): AuditRecord[] {
  const records: AuditRecord[] = [];
  let previousHash = genesisHash;
  for (let seq = 1; seq <= count; seq += 1) {
    const unhashed = {
      tenant: "t",
      seq,
      id: `00000000-0000-7000-8000-${String(seq).padStart(12, "0")}`,
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)),
      actor: seq % 2 === 0 ? "alice" : "bob",
      action: "entry.update" as const,
      outcome: "ok" as const,
      targetIds: [`entry-${seq}`],
      beforeHashes: ["a".repeat(64)],
      afterHashes: ["b".repeat(64)],
      requestId: `request-${seq}`,
      details: { version: seq, fields: ["text"], nested: { b: 1, a: null } },
      previousHash,
    };
    const record = { ...unhashed, hash: auditHash(unhashed) };
    records.push(record);
    previousHash = record.hash;
  }
  return records;
}

async function* pages(records: AuditRecord[], size = 2) {
  for (let index = 0; index < records.length; index += size) yield records.slice(index, index + size);
}

test("canonical JSON ignores key order, so a record read back from jsonb hashes the same", () => {
  assert.equal(canonicalJson({ b: [1, { d: 2, c: 3 }], a: "x" }), canonicalJson({ a: "x", b: [1, { c: 3, d: 2 }] }));
});

test("an untouched chain verifies, across pages", async () => {
  const report = await verifyChain("t", pages(chain(5)));
  assert.deepEqual([report.intact, report.records, report.broken], [true, 5, undefined]);
  assert.equal(report.headHash, chain(5).at(-1)!.hash);
});

test("an edited record is reported as the first broken one", async () => {
  const records = chain(5);
  records[2] = { ...records[2]!, actor: "mallory" };
  const report = await verifyChain("t", pages(records));
  assert.equal(report.intact, false);
  assert.equal(report.broken?.seq, 3);
  assert.match(report.broken?.problem ?? "", /content does not match its hash/);
  assert.equal(report.records, 2);
});

test("an edited record whose hash was recomputed breaks the link of the next one", async () => {
  const records = chain(5);
  const forged = { ...records[2]!, details: { version: 99 } };
  records[2] = { ...forged, hash: auditHash(forged) };
  const report = await verifyChain("t", pages(records));
  assert.equal(report.broken?.seq, 4);
  assert.match(report.broken?.problem ?? "", /previous_hash is not the hash of record 3/);
});

test("a removed or reordered record is reported where the sequence breaks", async () => {
  const removed = chain(5).filter((record) => record.seq !== 2);
  assert.equal((await verifyChain("t", pages(removed))).broken?.seq, 3);
  const records = chain(4);
  const swapped = [records[0]!, records[2]!, records[1]!, records[3]!];
  const report = await verifyChain("t", pages(swapped));
  assert.equal(report.broken?.seq, 3);
  assert.match(report.broken?.problem ?? "", /missing or out of order/);
});

test("every field is covered by the hash", () => {
  const [record] = chain(1);
  const base = auditHash(record!);
  const changes: Partial<AuditRecord>[] = [
    { tenant: "u" },
    { seq: 2 },
    { id: "other" },
    { at: new Date(0) },
    { actor: "x" },
    { action: "entry.delete" },
    { outcome: "denied" },
    { targetIds: [] },
    { beforeHashes: [] },
    { afterHashes: [] },
    { requestId: "" },
    { details: {} },
    { previousHash: "f".repeat(64) },
  ];
  for (const change of changes) assert.notEqual(auditHash({ ...record!, ...change }), base, JSON.stringify(change));
});
