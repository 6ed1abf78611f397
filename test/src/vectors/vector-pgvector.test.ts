import { test } from "node:test";
import assert from "node:assert/strict";
import { commonV1 } from "@context-hub/proto";
import { commitWithVectors } from "../retrieval/retrieval-fixtures.js";
import { newTenant, principal } from "../store/store-fixtures.js";
import { defineVectorContractSuite } from "./vector-contract-suite.js";
import { direction, startPgvectorHarness } from "./vector-fixtures.js";

defineVectorContractSuite({ name: "pgvector (PGlite)", start: startPgvectorHarness });

test("a pgvector store keeps the outbox off: no triggers, nothing queued, and it describes itself as pgvector", async () => {
  const h = await startPgvectorHarness();
  try {
    const a1 = principal(newTenant("no-outbox"), "a1");
    const id = await commitWithVectors(h.client, a1, "t", "a note a pgvector store keeps to itself", [direction(0)]);
    await h.client.updateEntries({ principal: a1, updates: [{ id, visibility: commonV1.Visibility.TENANT }] });
    const { rows: triggers } = await h.db.query<{ count: number }>(
      "SELECT count(*)::integer AS count FROM pg_trigger WHERE tgname LIKE '%vector_outbox%'",
    );
    const { rows: queued } = await h.db.query<{ count: number }>(
      "SELECT count(*)::integer AS count FROM vector_outbox",
    );
    assert.deepEqual([triggers[0]?.count, queued[0]?.count], [0, 0]);
    assert.equal((await h.client.describe({})).vectorBackend, "pgvector");
  } finally {
    await h.close();
  }
});
