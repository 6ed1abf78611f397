/**
 * The artifact service: files addressed by their SHA-256, stored once per
 * tenant in 256 KiB chunks, reached through references (one per owner and
 * namespace) that carry a media type, filename and visibility.
 *
 * Holding a hash is not a capability: a file is read through a reference the
 * caller may see (its owner, whoever may read its namespace, tenant admins,
 * and whoever may see a handoff its owner created that links it); to anyone
 * else it and a file never stored get one and the same answer. A file
 * arrives whole (`put`) or in parts (`begin`, `append`, `commit`): parts are
 * written at the offset where the last one ended, a part resent at an
 * offset already written is accepted when its bytes are the same, and the
 * commit verifies size and hash against the declaration before anything
 * becomes an artifact. No SQL or transport here.
 */
import { createHash } from "node:crypto";
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { DenialRecorder } from "../audit/audit.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { getArtifact, listArtifacts, readArtifact } from "./artifact-reads.js";
import {
  artifactLimits,
  artifactNotFound,
  isUuid,
  tooLarge,
  uploadNotFound,
  validateSha256,
  validateSize,
  validateTarget,
  type AppendUploadRequest,
  type ArtifactBytes,
  type ArtifactPage,
  type ArtifactRecord,
  type ArtifactSelector,
  type ArtifactSettings,
  type ArtifactTarget,
  type BeginUploadRequest,
  type DeleteArtifactRequest,
  type DeleteArtifactResult,
  type ListArtifactsRequest,
  type PutArtifactRequest,
  type ReadArtifactRequest,
  type UploadRecord,
} from "./artifact-model.js";
import type { ArtifactRepository, ArtifactWriteScope } from "./artifact-repository.js";

/** Uploads one owner may have in progress at once, so abandoned ones cannot fill the store before they expire. */
export const uploadsInProgress = 16;

export interface ArtifactService {
  put(principal: Principal | undefined, request: PutArtifactRequest): Promise<ArtifactRecord>;
  begin(principal: Principal | undefined, request: BeginUploadRequest): Promise<UploadRecord>;
  append(
    principal: Principal | undefined,
    request: AppendUploadRequest,
  ): Promise<{ upload: UploadRecord; duplicate: boolean }>;
  commit(principal: Principal | undefined, uploadId: string): Promise<ArtifactRecord>;
  get(principal: Principal | undefined, selector: ArtifactSelector): Promise<ArtifactRecord>;
  read(principal: Principal | undefined, request: ReadArtifactRequest): Promise<ArtifactBytes>;
  list(principal: Principal | undefined, request: ListArtifactsRequest): Promise<ArtifactPage>;
  delete(principal: Principal | undefined, request: DeleteArtifactRequest): Promise<DeleteArtifactResult>;
}

/** Cuts a stream of parts into the stored chunks, in order. */
function createChunkWriter(scope: ArtifactWriteScope, tenant: string, sha256: string) {
  let pending = Buffer.alloc(0);
  let ordinal = 0;
  const emit = async (final: boolean) => {
    while (pending.byteLength >= artifactLimits.chunkBytes || (final && pending.byteLength > 0)) {
      const chunk = pending.subarray(0, artifactLimits.chunkBytes);
      await scope.writeChunk(tenant, sha256, ordinal++, chunk);
      pending = pending.subarray(chunk.byteLength);
    }
  };
  return {
    async push(data: Uint8Array) {
      pending = Buffer.concat([pending, data]);
      await emit(false);
    },
    flush: () => emit(true),
  };
}

function recordPut(scope: ArtifactWriteScope, caller: Principal, artifact: ArtifactRecord, stored: boolean): void {
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "artifact.put",
    outcome: "ok",
    targetIds: [artifact.id],
    beforeHashes: [],
    afterHashes: [artifact.sha256],
    details: {
      namespace: artifact.namespace,
      size: artifact.size,
      media_type: artifact.mediaType,
      bytes_stored: stored,
    },
  });
}

