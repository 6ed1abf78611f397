// The store's gRPC transport for published resources: PublicationsService handlers translating proto messages to publication domain calls and back.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImplementation } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import type { PublicationRecord, PublishResult } from "./publications/publication-model.js";
import type { PublicationService } from "./publications/publications.js";
import { idempotentResponse, toPrincipal } from "./messages.js";

function toPublicationMessage(publication: PublicationRecord): MessageInitShape<typeof storeV1.PublicationSchema> {
  return {
    uri: publication.uri,
    template: publication.template,
    entryId: publication.entryId,
    imageOrdinal: publication.imageOrdinal,
    artifactSha256: publication.artifactSha256,
    description: publication.description,
    createdAt: timestampFromDate(publication.createdAt),
    updatedAt: timestampFromDate(publication.updatedAt),
  };
}

const publishResponse = idempotentResponse(storeV1.PublishResourceResponseSchema, (result: PublishResult) => ({
  publication: toPublicationMessage(result.publication),
  replaced: result.replaced,
}));
const unpublishResponse = idempotentResponse(storeV1.UnpublishResourceResponseSchema, (result: PublicationRecord) => ({
  publication: toPublicationMessage(result),
}));

/** The PublicationsService implementation over the publication domain. */
export function createPublicationsHandlers(
  publications: PublicationService,
): ServiceImplementation<typeof storeV1.PublicationsService> {
  return {
    async publishResource(request) {
      const outcome = await publications.publish(toPrincipal(request.principal), {
        uri: request.uri,
        entryId: request.entryId,
        imageOrdinal: request.imageOrdinal,
        artifactSha256: request.artifactSha256,
        description: request.description,
        idempotency: publishResponse.key(request.idempotency),
      });
      return publishResponse.respond(outcome);
    },

    async unpublishResource(request) {
      const outcome = await publications.unpublish(toPrincipal(request.principal), {
        uri: request.uri,
        idempotency: unpublishResponse.key(request.idempotency),
      });
      return unpublishResponse.respond(outcome);
    },

    async listPublications(request) {
      const page = await publications.list(toPrincipal(request.principal), {
        templatesOnly: request.templatesOnly,
        limit: request.limit,
        cursor: request.cursor,
      });
      return { publications: page.publications.map(toPublicationMessage), nextCursor: page.nextCursor };
    },

    async resolvePublication(request) {
      const resolved = await publications.resolve(toPrincipal(request.principal), request.uri);
      return {
        publication: toPublicationMessage(resolved.publication),
        variables: Object.fromEntries(resolved.variables),
      };
    },
  };
}
