import { test } from "node:test";
import assert from "node:assert/strict";
import { paramsProblem } from "./request-params.js";

const call = (params: unknown) => paramsProblem({ method: "tools/call", params: params as never });

test("a tools/call whose params or arguments are not plain JSON objects gets a plain message", () => {
  assert.equal(call(undefined), "tools/call needs params: a JSON object with the tool's name and its arguments");
  assert.match(call([1]) ?? "", /^params must be a JSON object .*\(got an array\)$/);
  assert.match(call({ arguments: {} }) ?? "", /^params\.name must be a string naming the tool/);
  for (const [args, kind] of [
    [[1, 2], "an array"],
    [null, "null"],
    ["text", "a string"],
    [7, "a number"],
    [true, "a boolean"],
  ] as const) {
    assert.equal(call({ name: "whoami", arguments: args }), `params.arguments must be a JSON object (got ${kind})`);
  }
  assert.equal(
    call({ name: "whoami", arguments: JSON.parse('{"constructor":null}') }),
    'params.arguments must not have a "constructor" key',
  );
  assert.equal(
    call({ name: "whoami", arguments: JSON.parse('{"__proto__":{"a":1}}') }),
    'params.arguments must not have a "__proto__" key',
  );
});

test("well-formed params pass; other malformed params are described by path, never as a Zod dump", () => {
  assert.equal(call({ name: "whoami" }), undefined);
  assert.equal(
    call({ name: "store_context", arguments: { metadata: { constructor: null } } }),
    undefined,
    "the tool's own schema judges what is inside arguments",
  );
  assert.equal(paramsProblem({ method: "tools/list", params: {} }), undefined);
  assert.equal(
    paramsProblem({ method: "no/such/method", params: 5 as never }),
    undefined,
    "unknown methods are left to the SDK's Method not found",
  );
  const cursor = paramsProblem({ method: "tools/list", params: { cursor: 5 } as never }) ?? "";
  assert.match(cursor, /^params\.cursor: /);
  assert.doesNotMatch(cursor, /"code"|\[\s*\{/);
  assert.match(call({ name: "whoami", _meta: { progressToken: {} } }) ?? "", /^params\._meta\.progressToken: /);
  assert.match(paramsProblem({ method: "initialize", params: {} as never }) ?? "", /^params\.\w+: /);
});
