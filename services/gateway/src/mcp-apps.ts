/**
 * MCP Apps (the ext-apps extension): with CONTEXT_HUB_MCP_APPS on, the
 * gateway serves the console's search-results view as a `ui://` resource
 * and the search tools name it in `_meta.ui.resourceUri`, so a host that
 * renders apps shows a tool's hits in that view. The view is the console's
 * own TypeScript (packages/console/src/app/mcp-app-view.ts and the modules it
 * imports, compiled by tsc like the rest of the console); a host loads an
 * app from a single document, so its modules are linked here into one
 * inline script. Script and stylesheet are pinned by hash in the document's
 * own Content-Security-Policy, which also forbids every network fetch, and
 * the resource declares no external origin.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { consoleModulesUrl, stylesheet } from "@context-hub/console/assets";
import type { StaticResource } from "./mcp/resources.js";
import type { ToolDefinition } from "./mcp/tool-definition.js";
import { deepSearchTool } from "./mcp/tools/library-search-tools.js";
import { ftsSearchContextTool, hybridSearchContextTool, semanticSearchContextTool } from "./mcp/tools/search-tools.js";

/** The URI of the search-results view. */
export const searchResultsAppUri = "ui://context-hub/search-results.html";

/** The MIME type of an MCP App's HTML document. */
export const mcpAppMimeType = "text/html;profile=mcp-app";

/** The tools whose results the view shows: the ranked searches of entries, and deep_search's passages. */
export const searchResultsViewTools: readonly string[] = [
  ftsSearchContextTool.name,
  semanticSearchContextTool.name,
  hybridSearchContextTool.name,
  deepSearchTool.name,
];

/** The compiled module the view starts from, in the console's modules folder. */
export const searchResultsViewModule = "mcp-app-view.js";

const importPattern = /^import\s*\{([^}]*)\}\s*from\s*"\.\/([\w-]+\.js)";$/;
const exportPattern = /^export (?:async function|function|const|let|class) ([A-Za-z_$][\w$]*)/;

/**
 * Links the compiled browser modules reachable from `entry` into one
 * script: each module becomes a function scope whose exports are returned as
 * an object, and each import becomes a destructuring of the imported
 * module's object, dependencies first. It takes only the forms tsc emits for
 * the console's sources (named relative imports, exported declarations) and
 * throws on any other import or export rather than guess.
 */
export function linkModules(entry: string, read: (file: string) => string): string {
  const linked: string[] = [];
  const done = new Set<string>();
  const visiting = new Set<string>();
  const scopeName = (file: string) => `module_${file.replace(/\.js$/, "").replace(/\W/g, "_")}`;

  function visit(file: string): void {
    if (done.has(file)) return;
    if (visiting.has(file)) throw new Error(`${file} imports itself back`);
    visiting.add(file);
    const body: string[] = [];
    const exported: string[] = [];
    for (const line of read(file).split("\n")) {
      if (line.startsWith("//# sourceMappingURL=") || line === "export {};") continue;
      const imported = importPattern.exec(line);
      if (imported !== null) {
        const dependency = imported[2]!;
        visit(dependency);
        const names = imported[1]!
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== "")
          .map((name) => name.replace(/^(\S+)\s+as\s+(\S+)$/, "$1: $2"));
        body.push(`const { ${names.join(", ")} } = ${scopeName(dependency)};`);
        continue;
      }
      if (/^\s*import[\s{*("']/.test(line)) throw new Error(`${file}: cannot link ${JSON.stringify(line)}`);
      const declared = exportPattern.exec(line);
      if (declared !== null) {
        exported.push(declared[1]!);
        body.push(line.slice("export ".length));
        continue;
      }
      if (/^export\b/.test(line)) throw new Error(`${file}: cannot link ${JSON.stringify(line)}`);
      body.push(line);
    }
    linked.push(`const ${scopeName(file)} = (() => {\n${body.join("\n")}\nreturn { ${exported.join(", ")} };\n})();`);
    visiting.delete(file);
    done.add(file);
  }

  visit(entry);
  return linked.join("\n");
}

const hashOf = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** Throws if `text` could close the element it is inlined in, or open a comment there. */
function checkInlinable(text: string, element: string): void {
  if (new RegExp(`</${element}|<!--`, "i").test(text))
    throw new Error(`the view's ${element} cannot be inlined: it contains </${element} or <!--`);
}

/** Extra rules for the view inside a host's frame: no page chrome, focus visible on a hit. */
const viewRules = `
main { padding: 8px; }
.hits { list-style: none; padding: 0; margin: 0; }
.hit h2 { overflow-wrap: anywhere; }
.preview { white-space: pre-wrap; overflow-wrap: anywhere; }
`;

/** The view's HTML document, linked from the console's compiled modules (`read` takes a file name in its dist/app/). */
export function searchResultsAppDocument(
  read: (file: string) => string = (file) => readFileSync(new URL(file, consoleModulesUrl), "utf8"),
): string {
  const script = `\n${linkModules(searchResultsViewModule, read)}\n`;
  const style = `${stylesheet}${viewRules}`;
  checkInlinable(script, "script");
  checkInlinable(style, "style");
  const policy = [
    "default-src 'none'",
    `script-src ${hashOf(script)}`,
    `style-src ${hashOf(style)}`,
    "img-src 'none'",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <meta http-equiv="Content-Security-Policy" content="${policy}">
    <title>Context Hub search results</title>
    <style>${style}</style>
  </head>
  <body>
    <main id="view" aria-live="polite">
      <p class="muted">Waiting for search results…</p>
    </main>
    <script type="module">${script}</script>
  </body>
</html>
`;
}

/**
 * The view as a resource: its document, and in `_meta.ui` a policy that
 * names no external origin (no connections, no resources, no frames), so a
 * host's sandbox lets it reach nothing beyond the host itself.
 */
export function searchResultsAppResource(document: string = searchResultsAppDocument()): StaticResource {
  return {
    uri: searchResultsAppUri,
    name: "search-results-view",
    title: "Search results view",
    description:
      "An MCP App that shows the hits of fts_search_context, semantic_search_context, hybrid_search_context and deep_search: title, thread, score, trust state and snippet of each, as text.",
    mimeType: mcpAppMimeType,
    text: document,
    _meta: {
      ui: {
        csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
        prefersBorder: true,
      },
    },
  };
}

/** `tools` with the search tools naming the view in `_meta.ui.resourceUri`; every other tool as it is. */
export function withSearchResultsView(tools: readonly ToolDefinition[]): ToolDefinition[] {
  return tools.map((tool) =>
    searchResultsViewTools.includes(tool.name)
      ? { ...tool, _meta: { ...tool._meta, ui: { resourceUri: searchResultsAppUri } } }
      : tool,
  );
}
