// After a fault: checks the database against the ledger of acknowledged writes (I-5) and for partial rows and orphans.
import { contentHash } from "@context-hub/common";

/**
 * `query(sql, params)` runs SQL on the store's database and resolves `{ rows }`. Checks, for the bench tenants:
 * every acknowledged write present at its acknowledged version or later, its text intact (hash), with chunks that have
 * vectors and a summary when summaries are on, owned by the principal that wrote it and still private; and no entry
 * without chunks, no chunk, image or node summary without its entry, no kept version without an entry or tombstone.
 */
export async function verifyStore(query, ledger, { tenantPrefix = "tenant", expectSummary = true } = {}) {
  const like = `${tenantPrefix}%`;
  const { rows } = await query(
    `SELECT e.id::text AS id, e.tenant, e.owner, e.visibility, e.version, e.content_hash, e.text, e.summary,
            (SELECT count(*) FROM chunks c WHERE c.entry_id = e.id)::int AS chunks,
            (SELECT coalesce(max(c.end_offset), 0) FROM chunks c WHERE c.entry_id = e.id)::int AS chunk_end
       FROM entries e WHERE e.tenant LIKE $1`,
    [like],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const problems = {
    missing: [],
    older_than_acknowledged: [],
    hash_mismatch: [],
    text_corrupt: [],
    without_chunks: [],
    without_summary: [],
    wrong_owner: [],
    not_private: [],
  };
  for (const entry of ledger.entries.values()) {
    const row = byId.get(entry.id);
    if (row === undefined) {
      problems.missing.push(entry.id);
      continue;
    }
    if (row.version < entry.version)
      problems.older_than_acknowledged.push(`${entry.id} v${row.version} < v${entry.version}`);
    if (row.version === entry.version && row.content_hash !== entry.hash) problems.hash_mismatch.push(entry.id);
    if (row.tenant !== entry.tenant || row.owner !== entry.subject)
      problems.wrong_owner.push(`${entry.id} ${row.tenant}/${row.owner}`);
    if (row.visibility !== "private") problems.not_private.push(entry.id);
  }
  for (const row of rows) {
    if (contentHash(row.text) !== row.content_hash) problems.text_corrupt.push(row.id);
    if (row.chunks === 0) problems.without_chunks.push(row.id);
    if (expectSummary && row.summary === "") problems.without_summary.push(row.id);
  }
  const orphans = (
    await query(
      `SELECT
       (SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = c.entry_id))::int AS chunks,
       (SELECT count(*) FROM node_summaries n WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = n.entry_id))::int AS node_summaries,
       (SELECT count(*) FROM entry_images i WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = i.entry_id))::int AS images,
       (SELECT count(*) FROM entry_versions v WHERE v.tenant LIKE $1 AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = v.entry_id) AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.id = v.entry_id))::int AS versions`,
      [like],
    )
  ).rows[0];
  const counts = Object.fromEntries(Object.entries(problems).map(([key, list]) => [key, list.length]));
  const failed = Object.values(counts).some((count) => count > 0) || Object.values(orphans).some((count) => count > 0);
  return {
    acknowledged: ledger.entries.size,
    rows: rows.length,
    counts,
    orphans,
    examples: Object.fromEntries(
      Object.entries(problems)
        .filter(([, list]) => list.length > 0)
        .map(([key, list]) => [key, list.slice(0, 5)]),
    ),
    ok: !failed,
  };
}

/**
 * When the error rate came back to zero after a fault: the last failed call at or after `faultAt` (seconds on the
 * recorder's clock), measured from `liftedAt` (when the fault ended or the restart began), and whether calls then
 * succeeded for at least `settleS` seconds without a failure.
 */
export function recovery(samples, faultAt, liftedAt, settleS = 5) {
  const after = samples.filter((sample) => sample.t >= faultAt);
  const failures = after.filter((sample) => !sample.ok);
  const lastFailure = failures.reduce((latest, sample) => Math.max(latest, sample.t), faultAt);
  const end = after.reduce((latest, sample) => Math.max(latest, sample.t), faultAt);
  const successesAfter = after.filter((sample) => sample.ok && sample.t > lastFailure).length;
  // Calls that waited the fault out instead of failing show as slow ones.
  const slowest = after
    .filter((sample) => sample.t <= liftedAt + 30)
    .reduce((max, sample) => Math.max(max, sample.ms), 0);
  return {
    failed_calls: failures.length,
    calls: after.length,
    last_failure_s: Number(lastFailure.toFixed(2)),
    recovered_after_s: Number(Math.max(0, lastFailure - liftedAt).toFixed(2)),
    recovered: successesAfter > 0 && end - lastFailure >= settleS,
    slowest_call_ms: Math.round(slowest),
  };
}
