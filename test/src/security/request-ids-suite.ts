import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createGrpcClient } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import { callOk } from "../support/mcp.js";
import type { BackendHub, HubBackend } from "../support/hub-backends.js";

interface AuditView {
  records: { action: string; target_ids: string[]; request_id: string; details: Record<string, unknown> }[];
}

/**
 * The request id in the tamper-evident audit chain is the gateway's own:
 * a caller's X-Request-Id is recorded beside it, labelled as the caller's,
 * bounded and stripped of anything that could forge a log line. Run on
 * each database backend (see request-ids-*.test.ts).
 */
export function defineRequestIdTests(backend: HubBackend): void {
  describe(`request ids in the audit chain (${backend.name})`, () => {
    let hub: BackendHub;
    before(async () => {
      hub = await backend.start({ CONTEXT_HUB_AUTH: "none" });
    });
    after(async () => {
      await hub?.close();
    });

    /** store_context over raw HTTP with the caller's own X-Request-Id. */
    const storeWithRequestId = async (requestId: string, text: string) => {
      const response = await fetch(hub.hub.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "x-request-id": requestId },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "store_context", arguments: { thread_id: "request-ids", source: "agent", text } },
        }),
      });
      const body = (await response.json()) as { result: { structuredContent: { context_id: string } } };
      return {
        serverId: response.headers.get("x-request-id"),
        echoed: response.headers.get("x-client-request-id"),
        entryId: body.result.structuredContent.context_id,
      };
    };

    const auditRecordOf = async (entryId: string) => {
      const log = await callOk<AuditView>(hub.client, "get_audit_log", { target_id: entryId });
      const record = log.records.find((item) => item.action === "entry.create");
      assert.ok(record, `the create of ${entryId} is in the log`);
      return record;
    };

    test("a caller's X-Request-Id never becomes the recorded request id; it is kept as client_request_id", async () => {
      const chosen = "victim-request-0001";
      const first = await storeWithRequestId(chosen, "First note written with a chosen request id.");
      const second = await storeWithRequestId(chosen, "Second note written with the same chosen request id.");
      assert.match(first.serverId ?? "", /^[0-9a-f-]{36}$/, "the response names the server's id");
      assert.notEqual(first.serverId, chosen);
      assert.notEqual(first.serverId, second.serverId, "two requests never share an id, whatever the caller sent");
      assert.equal(first.echoed, chosen, "the caller's id comes back under its own header");

      for (const written of [first, second]) {
        const record = await auditRecordOf(written.entryId);
        assert.equal(record.request_id, written.serverId, "the chain records the gateway's id");
        assert.equal(record.details.client_request_id, chosen, "and the caller's, labelled as such");
      }
    });

    test("the caller's id is bounded and keeps no spaces, quotes, tabs or non-ASCII characters", async () => {
      // HTTP itself refuses line breaks and NUL in a header; everything else a header may carry is tried here.
      const hostile = `evil {"level":"info","requestId":"forged"}\t<script>\u00e9${"x".repeat(500)}`;
      const written = await storeWithRequestId(hostile, "A note whose caller sent a hostile request id.");
      const record = await auditRecordOf(written.entryId);
      const kept = String(record.details.client_request_id);
      assert.equal(kept.length, 128, "cut to 128 characters");
      assert.match(kept, /^[\w.:/+=@-]+$/, "only inert characters remain");
      assert.ok(kept.startsWith('evil__"level"'.replace(/"/g, "_")), kept);
      assert.equal(record.request_id, written.serverId);
    });

    test("without a caller id nothing extra is recorded, and the chain with caller ids verifies", async () => {
      const plain = await callOk<{ context_id: string }>(hub.client, "store_context", {
        thread_id: "request-ids",
        source: "agent",
        text: "A note sent without any request id.",
      });
      const record = await auditRecordOf(plain.context_id);
      assert.equal(Object.hasOwn(record.details, "client_request_id"), false);
      const store = createGrpcClient(storeV1.AuditService, {
        address: hub.hub.services.store.address,
        peer: "store",
        deadlineMs: 10_000,
      });
      try {
        const { tenants } = await store.verifyAuditLog({ tenant: "" });
        assert.ok(tenants.length > 0);
        for (const report of tenants) assert.equal(report.intact, true, `${report.tenant}: ${report.problem}`);
      } finally {
        store.close();
      }
    });
  });
}
