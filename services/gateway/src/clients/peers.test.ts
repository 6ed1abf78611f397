import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger, isContextHubError, startGrpcService } from "@context-hub/common";
import { rerankerV1 } from "@context-hub/proto";
import { loadGatewayConfig } from "../config.js";
import { createPeers } from "./peers.js";

test(
  "a rerank call is held to GATEWAY_RERANK_TIMEOUT_MS, not to the summary's deadline",
  { timeout: 60_000 },
  async (t) => {
    // A reranker that answers only when the test lets it: a call ends on its deadline or not at all.
    let answer: (() => void) | undefined;
    const reranker = await startGrpcService({
      name: "slow-reranker",
      host: "127.0.0.1",
      port: 0,
      opsPort: -1,
      logger: createLogger("slow-reranker", "silent"),
      register: (builder) =>
        builder.addService(rerankerV1.RerankerService, {
          describe: async () => ({ provider: "p", model: "m" }),
          rerank: () => new Promise((resolve) => (answer = () => resolve({ results: [] }))),
        }),
    });
    t.after(() => reranker.close());
    // A summary deadline of ten minutes: a rerank call still using it would outlast the test's own timeout.
    const config = loadGatewayConfig({
      RERANKER_ADDRESS: `127.0.0.1:${reranker.port}`,
      GATEWAY_SUMMARY_TIMEOUT_MS: "600000",
      GATEWAY_RERANK_TIMEOUT_MS: "200",
    });
    assert.equal(config.timeouts.rerankMs, 200);
    const peers = createPeers(config);
    t.after(() => {
      answer?.();
      peers.close();
    });
    await assert.rejects(
      peers.reranker.rerank({ query: "q" }),
      (error: unknown) =>
        isContextHubError(error) && error.code === "DEADLINE_EXCEEDED" && /reranker/.test(error.message),
    );
  },
);

test("GATEWAY_RERANK_TIMEOUT_MS defaults to 30 s and is checked like the other deadlines", () => {
  assert.equal(loadGatewayConfig({}).timeouts.rerankMs, 30_000);
  assert.equal(
    loadGatewayConfig({ GATEWAY_SUMMARY_TIMEOUT_MS: "90000" }).timeouts.rerankMs,
    30_000,
    "independent of the summary's deadline",
  );
  assert.throws(
    () => loadGatewayConfig({ GATEWAY_RERANK_TIMEOUT_MS: "50" }),
    /GATEWAY_RERANK_TIMEOUT_MS: expected an integer from 100/,
  );
});
