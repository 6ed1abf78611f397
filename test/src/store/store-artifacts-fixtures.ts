/** What the artifact suites share: a tenant's artifact footprint, random files and whole reads. */
import { createHash, randomBytes } from "node:crypto";
import assert from "node:assert/strict";
import type { storeV1 } from "@context-hub/proto";
import type { SqlExecutor } from "@context-hub/store/testing";
import type { PrincipalInit, StoreClient } from "./store-fixtures.js";

/** Everything stored for artifacts in a tenant: what a refused call must leave unchanged. */
export async function artifactFootprint(db: SqlExecutor, tenant: string): Promise<Record<string, unknown>> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT (SELECT count(*)::integer FROM artifacts WHERE tenant = $1) AS references,
            (SELECT string_agg(owner || ':' || namespace || ':' || sha256 || ':' || filename || ':' || visibility, '|' ORDER BY id) FROM artifacts WHERE tenant = $1) AS rows,
            (SELECT count(*)::integer FROM artifact_blobs WHERE tenant = $1) AS blobs,
            (SELECT count(*)::integer FROM artifact_chunks WHERE tenant = $1) AS chunks,
            (SELECT count(*)::integer FROM artifact_uploads WHERE tenant = $1) AS uploads,
            (SELECT coalesce(sum(received), 0)::integer FROM artifact_uploads WHERE tenant = $1) AS received,
            (SELECT count(*)::integer FROM artifact_upload_parts p JOIN artifact_uploads u ON u.id = p.upload_id WHERE u.tenant = $1) AS parts,
            (SELECT count(*)::integer FROM audit_log WHERE tenant = $1 AND outcome = 'ok') AS audited`,
    [tenant],
  );
  return rows[0] ?? {};
}

/** `size` random bytes and their SHA-256. */
export function randomFile(size: number): { data: Buffer; sha256: string } {
  const data = randomBytes(size);
  return { data, sha256: createHash("sha256").update(data).digest("hex") };
}

export const sha256Of = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** Stores `data` whole as `caller`. */
export async function putFile(
  client: StoreClient,
  caller: PrincipalInit,
  data: Uint8Array,
  description: { namespace?: string; visibility?: string; mediaType?: string; filename?: string } = {},
): Promise<storeV1.Artifact> {
  const reply = await client.putArtifact({ principal: caller, description, data });
  assert.ok(reply.artifact !== undefined);
  return reply.artifact;
}

/** An artifact's bytes read back in ranges of `step` bytes. */
export async function readWhole(client: StoreClient, caller: PrincipalInit, sha256: string, step: number) {
  const parts: Uint8Array[] = [];
  let offset = 0;
  for (;;) {
    const reply = await client.readArtifact({ principal: caller, selector: { sha256 }, offset, length: step });
    parts.push(reply.data);
    offset += reply.data.byteLength;
    if (offset >= reply.artifact!.size) return Buffer.concat(parts);
  }
}