async function putIn(
  scope: ArtifactWriteScope,
  caller: Principal,
  target: ArtifactTarget,
  sha256: string,
  data: Uint8Array,
): Promise<ArtifactRecord> {
  const fresh = await scope.claimBlob(caller.tenant, sha256, data.byteLength);
  if (fresh) {
    const writer = createChunkWriter(scope, caller.tenant, sha256);
    await writer.push(data);
    await writer.flush();
  }
  const artifact = await scope.upsertReference(caller, target, sha256, data.byteLength);
  recordPut(scope, caller, artifact, fresh);
  return artifact;
}

/** Thrown inside a commit's transaction so it rolls back; answered once the upload is discarded. */
class HashMismatch extends Error {
  constructor(
    readonly declared: string,
    readonly actual: string,
  ) {
    super("hash mismatch");
  }
}

async function commitIn(scope: ArtifactWriteScope, caller: Principal, id: string, now: Date): Promise<ArtifactRecord> {
  const upload = isUuid(id) ? await scope.lockUpload(caller, id, now) : undefined;
  if (upload === undefined) throw uploadNotFound(id);
  if (upload.received !== upload.size)
    throw invalidArgument(
      `upload ${JSON.stringify(id)} has ${upload.received} of its declared ${upload.size} bytes`,
      `append the rest from offset ${upload.received}, then commit`,
    );
  const fresh = await scope.claimBlob(caller.tenant, upload.sha256, upload.size);
  // Hashed and cut into chunks inside the database: a 50 MiB file is not carried back through the store process.
  const actual = await scope.commitParts(upload.id, caller.tenant, upload.sha256, fresh);
  if (actual !== upload.sha256) throw new HashMismatch(upload.sha256, actual);
  const artifact = await scope.upsertReference(caller, upload, upload.sha256, upload.size);
  await scope.deleteUpload(upload.id);
  recordPut(scope, caller, artifact, fresh);
  return artifact;
}

async function appendIn(
  scope: ArtifactWriteScope,
  caller: Principal,
  request: AppendUploadRequest,
  now: Date,
): Promise<{ upload: UploadRecord; duplicate: boolean }> {
  const upload = isUuid(request.uploadId) ? await scope.lockUpload(caller, request.uploadId, now) : undefined;
  if (upload === undefined) throw uploadNotFound(request.uploadId);
  const { offset, data } = request;
  if (offset === upload.received) {
    if (offset + data.byteLength > upload.size)
      throw invalidArgument(
        `a part of ${data.byteLength} bytes at offset ${offset} would end past the declared size of ${upload.size} bytes`,
        "send the file's bytes only; begin a new upload if the declared size was wrong",
      );
    return { upload: await scope.appendPart(upload.id, offset, data), duplicate: false };
  }
  if (offset < upload.received) {
    const earlier = await scope.partAt(upload.id, offset);
    if (earlier !== undefined && Buffer.compare(Buffer.from(earlier), Buffer.from(data)) === 0)
      return { upload, duplicate: true };
    throw invalidArgument(
      `offset ${offset} was already written with other bytes (or is not where a part began); the upload continues at offset ${upload.received}`,
      "resend a part exactly as it was first sent, or send the next part at the offset the upload continues at",
    );
  }
  throw invalidArgument(
    `offset ${offset} is past the ${upload.received} bytes received so far`,
    `append the next part at offset ${upload.received}`,
  );
}
/** Deletes a reference the caller may change; the file's bytes go with its last reference. */
function deleteArtifact(
  repository: ArtifactRepository,
  denials: DenialRecorder,
  principal: Principal | undefined,
  request: DeleteArtifactRequest,
): Promise<DeleteArtifactResult> {
  return denials.guard(principal, "artifact.delete", [], async () => {
    const caller = requirePrincipal(principal, "context:write");
    const sha256 = validateSha256(request.sha256);
    const namespace = request.namespace === "" ? caller.subject : request.namespace;
    const owner = request.owner === "" ? caller.subject : request.owner;
    return repository.transaction(async (scope) => {
      const artifact = await scope.lockReference(caller, sha256, namespace, owner);
      if (artifact === undefined) throw artifactNotFound(sha256);
      if (!artifact.writable)
        throw new ContextHubError(
          "PERMISSION_DENIED",
          `you may read artifact ${JSON.stringify(sha256)} but not delete it: only its owner ${JSON.stringify(artifact.owner)}, those granted write on namespace ${JSON.stringify(artifact.namespace)} and tenant admins may`,
        );
      const bytesRemoved = await scope.removeReference(caller.tenant, artifact.id, sha256);
      scope.audit.record(caller.tenant, {
        actor: caller.subject,
        action: "artifact.delete",
        outcome: "ok",
        targetIds: [artifact.id],
        beforeHashes: [sha256],
        afterHashes: [],
        details: { namespace: artifact.namespace, owner: artifact.owner, bytes_removed: bytesRemoved },
      });
      const { writable: _writable, ...record } = artifact;
      return { artifact: record, bytesRemoved };
    });
  });
}

