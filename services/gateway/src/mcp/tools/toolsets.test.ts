import { test } from "node:test";
import assert from "node:assert/strict";
import { allTools } from "./index.js";
import { narrowToolsets, parseToolsets, toolsets, toolsetNames, toolsIn } from "./toolsets.js";

test("every tool the gateway offers is in at least one toolset, and every toolset names only tools that exist", () => {
  const placed = new Set(toolsetNames.flatMap((name) => toolsets[name].tools));
  const unplaced = allTools.map((tool) => tool.name).filter((name) => !placed.has(name));
  assert.deepEqual(unplaced, [], "tools in no toolset: place them in toolsets.ts");
  const known = new Set(allTools.map((tool) => tool.name));
  for (const name of toolsetNames) {
    const tools = toolsets[name].tools;
    assert.ok(tools.length > 0, `${name} is empty`);
    assert.deepEqual(
      tools.filter((tool) => !known.has(tool)),
      [],
      `${name} names no such tool`,
    );
    assert.equal(new Set(tools).size, tools.length, `${name} lists a tool twice`);
  }
});

test("core holds every tool the built-in instructions tell a model to use", () => {
  for (const tool of ["search_context", "get_context_by_ids", "store_context", "whoami"])
    assert.ok(toolsets.core.tools.includes(tool), tool);
});

test("a toolset list is read in canonical order, case and spaces ignored; `all` is every toolset", () => {
  assert.deepEqual(parseToolsets(" Search , core"), { ok: true, names: ["core", "search"] });
  assert.deepEqual(parseToolsets("core,all"), { ok: true, names: [...toolsetNames] });
  assert.deepEqual(toolsIn(allTools, [...toolsetNames]), allTools, "all of them is every tool, in registry order");
});

test("an unknown or empty toolset list is an error naming the toolsets there are, never an empty list", () => {
  const unknown = parseToolsets("core,serch,admn");
  assert.equal(unknown.ok, false);
  assert.match(
    unknown.ok ? "" : unknown.message,
    /^unknown toolsets serch, admn \(toolsets: all, core, search, library, history, workflow, review, admin, connector\)$/,
  );
  const empty = parseToolsets(" , ");
  assert.equal(empty.ok, false);
  assert.match(empty.ok ? "" : empty.message, /^no toolset named \(toolsets: all, core/);
});

test("a client narrows what the operator offers and cannot widen it", () => {
  assert.deepEqual(narrowToolsets(["core", "search", "workflow"], "workflow,core"), {
    ok: true,
    names: ["core", "workflow"],
  });
  assert.deepEqual(narrowToolsets(["core", "search"], "all"), { ok: true, names: ["core", "search"] });
  const widened = narrowToolsets(["core", "search"], "core,admin,review");
  assert.deepEqual(widened, { ok: false, message: "toolsets review, admin not offered here (offered: core, search)" });
  assert.equal(narrowToolsets(["core"], "cor").ok, false);
});

test("the tools of a toolset keep the registry's order", () => {
  const names = toolsIn(allTools, ["core"]).map((tool) => tool.name);
  const order = allTools.map((tool) => tool.name).filter((name) => toolsets.core.tools.includes(name));
  assert.deepEqual(names, order);
  assert.equal(names.length, toolsets.core.tools.length);
});
