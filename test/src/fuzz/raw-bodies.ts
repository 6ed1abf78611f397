import fc from "fast-check";
import { hostileValue } from "./hostile-values.js";

/** A raw POST to /mcp: the exact body bytes and the headers that go with them. */
export interface RawRequest {
  body: string;
  contentType: string;
  accept: string;
  label: string;
}

const malformed = fc.constantFrom(
  "",
  "{",
  "[",
  "null",
  "nul",
  '{"jsonrpc":',
  "\u0000",
  "{}}",
  '{"a":1,}',
  "1e99999",
  '"str"',
  "[]",
  "[[]]",
  "true",
  "{'jsonrpc':'2.0'}",
  "\uFEFF{}",
  '{"jsonrpc":"2.0","id":1,"method":"ping"',
  "[".repeat(50_000) + "]".repeat(50_000),
  '{"a":'.repeat(20_000) + "1" + "}".repeat(20_000),
);

const ids = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 20 }),
  fc.constantFrom<unknown>(null, 1.5, -0, 1e308, [], {}, true, "x".repeat(100_000), { nested: { id: 1 } }),
);

const methods = fc.constantFrom(
  "tools/call",
  "tools/call",
  "tools/call",
  "tools/list",
  "initialize",
  "ping",
  "notifications/initialized",
  "notifications/cancelled",
  "resources/list",
  "prompts/list",
  "logging/setLevel",
  "completion/complete",
  "unknown/method",
  "",
  "__proto__",
  "tools/call\u0000",
  "TOOLS/CALL",
);

/** A JSON-RPC message that is well-formed JSON but may be wrong in every field. */
function message(toolNames: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const toolParams = fc.record(
    {
      name: fc.oneof(
        fc.constantFrom(...toolNames),
        fc.constantFrom("no_such_tool", "", "store_context\u0000", "../store_context"),
        hostileValue,
      ),
      arguments: fc.oneof(
        fc.constant({}),
        hostileValue,
        fc.dictionary(fc.string({ maxLength: 10 }), hostileValue, { maxKeys: 3 }),
      ),
      _meta: fc.oneof(fc.constant({ progressToken: 1 }), hostileValue),
    },
    { requiredKeys: ["name"] },
  );
  return fc.record(
    {
      jsonrpc: fc.oneof(
        { arbitrary: fc.constant("2.0"), weight: 4 },
        { arbitrary: fc.constantFrom<unknown>("1.0", 2, null, "2.0 ", ""), weight: 1 },
      ),
      id: ids,
      method: fc.oneof({ arbitrary: methods, weight: 4 }, { arbitrary: hostileValue, weight: 1 }),
      params: fc.oneof({ arbitrary: toolParams, weight: 3 }, { arbitrary: hostileValue, weight: 1 }),
      result: hostileValue,
      error: hostileValue,
    },
    { requiredKeys: ["jsonrpc", "method"] },
  );
}

/**
 * Raw request bodies: malformed JSON, messages wrong in any field, batches
 * (empty, mixed, long), huge ids written out as JSON numbers, bodies over the
 * size limit, and the wrong content type.
 */
export function rawRequests(toolNames: readonly string[], maxBodyBytes: number): fc.Arbitrary<RawRequest> {
  const standard = { contentType: "application/json", accept: "application/json, text/event-stream" };
  return fc.oneof(
    { arbitrary: malformed.map((body) => ({ ...standard, body, label: "malformed JSON" })), weight: 2 },
    {
      arbitrary: message(toolNames).map((value) => ({ ...standard, body: JSON.stringify(value), label: "message" })),
      weight: 6,
    },
    {
      arbitrary: fc
        .array(message(toolNames), { maxLength: 6 })
        .map((batch) => ({ ...standard, body: JSON.stringify(batch), label: "batch" })),
      weight: 2,
    },
    {
      arbitrary: fc
        .constantFrom(
          "123456789012345678901234567890",
          "-1e400",
          "1" + "0".repeat(400),
          "0.0000000000000000000001",
          "9007199254740993",
        )
        .map((id) => ({
          ...standard,
          body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"whoami","arguments":{}}}`,
          label: "huge id",
        })),
      weight: 1,
    },
    {
      arbitrary: fc.constant({
        ...standard,
        body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"a".repeat(maxBodyBytes + 1024)}"}}`,
        label: "oversized body",
      }),
      weight: 1,
    },
    {
      arbitrary: fc.constantFrom(100, 1_000, 10_000).map((depth) => ({
        ...standard,
        body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"store_context","arguments":{"thread_id":"x","source":"agent","text":"y","metadata":${'{"k":'.repeat(depth)}1${"}".repeat(depth)}}}}`,
        label: "deep metadata",
      })),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(
          message(toolNames),
          fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "", "application/json; charset=utf-16"),
          fc.constantFrom("text/event-stream", "application/json", "*/*", "", "text/html"),
        )
        .map(([value, contentType, accept]) => ({
          body: JSON.stringify(value),
          contentType,
          accept,
          label: "odd headers",
        })),
      weight: 1,
    },
  );
}
