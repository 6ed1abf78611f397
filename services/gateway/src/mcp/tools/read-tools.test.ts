import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { storeV1 } from "@context-hub/proto";
import { getContextByIdsOutput } from "../output-schemas.js";
import { getContextByIdsTool } from "./read-tools.js";

test("get_context_by_ids passes on the entries the store left out for its reply budget, with size and reason", async () => {
  const asked: unknown[] = [];
  const reply = create(storeV1.GetEntriesResponseSchema, {
    missing: ["0190c2a4"],
    notReturned: [{ id: "0190c2a4-0000-7000-8000-000000000004", sizeBytes: 10_485_900n, reason: "the reply reached its 32 MiB budget; fetch it in another call" }],
  });
  const peers = {
    store: {
      getEntries: async (request: unknown) => {
        asked.push(request);
        return reply;
      },
    },
  };
  const principal = { tenant: "acme", subject: "a1", groups: [], scopes: ["context:read"] };
  const output = await getContextByIdsTool.handler({ context_ids: ["0190c2a4", "0190c2a4-0000-7000-8000-000000000004"], include_images: true }, { principal, peers, writePath: {} } as never);
  assert.deepEqual(output.not_returned, [{ id: "0190c2a4-0000-7000-8000-000000000004", size_bytes: 10_485_900, reason: "the reply reached its 32 MiB budget; fetch it in another call" }]);
  assert.deepEqual(output.missing, ["0190c2a4"]);
  assert.equal(getContextByIdsOutput.safeParse(output).success, true, "the output matches the tool's declared schema");
  assert.equal((asked[0] as { includeImages: boolean }).includeImages, true);
});
