import { test } from "node:test";
import assert from "node:assert/strict";
import { calledTool } from "../json-rpc-messages.js";
import { toolsNeededFor } from "./called-tool.js";
import type { ToolDefinition } from "./tool-definition.js";

const tools = ["store_context", "search_context", "whoami"].map((name) => ({ name }) as ToolDefinition);
const call = (name: unknown) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } });
const names = (needed: readonly ToolDefinition[]) => needed.map((tool) => tool.name);

test("a lone tools/call needs only the tool it names", () => {
  assert.deepEqual(names(toolsNeededFor(call("search_context"), tools)), ["search_context"]);
  assert.equal(calledTool(call("whoami")), "whoami");
});

test("every tool is registered for anything else, so the SDK answers as it always does", () => {
  assert.deepEqual(
    names(toolsNeededFor(call("no_such_tool"), tools)),
    names(tools),
    "an unknown tool gets the SDK's own not-found answer",
  );
  assert.deepEqual(names(toolsNeededFor(call(42), tools)), names(tools), "a malformed name");
  assert.deepEqual(names(toolsNeededFor({ jsonrpc: "2.0", id: 1, method: "tools/list" }, tools)), names(tools));
  assert.deepEqual(names(toolsNeededFor([call("whoami"), call("store_context")], tools)), names(tools), "a batch");
  assert.deepEqual(names(toolsNeededFor(undefined, tools)), names(tools));
});
