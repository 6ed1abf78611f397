// The store's gRPC transport for artifacts: ArtifactsService handlers translating proto messages to artifact domain calls and back.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImplementation } from "@context-hub/common";
import { type storeV1 } from "@context-hub/proto";
import type { ArtifactService } from "./artifacts/artifacts.js";
import type {
  ArtifactDescription,
  ArtifactRecord,
  ArtifactSelector,
  UploadRecord,
} from "./artifacts/artifact-model.js";
import { toPrincipal } from "./messages.js";

function toArtifactMessage(artifact: ArtifactRecord): MessageInitShape<typeof storeV1.ArtifactSchema> {
  return {
    id: artifact.id,
    sha256: artifact.sha256,
    size: artifact.size,
    mediaType: artifact.mediaType,
    filename: artifact.filename,
    owner: artifact.owner,
    namespace: artifact.namespace,
    visibility: artifact.visibility,
    createdAt: timestampFromDate(artifact.createdAt),
    updatedAt: timestampFromDate(artifact.updatedAt),
  };
}

function toUploadMessage(upload: UploadRecord): MessageInitShape<typeof storeV1.ArtifactUploadSchema> {
  return {
    id: upload.id,
    sha256: upload.sha256,
    size: upload.size,
    mediaType: upload.mediaType,
    filename: upload.filename,
    namespace: upload.namespace,
    visibility: upload.visibility,
    received: upload.received,
    expiresAt: timestampFromDate(upload.expiresAt),
  };
}

function description(message: storeV1.ArtifactDescription | undefined): ArtifactDescription {
  return {
    namespace: message?.namespace ?? "",
    visibility: message?.visibility ?? "",
    mediaType: message?.mediaType ?? "",
    filename: message?.filename ?? "",
  };
}

function selector(message: storeV1.ArtifactSelector | undefined): ArtifactSelector {
  return { sha256: message?.sha256 ?? "", owner: message?.owner ?? "", namespace: message?.namespace ?? "" };
}

/** The ArtifactsService implementation over the artifact domain. */
export function createArtifactsHandlers(
  artifacts: ArtifactService,
): ServiceImplementation<typeof storeV1.ArtifactsService> {
  return {
    async putArtifact(request) {
      const artifact = await artifacts.put(toPrincipal(request.principal), {
        ...description(request.description),
        data: request.data,
        sha256: request.sha256,
      });
      return { artifact: toArtifactMessage(artifact) };
    },

    async beginArtifactUpload(request) {
      const upload = await artifacts.begin(toPrincipal(request.principal), {
        ...description(request.description),
        sha256: request.sha256,
        size: request.size,
      });
      return { upload: toUploadMessage(upload) };
    },

    async appendArtifactUpload(request) {
      const result = await artifacts.append(toPrincipal(request.principal), {
        uploadId: request.uploadId,
        offset: request.offset,
        data: request.data,
      });
      return { upload: toUploadMessage(result.upload), duplicate: result.duplicate };
    },

    async commitArtifactUpload(request) {
      const artifact = await artifacts.commit(toPrincipal(request.principal), request.uploadId);
      return { artifact: toArtifactMessage(artifact) };
    },

    async getArtifact(request) {
      const artifact = await artifacts.get(toPrincipal(request.principal), selector(request.selector));
      return { artifact: toArtifactMessage(artifact) };
    },

    async readArtifact(request) {
      const read = await artifacts.read(toPrincipal(request.principal), {
        ...selector(request.selector),
        offset: request.offset,
        length: request.length,
      });
      return { artifact: toArtifactMessage(read.artifact), offset: read.offset, data: read.data };
    },

    async listArtifacts(request) {
      const page = await artifacts.list(toPrincipal(request.principal), {
        role: request.role,
        namespace: request.namespace,
        limit: request.limit,
        cursor: request.cursor,
      });
      return { artifacts: page.artifacts.map(toArtifactMessage), nextCursor: page.nextCursor };
    },

    async deleteArtifact(request) {
      const result = await artifacts.delete(toPrincipal(request.principal), {
        sha256: request.sha256,
        namespace: request.namespace,
        owner: request.owner,
      });
      return { artifact: toArtifactMessage(result.artifact), bytesRemoved: result.bytesRemoved };
    },
  };
}
