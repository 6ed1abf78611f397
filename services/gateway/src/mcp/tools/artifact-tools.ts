import type { ArtifactDescriptionInput, ArtifactView } from "../../clients/artifacts-client.js";
import {
  appendArtifactUploadInput,
  artifactResultOutput,
  artifactToolLimits,
  beginArtifactUploadInput,
  commitArtifactUploadInput,
  deleteArtifactInput,
  deleteArtifactOutput,
  getArtifactInput,
  getArtifactOutput,
  listArtifactsInput,
  listArtifactsOutput,
  putArtifactInput,
  uploadResultOutput,
} from "../artifact-schemas.js";
import { additiveTool, defineTool, destructiveTool, readOnlyTool } from "../tool-definition.js";

const notCapability =
  "Knowing a file's hash gives no access: a file you cannot see is reported exactly as one that was never stored.";

/** The path of the download route for one reference: owner and namespace pin it when several are visible. */
export function downloadPath(artifact: ArtifactView): string {
  const query = new URLSearchParams({ owner: artifact.owner, namespace: artifact.namespace });
  return `/artifacts/${artifact.sha256}?${query.toString()}`;
}

function describing(args: {
  namespace?: string | undefined;
  visibility?: "private" | "shared" | "tenant" | undefined;
  media_type?: string | undefined;
  filename?: string | undefined;
}): ArtifactDescriptionInput {
  return {
    namespace: args.namespace ?? "",
    visibility: args.visibility ?? "",
    mediaType: args.media_type ?? "",
    filename: args.filename ?? "",
  };
}

const bytes = (size: number) => `${size} byte${size === 1 ? "" : "s"}`;

export const putArtifactTool = defineTool({
  name: "put_artifact",
  title: "Store a file",
  description: [
    `Store a file (base64, up to ${artifactToolLimits.partBytes / (1024 * 1024)} MiB in one call) with its media type and filename; it is addressed by its SHA-256 and stored once per organisation however often it is put.`,
    "Give sha256 to have the bytes checked against it. For larger files (up to 50 MiB) use begin_artifact_upload, append_artifact_upload and commit_artifact_upload.",
    "Putting the same bytes again in the same namespace updates the filename, media type and visibility.",
  ].join(" "),
  inputSchema: putArtifactInput,
  outputSchema: artifactResultOutput,
  annotations: { ...additiveTool, idempotentHint: true },
  scope: "context:write",
  async handler(args, { principal, clients }) {
    const data = Buffer.from(args.data, "base64");
    const artifact = await clients.artifacts.put(principal, describing(args), data, args.sha256 ?? "");
    return {
      success: true,
      artifact,
      download_path: downloadPath(artifact),
      message: `Stored ${bytes(artifact.size)} as artifact ${artifact.sha256} in namespace ${JSON.stringify(artifact.namespace)}.`,
    };
  },
});

export const beginArtifactUploadTool = defineTool({
  name: "begin_artifact_upload",
  title: "Begin a file upload",
  description: [
    "Begin uploading a file too large for one put_artifact (up to 50 MiB): declare its SHA-256, size, media type and filename; you get an upload_id.",
    `Then send its bytes in order with append_artifact_upload (parts of at most ${artifactToolLimits.partBytes / (1024 * 1024)} MiB, each at the offset the last ended), and commit_artifact_upload.`,
    "An upload left uncommitted expires (after a day by default).",
  ].join(" "),
  inputSchema: beginArtifactUploadInput,
  outputSchema: uploadResultOutput,
  annotations: additiveTool,
  scope: "context:write",
  async handler(args, { principal, clients }) {
    const upload = await clients.artifacts.begin(principal, describing(args), args.sha256, args.size);
    return {
      success: true,
      upload,
      duplicate: false,
      message: `Began upload ${upload.upload_id} of ${bytes(upload.size)}; send the first part at offset 0 with append_artifact_upload.`,
    };
  },
});

export const appendArtifactUploadTool = defineTool({
  name: "append_artifact_upload",
  title: "Send part of a file",
  description: [
    "Send the next part of an upload (base64) at offset = the upload's `received`.",
    "Resumable: after a lost reply, resend the same part at the same offset (it is accepted once), or read `received` from the error and continue from there.",
    "A part at any other offset, or other bytes at an offset already written, is refused and changes nothing.",
  ].join(" "),
  inputSchema: appendArtifactUploadInput,
  outputSchema: uploadResultOutput,
  annotations: { ...additiveTool, idempotentHint: true },
  scope: "context:write",
  async handler(args, { principal, clients }) {
    const data = Buffer.from(args.data, "base64");
    const { upload, duplicate } = await clients.artifacts.append(principal, args.upload_id, args.offset, data);
    const rest = upload.size - upload.received;
    return {
      success: true,
      upload,
      duplicate,
      message:
        (duplicate ? `That part was already written; ` : `Received ${bytes(data.byteLength)}; `) +
        (rest === 0
          ? `all ${bytes(upload.size)} are in: commit with commit_artifact_upload.`
          : `${bytes(rest)} to go, from offset ${upload.received}.`),
    };
  },
});

