import { test } from "node:test";
import assert from "node:assert/strict";
import {
  InitializeRequestSchema,
  JSONRPCErrorResponseSchema,
  JSONRPCResultResponseSchema,
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
} from "@modelcontextprotocol/sdk/types.js";
import {
  isJSONRPCErrorResponse as isModernErrorResponse,
  isJSONRPCResultResponse as isModernResultResponse,
  specTypeSchemas,
} from "@modelcontextprotocol/server";
import { installQuickSdkTypeGuards } from "./sdk-type-guards.js";

const schemas = {
  InitializeRequestSchema,
  JSONRPCResultResponseSchema,
  JSONRPCErrorResponseSchema,
  ModernJSONRPCResultResponse: specTypeSchemas.JSONRPCResultResponse as unknown as typeof JSONRPCResultResponseSchema,
  ModernJSONRPCErrorResponse: specTypeSchemas.JSONRPCErrorResponse as unknown as typeof JSONRPCErrorResponseSchema,
};
// Taken before installing: the schemas' own answers.
const fullParses = Object.fromEntries(
  Object.entries(schemas).map(([name, schema]) => [name, schema.safeParse.bind(schema)]),
);

const messages: unknown[] = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  },
  { jsonrpc: "2.0", id: 1, method: "initialize", params: {} },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "whoami", arguments: {} } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 3, result: { content: [] } },
  { jsonrpc: "2.0", id: 3, result: null },
  { jsonrpc: "2.0", id: 3, result: { content: [] }, extra: true },
  { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "Method not found" } },
  { jsonrpc: "2.0", error: { code: -32700, message: "Parse error", data: { at: 1 } } },
  { jsonrpc: "2.0", id: 4, error: "no" },
  { jsonrpc: "1.0", id: 5, result: {} },
  { id: 6, method: "initialize" },
  [],
  [{ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }],
  null,
  undefined,
  "initialize",
  42,
];

test("with quick rejects the SDK's message schemas give exactly their own answers, errors included", () => {
  installQuickSdkTypeGuards();
  installQuickSdkTypeGuards(); // idempotent: a second install does not wrap twice
  for (const [name, schema] of Object.entries(schemas)) {
    for (const message of messages) {
      const expected = fullParses[name]!(message);
      const actual = schema.safeParse(message);
      const label = `${name} on ${JSON.stringify(message)}`;
      assert.equal(actual.success, expected.success, label);
      assert.deepEqual(
        actual.success ? actual.data : actual.error?.issues,
        expected.success ? expected.data : expected.error?.issues,
        label,
      );
    }
  }
  assert.equal(isInitializeRequest(messages[0]), true);
  assert.equal(isJSONRPCResultResponse(messages[4]), true);
  assert.equal(isJSONRPCErrorResponse(messages[7]), true);
  assert.equal(isModernResultResponse(messages[4]), true);
  assert.equal(isModernErrorResponse(messages[7]), true);
});

test("the SDK's type guards take the quick path for a tools/call: its fields are never parsed", () => {
  installQuickSdkTypeGuards();
  let reads = 0;
  const call = {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    get params() {
      reads++;
      return { name: "whoami", arguments: {} };
    },
  };
  assert.equal(isInitializeRequest(call), false);
  assert.equal(isJSONRPCResultResponse(call), false);
  assert.equal(isJSONRPCErrorResponse(call), false);
  assert.equal(isModernResultResponse(call), false);
  assert.equal(isModernErrorResponse(call), false);
  assert.equal(reads, 0);
  // The full parse does read the field: the count above would catch a guard that skipped the quick path.
  fullParses.InitializeRequestSchema!(call);
  assert.ok(reads > 0);
});
