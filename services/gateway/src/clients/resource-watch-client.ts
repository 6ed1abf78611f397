/** Resource subscriptions and their change streams, over the store's ResourceWatchService. */
import type { Principal } from "../principal.js";
import type { ResourceWatchServiceClient } from "./peers.js";

/** What a watch follows: a fixed list of URIs (a 2026-07-28 listen), or a 2025 session's subscriptions as they change. */
export type WatchedResources = { uris: readonly string[] } | { sessionId: string };

/** An open watch: `ready` settles once the store has it in place; `changes` yields each changed URI until cancelled. */
export interface ResourceWatch {
  ready: Promise<void>;
  changes: AsyncIterable<string>;
}

/** The resource-watch client over a ResourceWatchService connection. */
export function createResourceWatchClient(store: ResourceWatchServiceClient) {
  return {
    async subscribe(principal: Principal, sessionId: string, uri: string): Promise<void> {
      await store.subscribeResource({ principal, sessionId, uri });
    },

    async unsubscribe(principal: Principal, sessionId: string, uri: string): Promise<void> {
      await store.unsubscribeResource({ principal, sessionId, uri });
    },

    /**
     * Opens a watch that lasts until `signal` aborts (or the store ends it).
     * `ready` rejects with the store's refusal (an invalid URI, say) when the
     * watch could not start; `changes` then yields nothing.
     */
    watch(principal: Principal, watched: WatchedResources, signal: AbortSignal): ResourceWatch {
      const replies = store
        .watchResources(
          {
            principal,
            watched:
              "uris" in watched
                ? { case: "uris", value: { uris: [...watched.uris] } }
                : { case: "sessionId", value: watched.sessionId },
          },
          { signal },
        )
        [Symbol.asyncIterator]();
      const ready = replies.next().then((first) => {
        if (first.done === true || !first.value.ready)
          throw new Error("the store ended a resource watch before it was in place");
      });
      async function* changes(): AsyncGenerator<string> {
        await ready;
        for (;;) {
          const next = await replies.next();
          if (next.done === true) return;
          if (next.value.uri !== "") yield next.value.uri;
        }
      }
      return { ready, changes: changes() };
    },
  };
}

export type ResourceWatchClient = ReturnType<typeof createResourceWatchClient>;
