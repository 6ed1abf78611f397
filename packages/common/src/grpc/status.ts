import { Metadata, status, type ServiceError, type StatusObject } from "@grpc/grpc-js";
import { ContextHubError, isErrorCode, type ErrorCode } from "../errors.js";

const errorCodeKey = "ch-error-code";
const remedyKey = "ch-error-remedy";
const detailsKey = "ch-error-details";

const statusOfCode: Record<ErrorCode, status> = {
  INVALID_ARGUMENT: status.INVALID_ARGUMENT,
  ENTRY_NOT_FOUND: status.NOT_FOUND,
  AMBIGUOUS_ID_PREFIX: status.INVALID_ARGUMENT,
  VERSION_CONFLICT: status.ABORTED,
  ALREADY_EXISTS: status.ALREADY_EXISTS,
  DUPLICATE_VANISHED: status.ABORTED,
  PERMISSION_DENIED: status.PERMISSION_DENIED,
  UNAUTHENTICATED: status.UNAUTHENTICATED,
  RATE_LIMITED: status.RESOURCE_EXHAUSTED,
  EMBEDDER_UNAVAILABLE: status.UNAVAILABLE,
  SUMMARIZER_UNAVAILABLE: status.UNAVAILABLE,
  RERANKER_UNAVAILABLE: status.UNAVAILABLE,
  STORE_UNAVAILABLE: status.UNAVAILABLE,
  PROVIDER_ERROR: status.UNAVAILABLE,
  DEADLINE_EXCEEDED: status.DEADLINE_EXCEEDED,
  TEXT_BUDGET_EXCEEDED: status.RESOURCE_EXHAUSTED,
  EMBEDDING_SPACE_MISMATCH: status.FAILED_PRECONDITION,
  INTERNAL: status.INTERNAL,
};

/** The gRPC status for a domain error; the domain code, remedy and details ride in trailers. */
export function toGrpcStatus(error: ContextHubError): Partial<StatusObject> {
  const metadata = new Metadata();
  metadata.set(errorCodeKey, error.code);
  if (error.remedy !== undefined) metadata.set(remedyKey, encodeURIComponent(error.remedy));
  if (Object.keys(error.details).length > 0)
    metadata.set(detailsKey, encodeURIComponent(JSON.stringify(error.details)));
  return { code: statusOfCode[error.code], details: error.message, metadata };
}

/** Which domain code a transport failure means when the peer sent none. */
export type PeerName = "store" | "embedder" | "summarizer" | "reranker";

const unavailableCodeOf: Record<PeerName, ErrorCode> = {
  store: "STORE_UNAVAILABLE",
  embedder: "EMBEDDER_UNAVAILABLE",
  summarizer: "SUMMARIZER_UNAVAILABLE",
  reranker: "RERANKER_UNAVAILABLE",
};

/** Rebuilds the domain error a peer raised, or names the transport failure after the peer. */
export function fromGrpcError(error: ServiceError, peer: PeerName): ContextHubError {
  const code = error.metadata?.get(errorCodeKey)[0];
  if (typeof code === "string" && isErrorCode(code)) {
    const remedy = error.metadata.get(remedyKey)[0];
    const details = error.metadata.get(detailsKey)[0];
    return new ContextHubError(code, error.details, {
      ...(typeof remedy === "string" ? { remedy: decodeURIComponent(remedy) } : {}),
      ...(typeof details === "string"
        ? { details: JSON.parse(decodeURIComponent(details)) as Record<string, unknown> }
        : {}),
    });
  }
  switch (error.code) {
    case status.DEADLINE_EXCEEDED:
      return new ContextHubError("DEADLINE_EXCEEDED", `${peer} did not answer before the deadline`, {
        details: { peer },
        cause: error,
      });
    case status.UNAVAILABLE:
      // gRPC's own wording ("No connection established. Last error: …") helps an operator, not a caller: it rides as the cause, for the logs.
      return new ContextHubError(
        unavailableCodeOf[peer],
        `the ${peer} service is unavailable, so the call could not be completed; retry shortly`,
        { details: { peer }, cause: error },
      );
    case status.CANCELLED:
      return new ContextHubError("INTERNAL", `call to ${peer} was cancelled`, { details: { peer } });
    // A peer answers its own domain errors with a ContextHubError code (above); any other status is its internal failure.
    case status.OK:
    case status.UNKNOWN:
    case status.INVALID_ARGUMENT:
    case status.NOT_FOUND:
    case status.ALREADY_EXISTS:
    case status.PERMISSION_DENIED:
    case status.RESOURCE_EXHAUSTED:
    case status.FAILED_PRECONDITION:
    case status.ABORTED:
    case status.OUT_OF_RANGE:
    case status.UNIMPLEMENTED:
    case status.INTERNAL:
    case status.DATA_LOSS:
    case status.UNAUTHENTICATED:
    default:
      return new ContextHubError("INTERNAL", `${peer} failed: ${error.details || status[error.code]}`, {
        details: { peer },
        cause: error,
      });
  }
}

/**
 * Whether a peer's call failed because the peer does not have the method at
 * all (UNIMPLEMENTED): an older version of the service, as during a rolling
 * upgrade, which the caller may answer by falling back to an older call.
 */
export function isUnimplementedCall(error: unknown): boolean {
  return (
    error instanceof ContextHubError && (error.cause as { code?: unknown } | undefined)?.code === status.UNIMPLEMENTED
  );
}
