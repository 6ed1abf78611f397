// The store's gRPC transport for the process itself: the StoreService handler describing what this store runs on.
import type { ServiceImplementation } from "@context-hub/common";
import type { storeV1 } from "@context-hub/proto";
import type { DescribeService } from "./describe.js";

/** The StoreService implementation: the store's vector backend, schema version, database and embedding spaces. */
export function createDescribeHandlers(store: DescribeService): ServiceImplementation<typeof storeV1.StoreService> {
  return {
    async describe() {
      const description = await store.describe();
      return {
        vectorBackend: description.vectorBackend,
        fullTextIndex: description.fullTextIndex,
        schemaVersion: description.schemaVersion,
        database: description.database,
        embeddingSpaces: description.embeddingSpaces.map((space) => ({
          embeddingModel: space.embeddingModel,
          dimension: space.dimension,
          chunkCount: BigInt(space.chunkCount),
        })),
      };
    },
  };
}
