/** Artifacts as the tools and the download route ask for them, over ArtifactsService: proto built and read here, answers in the tools' snake_case. */
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { storeV1 } from "@context-hub/proto";
import type { Principal } from "../principal.js";
import type { ArtifactsServiceClient } from "./peers.js";

const iso = (timestamp: Timestamp | undefined) =>
  timestamp === undefined ? null : timestampDate(timestamp).toISOString();

export type ArtifactVisibility = "private" | "shared" | "tenant";

/** Where a new artifact goes and how it is described; empty strings take the store's defaults. */
export interface ArtifactDescriptionInput {
  namespace: string;
  visibility: ArtifactVisibility | "";
  mediaType: string;
  filename: string;
}

/** Which artifact a read names: its hash, and optionally the owner and namespace of one reference. */
export interface ArtifactSelectorInput {
  sha256: string;
  owner: string;
  namespace: string;
}

export interface ListArtifactsInput {
  role: "mine" | "";
  namespace: string;
  limit: number;
  cursor: string;
}

function toArtifactView(artifact: storeV1.Artifact) {
  return {
    sha256: artifact.sha256,
    size: artifact.size,
    media_type: artifact.mediaType,
    filename: artifact.filename,
    owner: artifact.owner,
    namespace: artifact.namespace,
    visibility: artifact.visibility as ArtifactVisibility,
    created_at: iso(artifact.createdAt),
    updated_at: iso(artifact.updatedAt),
  };
}

export type ArtifactView = ReturnType<typeof toArtifactView>;

function toUploadView(upload: storeV1.ArtifactUpload) {
  return {
    upload_id: upload.id,
    sha256: upload.sha256,
    size: upload.size,
    received: upload.received,
    media_type: upload.mediaType,
    filename: upload.filename,
    namespace: upload.namespace,
    visibility: upload.visibility as ArtifactVisibility,
    expires_at: iso(upload.expiresAt),
  };
}

export type UploadView = ReturnType<typeof toUploadView>;

function description(input: ArtifactDescriptionInput) {
  return {
    namespace: input.namespace,
    visibility: input.visibility,
    mediaType: input.mediaType,
    filename: input.filename,
  };
}

/** The artifacts client over an ArtifactsService connection. */
export function createArtifactsClient(store: ArtifactsServiceClient) {
  return {
    /** Stores a whole file; `sha256` empty when not declared. */
    async put(principal: Principal, input: ArtifactDescriptionInput, data: Uint8Array, sha256: string) {
      const reply = await store.putArtifact({ principal, description: description(input), data, sha256 });
      return toArtifactView(reply.artifact!);
    },

    /** Begins a chunked upload of a declared size and hash. */
    async begin(principal: Principal, input: ArtifactDescriptionInput, sha256: string, size: number) {
      const reply = await store.beginArtifactUpload({ principal, description: description(input), sha256, size });
      return toUploadView(reply.upload!);
    },

    /** Adds a part at `offset`; `duplicate` when the same bytes were written there before. */
    async append(principal: Principal, uploadId: string, offset: number, data: Uint8Array) {
      const reply = await store.appendArtifactUpload({ principal, uploadId, offset, data });
      return { upload: toUploadView(reply.upload!), duplicate: reply.duplicate };
    },

    /** Verifies and commits an upload. */
    async commit(principal: Principal, uploadId: string) {
      return toArtifactView((await store.commitArtifactUpload({ principal, uploadId })).artifact!);
    },

    /** One artifact's description. */
    async get(principal: Principal, selector: ArtifactSelectorInput) {
      return toArtifactView((await store.getArtifact({ principal, selector })).artifact!);
    },

    /** A byte range; `length` 0 reads as much as one store read returns. */
    async read(principal: Principal, selector: ArtifactSelectorInput, offset: number, length: number) {
      const reply = await store.readArtifact({ principal, selector, offset, length });
      return { artifact: toArtifactView(reply.artifact!), offset: reply.offset, data: reply.data };
    },

    /** One page of the artifacts the caller can see, newest first. */
    async list(principal: Principal, input: ListArtifactsInput) {
      const reply = await store.listArtifacts({ principal, ...input });
      return { artifacts: reply.artifacts.map(toArtifactView), nextCursor: reply.nextCursor };
    },

    /** Removes a reference; `bytes_removed` when it was the last. */
    async delete(principal: Principal, sha256: string, namespace: string, owner: string) {
      const reply = await store.deleteArtifact({ principal, sha256, namespace, owner });
      return { artifact: toArtifactView(reply.artifact!), bytesRemoved: reply.bytesRemoved };
    },
  };
}

export type ArtifactsClient = ReturnType<typeof createArtifactsClient>;
