import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { reservedKeys } from "./json-shape.js";

/**
 * JSON-RPC requests whose params are malformed are answered here with
 * -32602 Invalid params and a plain message, before the MCP SDK sees them:
 * the SDK checks a request's params only inside its handler, and answers a
 * failed check as -32603 Internal error carrying a raw Zod issue list (or,
 * for an own `constructor` key in `arguments`, a TypeError from Zod's
 * plain-object test).
 */

interface RequestSchema {
  safeParse(
    value: unknown,
  ):
    | { success: true }
    | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** The methods this server answers, with the SDK's own schema for each (the checks its handlers would make). */
const requestSchemas = new Map<string, RequestSchema>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
]);

const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** What is wrong with a tools/call's params, in words a caller can act on; undefined when they have the right shape. */
function toolCallProblem(params: unknown): string | undefined {
  if (params === undefined) return "tools/call needs params: a JSON object with the tool's name and its arguments";
  if (!isJsonObject(params))
    return `params must be a JSON object with the tool's name and its arguments (got ${kindOf(params)})`;
  if (typeof params.name !== "string") return "params.name must be a string naming the tool; tools/list lists them";
  const args = params.arguments;
  if (args === undefined) return undefined;
  if (!isJsonObject(args)) return `params.arguments must be a JSON object (got ${kindOf(args)})`;
  const reserved = Object.keys(args).find((key) => reservedKeys.includes(key));
  if (reserved !== undefined) return `params.arguments must not have a ${JSON.stringify(reserved)} key`;
  return undefined;
}

const pathText = (path: readonly PropertyKey[]) =>
  path
    .map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`))
    .join("")
    .replace(/^\./, "");

/**
 * Why a request's params would fail the SDK's check, or undefined (also for
 * methods this server does not answer: the SDK says "Method not found").
 */
export function paramsProblem(request: Pick<JSONRPCRequest, "method" | "params">): string | undefined {
  const schema = requestSchemas.get(request.method);
  if (schema === undefined) return undefined;
  if (request.method === "tools/call") {
    const problem = toolCallProblem(request.params);
    if (problem !== undefined) return problem;
  }
  let verdict: ReturnType<RequestSchema["safeParse"]>;
  try {
    verdict = schema.safeParse(request);
  } catch {
    return `the params of ${request.method} could not be read; send a JSON object without "__proto__" or "constructor" keys`;
  }
  if (verdict.success) return undefined;
  const issue = verdict.error.issues[0];
  return issue === undefined
    ? `the params of ${request.method} are not valid`
    : `${pathText(issue.path) || "the request"}: ${issue.message}`;
}

/**
 * Puts the params check in front of the MCP server connected to `transport`:
 * a request that fails it is answered with -32602 under its own id (in a
 * batch too), carrying the HTTP request id; everything else goes on to the
 * server. Call after the server is connected.
 */
export function refuseMalformedParams(
  transport: Transport,
  requestId: string,
  onSendError: (error: unknown) => void,
): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) {
      const problem = paramsProblem(message);
      if (problem !== undefined) {
        const answer = {
          jsonrpc: "2.0",
          id: message.id,
          error: {
            code: ErrorCode.InvalidParams,
            message: `Invalid params: ${problem}`,
            data: { request_id: requestId },
          },
        } as JSONRPCMessage;
        transport.send(answer).catch(onSendError);
        return;
      }
    }
    deliver?.(message, extra);
  };
}