/** The artifact service over its repository. */
export function createArtifactService(
  repository: ArtifactRepository,
  denials: DenialRecorder,
  settings: ArtifactSettings,
): ArtifactService {
  return {
    async put(principal, request) {
      const caller = requirePrincipal(principal, "context:write");
      const target = validateTarget(request, caller.subject);
      if (request.data.byteLength > settings.maxBytes) throw tooLarge(request.data.byteLength, settings.maxBytes);
      const sha256 = createHash("sha256").update(request.data).digest("hex");
      if (request.sha256 !== "" && validateSha256(request.sha256) !== sha256)
        throw invalidArgument(
          `the bytes hash to ${sha256}, not the declared sha256 ${request.sha256.toLowerCase()}; nothing was stored`,
          "send the file's bytes unchanged (base64 of the raw file), or declare the hash they have",
        );
      return repository.transaction((scope) => putIn(scope, caller, target, sha256, request.data));
    },

    async begin(principal, request) {
      const caller = requirePrincipal(principal, "context:write");
      const target = validateTarget(request, caller.subject);
      const sha256 = validateSha256(request.sha256);
      const size = validateSize(request.size, settings.maxBytes);
      const now = settings.now();
      return repository.transaction(async (scope) => {
        await scope.deleteExpiredUploads(now, 100);
        if ((await scope.countUploads(caller, now)) >= uploadsInProgress)
          throw invalidArgument(
            `you have ${uploadsInProgress} uploads in progress, the most one principal may`,
            "commit or let them expire before beginning another",
          );
        return scope.insertUpload(caller, target, sha256, size, new Date(now.getTime() + settings.uploadTtlMs));
      });
    },

    async append(principal, request) {
      const caller = requirePrincipal(principal, "context:write");
      if (!Number.isSafeInteger(request.offset) || request.offset < 0)
        throw invalidArgument(`offset must be a whole number of bytes, 0 or more (got ${request.offset})`);
      if (request.data.byteLength === 0) throw invalidArgument("data must hold at least one byte");
      if (request.data.byteLength > artifactLimits.appendBytes)
        throw invalidArgument(
          `a part may be at most ${artifactLimits.appendBytes} bytes (got ${request.data.byteLength})`,
          "send the file in smaller parts",
        );
      return repository.transaction((scope) => appendIn(scope, caller, request, settings.now()));
    },

    async commit(principal, uploadId) {
      const caller = requirePrincipal(principal, "context:write");
      try {
        return await repository.transaction((scope) => commitIn(scope, caller, uploadId, settings.now()));
      } catch (error) {
        if (!(error instanceof HashMismatch)) throw error;
        // The parts cannot be told apart from the bad one, so the upload goes: a new one starts clean.
        await repository.transaction((scope) => scope.deleteUpload(uploadId));
        throw invalidArgument(
          `the uploaded bytes hash to ${error.actual}, not the declared sha256 ${error.declared}; nothing was stored and the upload is discarded`,
          "begin a new upload and send the file's bytes unchanged",
        );
      }
    },

    get: (principal, selector) => getArtifact(repository, principal, selector),
    read: (principal, request) => readArtifact(repository, principal, request),
    list: (principal, request) => listArtifacts(repository, principal, request),
    delete: (principal, request) => deleteArtifact(repository, denials, principal, request),
  };
}
