/** Published resource URIs as the tools and resources/read ask for them, over PublicationsService: proto built and read here, answers in the tools' snake_case. */
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { storeV1 } from "@context-hub/proto";
import type { Idempotency } from "../idempotency.js";
import type { Principal } from "../principal.js";
import type { PublicationsServiceClient } from "./peers.js";

const iso = (timestamp: Timestamp | undefined) =>
  timestamp === undefined ? null : timestampDate(timestamp).toISOString();

/** What a publication serves: the entry's text, one of its images, or one file it links. */
export type PublicationTarget =
  | { kind: "text" }
  | { kind: "image"; ordinal: number }
  | { kind: "artifact"; sha256: string };

function targetOf(publication: storeV1.Publication): PublicationTarget {
  if (publication.imageOrdinal !== undefined) return { kind: "image", ordinal: publication.imageOrdinal };
  if (publication.artifactSha256 !== "") return { kind: "artifact", sha256: publication.artifactSha256 };
  return { kind: "text" };
}

/** A publication as a tool returns it. */
function toPublicationView(publication: storeV1.Publication | undefined) {
  const target = publication === undefined ? ({ kind: "text" } as const) : targetOf(publication);
  return {
    uri: publication?.uri ?? "",
    template: publication?.template ?? false,
    id: publication?.entryId ?? "",
    serves: target.kind,
    image: target.kind === "image" ? target.ordinal : null,
    artifact: target.kind === "artifact" ? target.sha256 : null,
    description: publication?.description ?? "",
    created_at: iso(publication?.createdAt),
    updated_at: iso(publication?.updatedAt),
  };
}

export type PublicationView = ReturnType<typeof toPublicationView>;

const idempotent = (idempotency: Idempotency | undefined) => (idempotency === undefined ? {} : { idempotency });

/** The publications client over a PublicationsService connection. */
export function createPublicationsClient(store: PublicationsServiceClient) {
  return {
    async publish(
      principal: Principal,
      input: {
        uri: string;
        entryId: string;
        imageOrdinal: number | undefined;
        artifactSha256: string | undefined;
        description: string;
        idempotency?: Idempotency | undefined;
      },
    ) {
      const reply = await store.publishResource({
        principal,
        uri: input.uri,
        entryId: input.entryId,
        ...(input.imageOrdinal === undefined ? {} : { imageOrdinal: input.imageOrdinal }),
        artifactSha256: input.artifactSha256 ?? "",
        description: input.description,
        ...idempotent(input.idempotency),
      });
      return { publication: toPublicationView(reply.publication), replaced: reply.replaced };
    },

    async unpublish(principal: Principal, input: { uri: string; idempotency?: Idempotency | undefined }) {
      const reply = await store.unpublishResource({ principal, uri: input.uri, ...idempotent(input.idempotency) });
      return toPublicationView(reply.publication);
    },

    async list(principal: Principal, input: { templatesOnly: boolean; limit: number; cursor: string }) {
      const reply = await store.listPublications({
        principal,
        templatesOnly: input.templatesOnly,
        limit: input.limit,
        cursor: input.cursor,
      });
      return { publications: reply.publications.map(toPublicationView), nextCursor: reply.nextCursor };
    },

    /** The caller's publication `uri` names, with the values a template took from it; the store's NOT_FOUND otherwise. */
    async resolve(principal: Principal, uri: string) {
      const reply = await store.resolvePublication({ principal, uri });
      const publication = reply.publication;
      return {
        uri: publication?.uri ?? "",
        template: publication?.template ?? false,
        entryId: publication?.entryId ?? "",
        description: publication?.description ?? "",
        target: publication === undefined ? ({ kind: "text" } as const) : targetOf(publication),
        variables: new Map(Object.entries(reply.variables)),
      };
    },
  };
}
