/**
 * The start-up check that the embedder still speaks the language of the
 * stored vectors. Chunks carry the (model, dimension) they were embedded in,
 * and a semantic search compares the query's vector only with chunks of the
 * embedder's own space: after a model change, every chunk stored before it
 * would silently drop out of semantic and hybrid search. So a gateway whose
 * embedder's space differs from any stored chunk's refuses to serve and says
 * how to fix it: re-embed the stored chunks, or configure the old model back.
 */
import { ContextHubError, type Logger } from "@context-hub/common";
import type { Peers } from "./clients/peers.js";
import type { GatewayConfig } from "./config.js";

/** An (embedding model, dimension) pair: vectors of two spaces are never compared. */
export interface EmbeddingSpace {
  model: string;
  dimension: number;
}

export interface StoredEmbeddingSpace extends EmbeddingSpace {
  /** Chunks the store holds in this space. */
  chunkCount: number;
}

const sameSpace = (a: EmbeddingSpace, b: EmbeddingSpace) => a.model === b.model && a.dimension === b.dimension;
const spaceName = (space: EmbeddingSpace) => `"${space.model}" (${space.dimension} dimensions)`;
const chunks = (count: number) => `${count.toLocaleString("en-US")} chunk${count === 1 ? "" : "s"}`;

/**
 * Why the embedder's space cannot serve the stored chunks, or undefined when
 * it can: every stored chunk is in the embedder's space (an empty store
 * accepts any model). The message names both spaces with their chunk counts
 * and the two ways out.
 */
export function embeddingSpaceMismatch(
  embedder: EmbeddingSpace,
  stored: readonly StoredEmbeddingSpace[],
): string | undefined {
  const others = stored.filter((space) => space.chunkCount > 0 && !sameSpace(space, embedder));
  if (others.length === 0) return undefined;
  const inEmbedderSpace = stored
    .filter((space) => sameSpace(space, embedder))
    .reduce((sum, space) => sum + space.chunkCount, 0);
  const held = others.map((space) => `${chunks(space.chunkCount)} embedded with ${spaceName(space)}`).join(", ");
  return [
    `The store holds ${held}, but the embedder is configured for ${spaceName(embedder)}${inEmbedderSpace > 0 ? `, which holds ${chunks(inEmbedderSpace)}` : ""}.`,
    "Semantic and hybrid search compare vectors of one space only, so those chunks would never be found. Either:",
    `  - re-embed them: stop the server, then run \`context-hub reembed\` with the new embedder settings (EMBEDDER_PROVIDER, EMBEDDER_MODEL, …) and the same database settings; it can be interrupted and rerun; or`,
    `  - configure the previous model back (the embedder settings that produce ${spaceName(others[0]!)}).`,
  ].join("\n");
}

/** What the check concluded: `passed`, `refused` (with the reason), or `pending` while a peer has not answered yet. */
export type EmbeddingSpaceCheckState =
  | { state: "passed" }
  | { state: "pending"; reason: string }
  | { state: "refused"; reason: string };

export interface EmbeddingSpaceCheck {
  current(): EmbeddingSpaceCheckState;
  stop(): void;
}

export interface EmbeddingSpaceCheckOptions {
  peers: Pick<Peers, "store" | "embedder">;
  logger: Logger;
  /** Deadline of each Describe call. */
  callTimeoutMs: number;
  /** How often a check that could not conclude is repeated. */
  retryMs: number;
}

/** One attempt: the verdict, or `pending` when a peer is unreachable or the embedder has not learned its dimension yet. */
async function checkOnce(options: EmbeddingSpaceCheckOptions): Promise<EmbeddingSpaceCheckState> {
  const { peers, callTimeoutMs } = options;
  let description: [
    Awaited<ReturnType<Peers["store"]["describe"]>>,
    Awaited<ReturnType<Peers["embedder"]["describe"]>>,
  ];
  try {
    description = await Promise.all([
      peers.store.describe({}, { deadlineMs: callTimeoutMs }),
      peers.embedder.describe({}, { deadlineMs: callTimeoutMs }),
    ]);
  } catch (error) {
    return {
      state: "pending",
      reason: `the embedding space check could not reach its peers yet: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const [store, embedder] = description;
  // An HTTP provider without a configured dimension learns it from its first answer.
  if (embedder.dimension === 0)
    return { state: "pending", reason: `the embedder has not learned the dimension of "${embedder.model}" yet` };
  const stored = store.embeddingSpaces.map((space) => ({
    model: space.embeddingModel,
    dimension: space.dimension,
    chunkCount: Number(space.chunkCount),
  }));
  const mismatch = embeddingSpaceMismatch({ model: embedder.model, dimension: embedder.dimension }, stored);
  return mismatch === undefined ? { state: "passed" } : { state: "refused", reason: mismatch };
}

/**
 * Runs the check at start-up. When both peers answer, the verdict is final
 * at once: a mismatch rejects with an EMBEDDING_SPACE_MISMATCH error carrying the
 * whole explanation, so the gateway does not start. When a peer cannot
 * answer yet (a cluster starting in any order), the gateway starts not ready
 * and the check repeats every `retryMs` until it concludes; a mismatch found
 * then keeps the gateway not ready (its /readyz says why) and is logged.
 */
export async function startEmbeddingSpaceCheck(options: EmbeddingSpaceCheckOptions): Promise<EmbeddingSpaceCheck> {
  let state = await checkOnce(options);
  if (state.state === "refused") throw new ContextHubError("EMBEDDING_SPACE_MISMATCH", state.reason);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const retry = () => {
    timer = setTimeout(() => {
      void checkOnce(options).then((next) => {
        if (stopped) return;
        state = next;
        if (next.state === "pending") retry();
        else if (next.state === "refused")
          options.logger.error(
            { reason: next.reason },
            "the embedder's model does not match the stored vectors; the gateway stays not ready",
          );
        else options.logger.info("embedding space check passed");
      });
    }, options.retryMs);
    timer.unref();
  };
  if (state.state === "pending") {
    options.logger.warn(
      { reason: state.reason },
      "embedding space check pending; the gateway is not ready until it passes",
    );
    retry();
  }
  return {
    current: () => state,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * The check as a gateway (HTTP or stdio) runs it before it serves, with its configured store deadline: a mismatch
 * refuses to start, and the peers are closed then.
 */
export async function checkEmbeddingSpaceBeforeServing(
  config: GatewayConfig,
  peers: Peers,
  logger: Logger,
): Promise<EmbeddingSpaceCheck> {
  try {
    return await startEmbeddingSpaceCheck({
      peers,
      logger,
      callTimeoutMs: Math.min(config.timeouts.storeMs, 5_000),
      retryMs: 2_000,
    });
  } catch (error) {
    peers.close();
    throw error;
  }
}
