import {
  InitializeRequestSchema,
  JSONRPCErrorResponseSchema,
  JSONRPCResultResponseSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { specTypeSchemas } from "@modelcontextprotocol/server";

interface SafeParsing {
  safeParse(value: unknown, params?: unknown): { success: boolean };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/**
 * Which of the SDK's message schemas to answer quickly, and what a value must
 * have for that schema to possibly accept it. Each test is a necessary
 * condition only: a value that passes still gets the full parse.
 */
const quickRejects: readonly [SafeParsing, (value: unknown) => boolean][] = [
  [InitializeRequestSchema, (value) => isObject(value) && value.method === "initialize"],
  [JSONRPCResultResponseSchema, (value) => isObject(value) && isObject(value.result)],
  [JSONRPCErrorResponseSchema, (value) => isObject(value) && isObject(value.error)],
  // The SDK v2 (revision 2026-07-28) runs the same two response guards on every message it handles; its spec-type
  // table holds the very schema objects its guards use.
  [
    specTypeSchemas.JSONRPCResultResponse as unknown as SafeParsing,
    (value) => isObject(value) && isObject(value.result),
  ],
  [specTypeSchemas.JSONRPCErrorResponse as unknown as SafeParsing, (value) => isObject(value) && isObject(value.error)],
];

const installed = new WeakSet<SafeParsing>();

/**
 * Makes the MCP SDKs' message type guards cheap when they fail (SDK 1.x's
 * three, and the SDK v2's two response guards).
 *
 * The SDK classifies every message it receives or sends with zod:
 * `isInitializeRequest`, `isJSONRPCResultResponse` and
 * `isJSONRPCErrorResponse` each run a full `safeParse`, and on every
 * `tools/call` all three fail. A failing zod parse builds an error with an
 * issue per field, which cost the gateway about 0.3 ms of CPU per call (a
 * sixth of the MCP layer's share; docs/performance.md).
 *
 * This wraps those three schemas' `safeParse`: a value that cannot match
 * (no `method: "initialize"`, no `result` object, no `error` object) fails at
 * once, and its `error` is still the schema's own, built only if someone
 * reads it. Every other value gets the full parse, so every answer is the
 * one the schema gives. Idempotent; the SDK shares these schema objects
 * with its type guards (one module instance), which is what makes this
 * reach them.
 */
export function installQuickSdkTypeGuards(): void {
  for (const [schema, canMatch] of quickRejects) {
    if (installed.has(schema)) continue;
    installed.add(schema);
    const fullParse = schema.safeParse.bind(schema);
    schema.safeParse = (value: unknown, params?: unknown) => {
      if (canMatch(value)) return fullParse(value, params);
      return {
        success: false,
        data: undefined,
        get error() {
          return (fullParse(value, params) as { error?: unknown }).error;
        },
      };
    };
  }
}
