import { test } from "node:test";
import assert from "node:assert/strict";
import { linkModules, searchResultsAppDocument, searchResultsAppResource, withSearchResultsView } from "./mcp-apps.js";
import { allTools } from "./mcp/tools/index.js";

const files: Record<string, string> = {
  "main.js": [
    'import { greet as hello } from "./greet.js";',
    'import { twice } from "./math.js";',
    "export const answer = twice(2);",
    "globalThis.result = hello(answer);",
    "//# sourceMappingURL=main.js.map",
  ].join("\n"),
  "greet.js": [
    'import { twice } from "./math.js";',
    "export function greet(n) {\n    return `hi ${twice(n)}`;\n}",
  ].join("\n"),
  "math.js": ["export function twice(n) {\n    return n * 2;\n}", "export {};"].join("\n"),
};

test("linkModules links named imports and exported declarations, each module once, dependencies first", () => {
  const linked = linkModules("main.js", (file) => {
    const source = files[file];
    if (source === undefined) throw new Error(`no ${file}`);
    return source;
  });
  assert.equal(linked.match(/const module_math = /g)?.length, 1, "math.js is linked once");
  assert.ok(linked.indexOf("module_math") < linked.indexOf("const module_greet"), "dependencies come first");
  assert.doesNotMatch(linked, /^\s*(import|export)\b|sourceMappingURL/m);
  const scope: { result?: string } = {};
  new Function("globalThis", linked)(scope);
  assert.equal(scope.result, "hi 8");
});

test("linkModules refuses any form it does not know rather than guess", () => {
  for (const source of [
    'export { twice } from "./math.js";',
    'import * as math from "./math.js";',
    'import "./side-effect.js";',
    'import { a } from "some-package";',
    "export default 1;",
  ])
    assert.throws(() => linkModules("main.js", () => source), /cannot link/, source);
  assert.throws(
    () =>
      linkModules("a.js", (file) => (file === "a.js" ? 'import { b } from "./b.js";' : 'import { a } from "./a.js";')),
    /imports itself back/,
  );
});

test("the view's document inlines the console's compiled view and pins it by hash", () => {
  const html = searchResultsAppDocument();
  assert.match(html, /<script type="module">[\s\S]*const module_mcp_app_view = [\s\S]*<\/script>/);
  assert.match(html, /script-src 'sha256-[A-Za-z0-9+/]+='; style-src 'sha256-[A-Za-z0-9+/]+='/);
  assert.throws(
    () => searchResultsAppDocument(() => 'export const text = "</script><script>alert(1)</script>";'),
    /cannot be inlined/,
  );
});

test("only the search tools name the view, and their definitions are left as they were", () => {
  const named = withSearchResultsView(allTools).filter((tool) => tool._meta !== undefined);
  assert.deepEqual(named.map((tool) => tool.name).sort(), [
    "deep_search",
    "fts_search_context",
    "hybrid_search_context",
    "semantic_search_context",
  ]);
  for (const tool of named) assert.deepEqual(tool._meta, { ui: { resourceUri: searchResultsAppResource().uri } });
  assert.ok(allTools.every((tool) => tool._meta === undefined));
});
