import { test } from "node:test";
import assert from "node:assert/strict";
import { allTools } from "../mcp/tools/index.js";
import { restOperations } from "./operations.js";
import { requestShapeOf } from "./request-shape.js";

test("every operation has a unique id and method and path, and its path parameters are exactly those it declares", () => {
  assert.equal(new Set(restOperations.map((operation) => operation.operationId)).size, restOperations.length);
  assert.equal(
    new Set(restOperations.map((operation) => `${operation.method} ${operation.path}`)).size,
    restOperations.length,
  );
  for (const operation of restOperations) {
    const inPath = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
    assert.deepEqual(inPath.sort(), Object.keys(operation.pathArguments ?? {}).sort(), operation.operationId);
  }
});

test("every argument REST fills itself is one the tool takes, and no operation hides a required argument", () => {
  for (const operation of restOperations) {
    const shape = requestShapeOf(operation);
    const properties = Object.keys(
      (operation.tool.inputSchema.toJSONSchema() as { properties?: Record<string, unknown> }).properties ?? {},
    );
    for (const name of shape.bound) assert.ok(properties.includes(name), `${operation.operationId} binds ${name}`);
    // Whatever the tool needs is reachable: bound, in the query, or in the body.
    for (const name of properties) {
      const reachable = shape.bound.has(name) || shape.query.has(name) || shape.body?.properties?.[name] !== undefined;
      assert.ok(reachable || operation.argumentsIn === "none", `${operation.operationId} cannot send ${name}`);
    }
  }
});

test("an operation runs a tool the gateway offers, or one of the REST API's own key operations", () => {
  const names = new Set(allTools.map((tool) => tool.name));
  for (const operation of restOperations)
    assert.ok(names.has(operation.tool.name) || operation.tag === "api-keys", operation.operationId);
});
