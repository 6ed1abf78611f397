/**
 * The REST face's one error mapper: every failure is an RFC 9457 problem
 * detail (`application/problem+json`) carrying the same code and remedy a
 * tool result carries. The request id travels in the X-Request-Id header,
 * not the body, so a hidden entry's 404 is byte-identical to a missing one's.
 */
import type { Response } from "express";
import { z } from "zod";
import type { ErrorCode, Logger } from "@context-hub/common";
import { describeFailure, type FailureDescription } from "../mcp/tool-result.js";

export const problemContentType = "application/problem+json";

/** The HTTP status of each domain error code. */
export function statusOf(code: ErrorCode): number {
  switch (code) {
    case "INVALID_ARGUMENT":
    case "AMBIGUOUS_ID_PREFIX":
      return 400;
    case "UNAUTHENTICATED":
      return 401;
    case "PERMISSION_DENIED":
      return 403;
    case "ENTRY_NOT_FOUND":
      return 404;
    case "VERSION_CONFLICT":
    case "DUPLICATE_VANISHED":
    case "ALREADY_EXISTS":
      return 409;
    case "TEXT_BUDGET_EXCEEDED":
      return 422;
    case "RATE_LIMITED":
      return 429;
    case "INTERNAL":
      return 500;
    case "PROVIDER_ERROR":
      return 502;
    case "EMBEDDER_UNAVAILABLE":
    case "SUMMARIZER_UNAVAILABLE":
    case "RERANKER_UNAVAILABLE":
    case "STORE_UNAVAILABLE":
    case "EMBEDDING_SPACE_MISMATCH":
      return 503;
    case "DEADLINE_EXCEEDED":
      return 504;
  }
}

/** A problem's fields: RFC 9457's type, title, status and detail, plus the tool errors' code, remedy and details. */
export const problemSchema = z.object({
  type: z.string().describe("A URI naming the kind of problem: urn:context-hub:problem:<code>."),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string().describe("The same code a tool error carries, e.g. ENTRY_NOT_FOUND or VERSION_CONFLICT."),
  remedy: z.string().optional().describe("What to do about it."),
  details: z.record(z.string(), z.unknown()).optional(),
});

export type Problem = z.infer<typeof problemSchema>;

const titleOf = (code: string) => {
  const words = code.toLowerCase().replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** The problem for a failure description; `status` overrides the code's own (412 for a failed If-Match). */
export function toProblem(failure: Omit<FailureDescription, "requestId" | "code"> & { code: string }, status: number) {
  const problem: Problem = {
    type: `urn:context-hub:problem:${failure.code.toLowerCase().replaceAll("_", "-")}`,
    title: titleOf(failure.code),
    status,
    detail: failure.message,
    code: failure.code,
    ...(failure.remedy === undefined ? {} : { remedy: failure.remedy }),
    ...(failure.details === undefined ? {} : { details: failure.details }),
  };
  return problem;
}

/** Sends a problem. */
export function sendProblem(response: Response, problem: Problem): void {
  response.status(problem.status).type(problemContentType).send(JSON.stringify(problem));
}

/** Sends the problem for a thrown error (domain errors keep their code; anything else is INTERNAL with a request id). */
export function sendError(response: Response, error: unknown, logger: Logger, status?: number): void {
  const failure = describeFailure(error, logger);
  sendProblem(response, toProblem(failure, status ?? statusOf(failure.code)));
}
