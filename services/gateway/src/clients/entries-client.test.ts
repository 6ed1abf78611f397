import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { isContextHubError } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import { getContextByIdsOutput } from "../mcp/output-schemas.js";
import { createEntriesClient } from "./entries-client.js";
import type { Principal } from "../principal.js";
import type { EntriesServiceClient } from "./peers.js";

const principal: Principal = { tenant: "acme", subject: "a1", groups: [], scopes: ["context:read"] };

/** A store that answers getEntries with `reply` and records what it was asked. */
function storeAnswering(reply: storeV1.GetEntriesResponse) {
  const asked: unknown[] = [];
  const store = {
    getEntries: async (request: unknown) => {
      asked.push(request);
      return reply;
    },
  } as unknown as EntriesServiceClient;
  return { store, asked };
}

test("get passes on the entries the store left out for its reply budget, with size and reason, in get_context_by_ids' shape", async () => {
  const { store, asked } = storeAnswering(
    create(storeV1.GetEntriesResponseSchema, {
      missing: ["0190c2a4"],
      notReturned: [
        {
          id: "0190c2a4-0000-7000-8000-000000000004",
          sizeBytes: 10_485_900n,
          reason: "the reply reached its 32 MiB budget; fetch it in another call",
        },
      ],
    }),
  );
  const output = await createEntriesClient(store).get(principal, {
    ids: ["0190c2a4", "0190c2a4-0000-7000-8000-000000000004"],
    includeImages: true,
    includeQuarantined: false,
  });
  assert.deepEqual(output.not_returned, [
    {
      id: "0190c2a4-0000-7000-8000-000000000004",
      size_bytes: 10_485_900,
      reason: "the reply reached its 32 MiB budget; fetch it in another call",
    },
  ]);
  assert.deepEqual(output.missing, ["0190c2a4"]);
  assert.equal(getContextByIdsOutput.safeParse(output).success, true, "the output matches the tool's declared schema");
  assert.equal((asked[0] as { includeImages: boolean }).includeImages, true);
});

test("get names a withheld entry's trust state, and refuses a trust state this build does not know instead of guessing one", async () => {
  const known = storeAnswering(
    create(storeV1.GetEntriesResponseSchema, { withheld: [{ id: "e1", trustState: storeV1.TrustState.QUARANTINED }] }),
  );
  assert.deepEqual(
    (
      await createEntriesClient(known.store).get(principal, {
        ids: ["e1"],
        includeImages: false,
        includeQuarantined: false,
      })
    ).withheld,
    [{ id: "e1", trust_state: "quarantined" }],
  );
  const unknown = storeAnswering(
    create(storeV1.GetEntriesResponseSchema, { withheld: [{ id: "e1", trustState: 42 as storeV1.TrustState }] }),
  );
  await assert.rejects(
    createEntriesClient(unknown.store).get(principal, { ids: ["e1"], includeImages: false, includeQuarantined: false }),
    (error: unknown) => isContextHubError(error) && /trust_state 42 is not a known trust state/.test(error.message),
  );
});
