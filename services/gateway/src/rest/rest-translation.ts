/**
 * How the REST API translates HTTP to a tool's arguments (path, query or body, Idempotency-Key, If-Match, cursors) and
 * a tool's result back to a reply (status, ETag version, next_cursor).
 */
import type { Request } from "express";
import { ContextHubError } from "@context-hub/common";
import type { RestOperation, RestReply } from "./operation.js";
import { requestShapeOf, type QueryStyle } from "./request-shape.js";

/** An opaque page cursor: the tool's offset or before_seq it stands for. */
const encodeCursor = (kind: string, value: number) => Buffer.from(`${kind}:${value}`).toString("base64url");

function decodeCursor(kind: string, cursor: unknown): number {
  const [prefix, value] = typeof cursor === "string" ? Buffer.from(cursor, "base64url").toString().split(":") : [];
  const number = Number(value);
  if (prefix !== kind || value === undefined || !Number.isSafeInteger(number) || number < 0)
    throw new ContextHubError("INVALID_ARGUMENT", "cursor is not one this API issued", {
      remedy: "pass next_cursor of the previous page as it is, or leave cursor out for the first page",
    });
  return number;
}

/** The entry version an If-Match (or If-None-Match) value names: `"3"`; `*` names none. */
function versionOfTag(header: string): number | "any" {
  if (header.trim() === "*") return "any";
  const match = /^\s*(?:W\/)?"(\d{1,9})"\s*$/.exec(header);
  if (match === null)
    throw new ContextHubError("INVALID_ARGUMENT", `If-Match ${JSON.stringify(header)} is not an ETag this API sent`, {
      remedy: 'send the ETag of your last read, e.g. If-Match: "3"',
    });
  return Number(match[1]);
}

/** The ETag of an entry version. */
export const etagOf = (version: number) => `"${version}"`;

function queryValue(style: QueryStyle, raw: unknown, name: string): unknown {
  const values = Array.isArray(raw) ? raw.map(String) : [String(raw)];
  const one = () => {
    if (values.length !== 1) throw new ContextHubError("INVALID_ARGUMENT", `give ${name} once`);
    return values[0]!;
  };
  switch (style) {
    case "list":
      return values;
    case "number": {
      const text = one();
      return text.trim() === "" ? text : Number(text);
    }
    case "boolean": {
      const text = one();
      return text === "true" ? true : text === "false" ? false : text;
    }
    case "json": {
      const text = one();
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
    case "string":
      return one();
  }
}

/** The tool's arguments from the request: path, query or body, headers and cursor. */
export function toArguments(
  operation: RestOperation,
  request: Request,
): { args: Record<string, unknown>; ifMatch: boolean } {
  const shape = requestShapeOf(operation);
  const path = request.params as Record<string, string>;
  const args: Record<string, unknown> = {};
  const refuseBound = (name: string, where: string) => {
    if (shape.bound.has(name))
      throw new ContextHubError("INVALID_ARGUMENT", `${name} is not taken from the ${where} here`, {
        remedy: `see /api/v1/openapi.json for where ${operation.operationId} takes it (path, Idempotency-Key, If-Match or cursor)`,
      });
  };
  for (const [name, raw] of Object.entries(request.query)) {
    if (name === "cursor" && operation.paging !== undefined) continue;
    if (operation.argumentsIn !== "query")
      throw new ContextHubError("INVALID_ARGUMENT", `${operation.operationId} takes no query parameter ${name}`, {
        remedy: `send its arguments ${operation.argumentsIn === "body" ? "in the JSON body" : "in the path"}`,
      });
    refuseBound(name, "query");
    const parameter = shape.query.get(name);
    args[name] = parameter === undefined ? raw : queryValue(parameter.style, raw, name);
  }
  if (operation.argumentsIn === "body") {
    // A body whose every field is optional may be left out.
    const body: unknown = request.body === undefined && shape.body?.required === undefined ? {} : request.body;
    if (body === null || typeof body !== "object" || Array.isArray(body))
      throw new ContextHubError("INVALID_ARGUMENT", "the body must be a JSON object", {
        remedy: "send Content-Type: application/json with an object",
      });
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      refuseBound(name, "body");
      args[name] = value;
    }
  }
  for (const [name, parameter] of Object.entries(operation.pathArguments ?? {})) {
    if (parameter.argument === undefined) continue;
    const raw = path[name] ?? "";
    args[parameter.argument] = parameter.type === "integer" && /^\d{1,9}$/.test(raw) ? Number(raw) : raw;
  }
  Object.assign(args, operation.fixedArguments?.(path));
  const key = request.header("idempotency-key");
  if (key !== undefined && shape.idempotencyKey) args.idempotency_key = key;
  const ifMatch = request.header("if-match");
  let conditional = false;
  if (ifMatch !== undefined && shape.ifMatch !== undefined) {
    const version = versionOfTag(ifMatch);
    if (version !== "any") {
      args.expected_version = version;
      conditional = true;
    }
  }
  const cursor = request.query.cursor;
  if (operation.paging !== undefined && cursor !== undefined)
    args[operation.paging] = decodeCursor(operation.paging, cursor);
  return { args, ifMatch: conditional };
}

/** Zod issues as one line: `path: message; …`. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

/** The default reply: the tool's result, with next_cursor when the operation is paged. */
export function defaultReply(
  operation: RestOperation,
  result: Record<string, unknown>,
  args: Record<string, unknown>,
): RestReply {
  const status = operation.status ?? 200;
  if (operation.paging === "offset") {
    // The next page starts after the items of this one (every offset-paged tool answers count or a full page of limit).
    const next = Number(args.offset ?? 0) + Number(typeof result.count === "number" ? result.count : result.limit);
    return { status, body: { ...result, next_cursor: result.has_more === true ? encodeCursor("offset", next) : null } };
  }
  if (operation.paging === "before_seq") {
    const next = result.next_before_seq;
    return {
      status,
      body: { ...result, next_cursor: typeof next === "number" ? encodeCursor("before_seq", next) : null },
    };
  }
  return { status, body: result };
}
