/**
 * GET /artifacts/{sha256}: a whole artifact, or one byte range of it, over
 * HTTP for files too large to pass through tool calls. The caller is
 * authenticated as on /mcp and needs `context:read`; every piece is read
 * from the store as that caller, so access is decided there, and a file the
 * caller cannot see answers exactly as one never stored. The body is
 * streamed in 1 MiB reads, never buffered whole, and served so that no
 * browser runs it: `nosniff`, a sandboxing CSP, and `attachment` unless it
 * is a PNG, JPEG, GIF or WebP image (never SVG, which can carry script).
 */
import type { Request, Response } from "express";
import { isContextHubError, type ErrorCode, type Logger } from "@context-hub/common";
import type { ArtifactsClient, ArtifactSelectorInput, ArtifactView } from "./clients/artifacts-client.js";
import type { Principal } from "./principal.js";

/** Bytes asked of the store per read while streaming. */
const readBytes = 1024 * 1024;

/** Image types a browser only ever displays: served inline under their own type. */
const safeImageTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

const httpStatus: Partial<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: 400,
  ENTRY_NOT_FOUND: 404,
  PERMISSION_DENIED: 403,
  UNAUTHENTICATED: 401,
  RATE_LIMITED: 429,
  STORE_UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** A range of a file of `size` bytes, inclusive ends; "unsatisfiable" when it starts past the end. */
export type ByteRange = { start: number; end: number } | "unsatisfiable" | undefined;

/**
 * The one range of a `Range` header (RFC 9110 §14.1.2): `bytes=a-b`,
 * `bytes=a-` or `bytes=-n`. Undefined, so the whole file is served, for no
 * header, one that is not a single byte range (which a server may ignore),
 * or one it cannot parse.
 */
export function parseRange(header: string | undefined, size: number): ByteRange {
  const match = /^bytes=(\d*)-(\d*)$/.exec((header ?? "").trim());
  if (match === null) return undefined;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return undefined;
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0) return "unsatisfiable";
    return size === 0 ? "unsatisfiable" : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== "" && Number(last) < start) return undefined;
  if (start >= size) return "unsatisfiable";
  return { start, end };
}

/** Whether an If-None-Match header names this entity tag (or any, with `*`). */
function matchesTag(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((candidate) => {
    const value = candidate.trim().replace(/^W\//, "");
    return value === "*" || value === tag;
  });
}

/** `attachment` with the filename as ASCII and as RFC 5987 UTF-8, or `inline` for a safe image. */
function disposition(artifact: ArtifactView): string {
  const name = artifact.filename === "" ? artifact.sha256 : artifact.filename;
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const kind = safeImageTypes.has(artifact.media_type) ? "inline" : "attachment";
  // RFC 5987 leaves ' ( ) * out of a value's characters, which encodeURIComponent would let through.
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

function setHeaders(response: Response, artifact: ArtifactView, tag: string): void {
  const safeImage = safeImageTypes.has(artifact.media_type);
  // Any other type is sent as opaque bytes: its stored type goes in a header of its own, never in Content-Type.
  response.setHeader("content-type", safeImage ? artifact.media_type : "application/octet-stream");
  response.setHeader("x-context-hub-media-type", artifact.media_type);
  response.setHeader("content-disposition", disposition(artifact));
  response.setHeader("x-content-type-options", "nosniff");
  response.setHeader("content-security-policy", "default-src 'none'; sandbox");
  response.setHeader("cache-control", "private, no-cache");
  response.setHeader("accept-ranges", "bytes");
  response.setHeader("etag", tag);
}

function fail(response: Response, error: unknown, logger: Logger): void {
  const requestId = String(response.locals.requestId);
  if (!isContextHubError(error)) {
    logger.error({ err: error }, "artifact download failed");
    response.status(500).json({ error: { code: "INTERNAL", message: "Internal error", request_id: requestId } });
    return;
  }
  response.status(httpStatus[error.code] ?? 500).json({
    error: { code: error.code, message: error.message, remedy: error.remedy, request_id: requestId },
  });
}

/** Writes `length` bytes from `start`, read from the store piece by piece, waiting whenever the socket is full. */
async function stream(
  artifacts: ArtifactsClient,
  principal: Principal,
  selector: ArtifactSelectorInput,
  response: Response,
  start: number,
  length: number,
): Promise<void> {
  let closed = false;
  response.once("close", () => (closed = true));
  for (let offset = start; offset < start + length && !closed; ) {
    const piece = await artifacts.read(principal, selector, offset, Math.min(readBytes, start + length - offset));
    if (piece.data.byteLength === 0) throw new Error(`artifact ${selector.sha256} ended early at ${offset}`);
    offset += piece.data.byteLength;
    if (!response.write(piece.data)) await new Promise((resolve) => response.once("drain", resolve));
  }
  response.end();
}

/** The handler of GET (and HEAD) /artifacts/:sha256 for an authenticated caller in `response.locals.principal`. */
export function createArtifactDownload(artifacts: ArtifactsClient, logger: Logger) {
  return async (request: Request, response: Response): Promise<void> => {
    const principal = response.locals.principal as Principal;
    if (!principal.scopes.includes("context:read")) {
      response.status(403).json({
        error: {
          code: "PERMISSION_DENIED",
          message: "downloading an artifact needs the context:read scope",
          request_id: String(response.locals.requestId),
        },
      });
      return;
    }
    const text = (value: unknown) => (typeof value === "string" ? value : "");
    let artifact: ArtifactView;
    try {
      artifact = await artifacts.get(principal, {
        sha256: String(request.params.sha256 ?? ""),
        owner: text(request.query.owner),
        namespace: text(request.query.namespace),
      });
    } catch (error) {
      fail(response, error, logger);
      return;
    }
    // Later reads name the reference found first, so a file is served from one reference throughout.
    const selector = { sha256: artifact.sha256, owner: artifact.owner, namespace: artifact.namespace };
    const tag = `"${artifact.sha256}"`;
    setHeaders(response, artifact, tag);
    if (matchesTag(request.header("if-none-match"), tag)) {
      response.status(304).end();
      return;
    }
    const ifRange = request.header("if-range");
    const range =
      ifRange === undefined || ifRange === tag ? parseRange(request.header("range"), artifact.size) : undefined;
    if (range === "unsatisfiable") {
      response.setHeader("content-range", `bytes */${artifact.size}`);
      response.setHeader("content-type", "application/json; charset=utf-8");
      response.status(416).json({
        error: {
          code: "INVALID_ARGUMENT",
          message: `the range starts past the end of the file, which is ${artifact.size} bytes`,
          request_id: String(response.locals.requestId),
        },
      });
      return;
    }
    const start = range?.start ?? 0;
    const length = range === undefined ? artifact.size : range.end - range.start + 1;
    if (range !== undefined) {
      response.status(206);
      response.setHeader("content-range", `bytes ${range.start}-${range.end}/${artifact.size}`);
    }
    response.setHeader("content-length", String(length));
    if (request.method === "HEAD" || length === 0) {
      response.end();
      return;
    }
    try {
      await stream(artifacts, principal, selector, response, start, length);
    } catch (error) {
      // Headers are out: a cut connection is the only way left to say the body is incomplete.
      logger.warn({ err: error }, "artifact download stopped");
      response.destroy();
    }
  };
}