export const commitArtifactUploadTool = defineTool({
  name: "commit_artifact_upload",
  title: "Finish a file upload",
  description: [
    "Finish an upload once every byte is in: the store checks the size and SHA-256 against what begin_artifact_upload declared, then stores the file as an artifact.",
    "A hash mismatch stores nothing and discards the upload (begin again).",
  ].join(" "),
  inputSchema: commitArtifactUploadInput,
  outputSchema: artifactResultOutput,
  annotations: additiveTool,
  scope: "context:write",
  async handler(args, { principal, clients }) {
    const artifact = await clients.artifacts.commit(principal, args.upload_id);
    return {
      success: true,
      artifact,
      download_path: downloadPath(artifact),
      message: `Stored ${bytes(artifact.size)} as artifact ${artifact.sha256} in namespace ${JSON.stringify(artifact.namespace)}.`,
    };
  },
});

export const getArtifactTool = defineTool({
  name: "get_artifact",
  title: "Read a file",
  description: [
    `Read a file you can see by its SHA-256: its description and a byte range as base64 (offset, length; at most ${artifactToolLimits.readBytes / 1024} KiB per call, page with next_offset; length 0 for the description only).`,
    "For whole large files, GET download_path over HTTP with your credentials instead.",
    notCapability,
  ].join(" "),
  inputSchema: getArtifactInput,
  outputSchema: getArtifactOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    const selector = { sha256: args.sha256, owner: args.owner ?? "", namespace: args.namespace ?? "" };
    const offset = args.offset ?? 0;
    const length = args.length ?? artifactToolLimits.defaultReadBytes;
    const read =
      length === 0
        ? { artifact: await clients.artifacts.get(principal, selector), offset, data: new Uint8Array(0) }
        : await clients.artifacts.read(principal, selector, offset, length);
    const end = offset + read.data.byteLength;
    const more = length !== 0 && end < read.artifact.size;
    return {
      artifact: read.artifact,
      offset,
      length: read.data.byteLength,
      data: Buffer.from(read.data).toString("base64"),
      has_more: more,
      next_offset: more ? end : null,
      download_path: downloadPath(read.artifact),
    };
  },
});

export const listArtifactsTool = defineTool({
  name: "list_artifacts",
  title: "List files",
  description: [
    "List the files you can see, newest first: yours (role 'mine') or also those in namespaces shared with you and those linked by handoffs to you; filter by namespace. Page with next_cursor.",
  ].join(" "),
  inputSchema: listArtifactsInput,
  outputSchema: listArtifactsOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    const page = await clients.artifacts.list(principal, {
      role: args.role ?? "",
      namespace: args.namespace ?? "",
      limit: args.limit ?? 0,
      cursor: args.cursor ?? "",
    });
    return {
      artifacts: page.artifacts,
      count: page.artifacts.length,
      has_more: page.nextCursor !== "",
      next_cursor: page.nextCursor === "" ? null : page.nextCursor,
    };
  },
});

export const deleteArtifactTool = defineTool({
  name: "delete_artifact",
  title: "Delete a file",
  description: [
    "Remove your file (its reference in one namespace). The bytes are deleted with the last reference to them; other references to the same bytes keep working.",
    notCapability,
  ].join(" "),
  inputSchema: deleteArtifactInput,
  outputSchema: deleteArtifactOutput,
  annotations: destructiveTool,
  scope: "context:write",
  async handler(args, { principal, clients }) {
    const result = await clients.artifacts.delete(principal, args.sha256, args.namespace ?? "", args.owner ?? "");
    return {
      success: true,
      artifact: result.artifact,
      bytes_removed: result.bytesRemoved,
      message: `Deleted artifact ${result.artifact.sha256} from namespace ${JSON.stringify(result.artifact.namespace)}${result.bytesRemoved ? "; no reference remained, so its bytes are gone" : "; other references keep its bytes"}.`,
    };
  },
});

/** The artifact tools, in the order tools/list shows them. */
export const artifactTools = [
  putArtifactTool,
  beginArtifactUploadTool,
  appendArtifactUploadTool,
  commitArtifactUploadTool,
  getArtifactTool,
  listArtifactsTool,
  deleteArtifactTool,
] as const;
