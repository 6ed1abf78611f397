/** What the session log suites share: a tenant's session footprint, event and session builders, and namespace sharing. */
import assert from "node:assert/strict";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { storeV1 } from "@context-hub/proto";
import type { SqlExecutor } from "@context-hub/store/testing";
import { principal, type PrincipalInit, type StoreClient } from "./store-fixtures.js";

/** Everything stored for sessions in a tenant: what a refused call must leave unchanged. */
export async function sessionFootprint(db: SqlExecutor, tenant: string): Promise<Record<string, unknown>> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT (SELECT count(*)::integer FROM sessions WHERE tenant = $1) AS sessions,
            (SELECT string_agg(status || ':' || last_seq || ':' || summary, '|' ORDER BY id) FROM sessions WHERE tenant = $1) AS states,
            (SELECT count(*)::integer FROM session_events WHERE tenant = $1) AS events,
            (SELECT count(*)::integer FROM audit_log WHERE tenant = $1 AND outcome = 'ok') AS audited,
            (SELECT count(*)::integer FROM idempotency_keys WHERE tenant = $1) AS idempotency_keys`,
    [tenant],
  );
  return rows[0] ?? {};
}

export type NewEvent = Omit<MessageInitShape<typeof storeV1.NewSessionEventSchema>, "$typeName">;

export const event = (kind: string, payload: unknown, idempotencyKey = ""): NewEvent => ({
  kind,
  payloadJson: JSON.stringify(payload),
  idempotencyKey,
});

export async function start(client: StoreClient, caller: PrincipalInit, namespace = "", thread = "") {
  const reply = await client.startSession({ principal: caller, surface: "cli", agent: "coder", namespace, thread });
  assert.ok(reply.session !== undefined);
  return reply.session;
}

export async function readAll(client: StoreClient, caller: PrincipalInit, sessionId: string, kinds: string[] = []) {
  const events: storeV1.SessionEvent[] = [];
  let afterSeq = 0;
  do {
    const page = await client.readSessionEvents({ principal: caller, sessionId, afterSeq, kinds, limit: 3 });
    events.push(...page.events);
    afterSeq = page.nextAfterSeq;
  } while (afterSeq !== 0);
  return events;
}

export const admin = (tenant: string): PrincipalInit =>
  principal(tenant, "root", { scopes: ["context:read", "context:write", "context:admin"] });

export function share(client: StoreClient, owner: PrincipalInit, namespace: string, group: string, write: boolean) {
  return client.share({
    principal: owner,
    threadId: namespace,
    grantees: [{ kind: storeV1.GranteeKind.GROUP, name: group }],
    permission: write ? storeV1.Permission.WRITE : storeV1.Permission.READ,
  });
}
