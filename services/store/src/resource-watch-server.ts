// The store's gRPC transport for resource subscriptions: ResourceWatchService handlers translating proto messages to resource watch domain calls and back.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImplementation } from "@context-hub/common";
import type { storeV1 } from "@context-hub/proto";
import { toPrincipal } from "./messages.js";
import type { ResourceWatchService, WatchRequest } from "./resource-watch/resource-watch.js";

type WatchReply = MessageInitShape<typeof storeV1.WatchResourcesResponseSchema>;

function toWatchRequest(request: storeV1.WatchResourcesRequest): WatchRequest | undefined {
  switch (request.watched.case) {
    case "uris":
      return { uris: request.watched.value.uris };
    case "sessionId":
      return { sessionId: request.watched.value };
    case undefined:
      return undefined;
  }
}

/** The ResourceWatchService implementation over the resource watch domain. */
export function createResourceWatchHandlers(
  watches: ResourceWatchService,
): ServiceImplementation<typeof storeV1.ResourceWatchService> {
  return {
    subscribeResource: (request) => watches.subscribe(toPrincipal(request.principal), request.sessionId, request.uri),
    unsubscribeResource: (request) =>
      watches.unsubscribe(toPrincipal(request.principal), request.sessionId, request.uri),
    async *watchResources(request, context): AsyncGenerator<WatchReply> {
      for await (const message of watches.watch(
        toPrincipal(request.principal),
        toWatchRequest(request),
        context.signal,
      ))
        yield "ready" in message ? { ready: true } : { uri: message.uri };
    },
  };
}
