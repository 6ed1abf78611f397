import { test } from "node:test";
import assert from "node:assert/strict";
import { ContextHubError, createLogger } from "@context-hub/common";
import { waitFor } from "@context-hub/common/testing";
import {
  embeddingSpaceMismatch,
  startEmbeddingSpaceCheck,
  type EmbeddingSpaceCheckOptions,
} from "./embedding-space-check.js";

const logger = createLogger("test", "silent");
const builtin = { model: "builtin-glove-100d-v1", dimension: 100 };

test("an empty store, or one wholly in the embedder's space, accepts the embedder", () => {
  assert.equal(embeddingSpaceMismatch({ model: "text-embedding-3-small", dimension: 1536 }, []), undefined);
  assert.equal(embeddingSpaceMismatch(builtin, [{ ...builtin, chunkCount: 40 }]), undefined);
  // A registered space whose chunks are all gone holds nothing to miss.
  assert.equal(
    embeddingSpaceMismatch(builtin, [
      { ...builtin, chunkCount: 40 },
      { model: "old", dimension: 8, chunkCount: 0 },
    ]),
    undefined,
  );
});

test("chunks in another model or another dimension of the same model are a mismatch naming both spaces, the counts and the remedies", () => {
  const message = embeddingSpaceMismatch({ model: "text-embedding-3-small", dimension: 1536 }, [
    { ...builtin, chunkCount: 12_345 },
  ]);
  assert.match(
    message ?? "",
    /^The store holds 12,345 chunks embedded with "builtin-glove-100d-v1" \(100 dimensions\), but the embedder is configured for "text-embedding-3-small" \(1536 dimensions\)\./,
  );
  assert.match(message ?? "", /run `context-hub reembed`/);
  assert.match(
    message ?? "",
    /configure the previous model back \(the embedder settings that produce "builtin-glove-100d-v1" \(100 dimensions\)\)/,
  );

  const partly = embeddingSpaceMismatch({ model: "m", dimension: 256 }, [
    { model: "m", dimension: 1024, chunkCount: 1 },
    { model: "m", dimension: 256, chunkCount: 9 },
  ]);
  assert.match(
    partly ?? "",
    /holds 1 chunk embedded with "m" \(1024 dimensions\), but the embedder is configured for "m" \(256 dimensions\), which holds 9 chunks\./,
  );
});

type Answer =
  | { spaces: { embeddingModel: string; dimension: number; chunkCount: bigint }[]; model: string; dimension: number }
  | "down";

function fakePeers(answers: Answer[]): EmbeddingSpaceCheckOptions["peers"] {
  let call = 0;
  const next = () => answers[Math.min(call, answers.length - 1)]!;
  const down = () => new ContextHubError("STORE_UNAVAILABLE", "store is unreachable");
  return {
    store: {
      describe: async () => {
        const answer = next();
        if (answer === "down") throw down();
        return { embeddingSpaces: answer.spaces };
      },
    },
    embedder: {
      describe: async () => {
        const answer = next();
        call++;
        if (answer === "down") throw down();
        return { model: answer.model, dimension: answer.dimension };
      },
    },
  } as unknown as EmbeddingSpaceCheckOptions["peers"];
}

const stored = [{ embeddingModel: builtin.model, dimension: 100, chunkCount: 3n }];

test("a mismatch found at start-up rejects, so the gateway does not start", async () => {
  await assert.rejects(
    startEmbeddingSpaceCheck({
      peers: fakePeers([{ spaces: stored, model: "other", dimension: 8 }]),
      logger,
      callTimeoutMs: 100,
      retryMs: 5,
    }),
    (error: unknown) =>
      error instanceof ContextHubError &&
      error.code === "EMBEDDING_SPACE_MISMATCH" &&
      /"other" \(8 dimensions\)/.test(error.message),
  );
});

test("peers that cannot answer yet leave the check pending, and it concludes once they do", async () => {
  const check = await startEmbeddingSpaceCheck({
    peers: fakePeers(["down", { spaces: stored, model: builtin.model, dimension: 0 }, { spaces: stored, ...builtin }]),
    logger,
    callTimeoutMs: 100,
    retryMs: 5,
  });
  try {
    assert.equal(check.current().state, "pending");
    await waitFor(() => check.current().state !== "pending", { what: "the check to conclude once the peers answer" });
    assert.equal(check.current().state, "passed");
  } finally {
    check.stop();
  }
  const late = await startEmbeddingSpaceCheck({
    peers: fakePeers(["down", { spaces: stored, model: "other", dimension: 8 }]),
    logger,
    callTimeoutMs: 100,
    retryMs: 5,
  });
  try {
    await waitFor(() => late.current().state !== "pending", { what: "the late check to conclude" });
    const state = late.current();
    assert.equal(state.state, "refused");
    assert.match(state.state === "refused" ? state.reason : "", /context-hub reembed/);
  } finally {
    late.stop();
  }
});
