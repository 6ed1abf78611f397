/**
 * The shape of the import graph, checked on the sources themselves so it
 * stays as docs/architecture.md draws it: no file imports itself back
 * through any chain (type-only imports included), no folder of a package
 * does either, and workspaces import only downwards (the shared kit never
 * imports a service, services never import each other, nothing but tests
 * imports an application); inside the store, folders import only down the
 * order of docs/architecture.md's table; and the gateway's MCP code does not
 * import proto.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { root, sourceFiles } from "./source-files.js";

/** Workspaces by layer: a workspace may import its own layer's shared kit and every lower layer. */
const layers: readonly { layer: number; dirs: readonly string[]; peersMayImportEachOther: boolean }[] = [
  // The console is browser code that imports nothing; the gateway serves its compiled files.
  { layer: 0, dirs: ["proto", "packages/common", "packages/text", "packages/console"], peersMayImportEachOther: true },
  {
    layer: 1,
    dirs: ["services/embedder", "services/summarizer", "services/reranker", "services/store", "services/gateway"],
    peersMayImportEachOther: false,
  },
  { layer: 2, dirs: ["apps/cli"], peersMayImportEachOther: false },
];

interface Workspace {
  name: string;
  dir: string;
  layer: number;
  peersMayImportEachOther: boolean;
}

function readWorkspaces(): Workspace[] {
  return layers.flatMap(({ layer, dirs, peersMayImportEachOther }) =>
    dirs.map((dir) => {
      const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as { name: string };
      return { name: manifest.name, dir, layer, peersMayImportEachOther };
    }),
  );
}

const specifierPattern =
  /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']|(?:^|[\s;])import\s*\(?\s*["']([^"']+)["']/g;

/** The module specifiers a file names in its import and re-export statements (type-only ones included). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  return [...text.matchAll(specifierPattern)].map((match) => (match[1] ?? match[2])!);
}

function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")])
    if (existsSync(candidate)) return candidate;
  return undefined;
}

/** Strongly connected components of more than one node (or a node importing itself), by Tarjan's algorithm. */
function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function addEdge(graph: Map<string, Set<string>>, from: string, to: string): void {
  if (!graph.has(from)) graph.set(from, new Set());
  if (!graph.has(to)) graph.set(to, new Set());
  graph.get(from)!.add(to);
}

const workspaces = readWorkspaces();
const files = new Map(workspaces.map((workspace) => [workspace, sourceFiles(workspace.dir)]));

test("no source file imports itself back through a chain of imports", () => {
  const graph = new Map<string, Set<string>>();
  for (const list of files.values())
    for (const file of list)
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith(".")) continue;
        const target = resolveRelative(file, specifier);
        if (target !== undefined) addEdge(graph, relative(root, file), relative(root, target));
      }
  assert.ok(graph.size > 100, `the graph was read (${graph.size} files)`);
  assert.deepEqual(cycles(graph), []);
});

test("no folder of a workspace imports itself back through its other folders", () => {
  const graph = new Map<string, Set<string>>();
  for (const list of files.values())
    for (const file of list)
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith(".")) continue;
        const target = resolveRelative(file, specifier);
        if (target === undefined) continue;
        const from = relative(root, dirname(file));
        const to = relative(root, dirname(target));
        // A folder importing its own subfolder, or the folder above it, is the folder's inside: only siblings and cousins are compared.
        if (from === to || from.startsWith(`${to}/`) || to.startsWith(`${from}/`)) continue;
        addEdge(graph, from, to);
      }
  assert.deepEqual(cycles(graph), []);
});

test("workspaces import only downwards: kit below services, services apart, applications on top", () => {
  const byName = new Map(workspaces.map((workspace) => [workspace.name, workspace]));
  const wrong: string[] = [];
  for (const [workspace, list] of files)
    for (const file of list)
      for (const specifier of importsOf(file)) {
        const name = specifier.split("/").slice(0, 2).join("/");
        const target = byName.get(name);
        if (target === undefined || target === workspace) continue;
        const allowed =
          target.layer < workspace.layer || (target.layer === workspace.layer && workspace.peersMayImportEachOther);
        if (!allowed) wrong.push(`${relative(root, file)} imports ${specifier}`);
      }
  assert.deepEqual(wrong, []);
});

/**
 * The store's folders in the order of docs/architecture.md ("The store"), one rank per row: a folder imports only
 * folders of later rows, never one above it or beside it. The wiring at `src/` and `testing/` (internals re-exported
 * for tests) sit on the first row, so no folder imports them and they do not import each other.
 */
const storeFolderOrder: readonly (readonly string[])[] = [
  ["(wiring)", "testing"],
  // A watched URI may be a published one, resolved as a resolve answers.
  ["resource-watch"],
  // A publication names an entry, one of its images or a file it links, checked by the entry and artifact rules.
  ["publications"],
  // Artifacts read handoffs' links (a handoff that links a file opens it), so they sit above handoffs.
  ["artifacts"],
  ["search", "sharing", "review", "history", "memories", "handoffs", "sessions", "transfer"],
  // Sharing refuses a grant on a collection the caller cannot see as collections do, so collections sit below it.
  ["collections"],
  ["entries"],
  ["vectors"],
  // Key changes are audited in their own transaction.
  ["keys"],
  ["audit", "idempotency", "filters"],
  ["model"],
  ["screen", "db"],
];

/** The store folder a file belongs to: the first folder under `src/` (a subfolder is its folder's inside), or the wiring at `src/` itself. */
function storeFolderOf(file: string): string {
  const path = relative(join(root, "services/store/src"), file).split("/");
  return path.length === 1 ? "(wiring)" : path[0]!;
}

const storeRank = new Map(storeFolderOrder.flatMap((row, index) => row.map((folder) => [folder, index] as const)));

/** Why store file `file` may not import store file `target` (a folder above or beside its own, or one the order does not place), or undefined. */
function storeImportProblem(file: string, target: string): string | undefined {
  const from = storeFolderOf(file);
  const to = storeFolderOf(target);
  if (from === to) return undefined;
  const fromRank = storeRank.get(from);
  const toRank = storeRank.get(to);
  if (fromRank === undefined || toRank === undefined)
    return `the store's folder order does not place ${fromRank === undefined ? from : to}/ (add it here and to docs/architecture.md)`;
  if (toRank < fromRank) return `${to}/ is above ${from}/`;
  if (toRank === fromRank) return `${to}/ is beside ${from}/`;
  return undefined;
}

/** The imports among `files` (store sources) that break the store's folder order. */
function storeOrderViolations(files: readonly string[]): string[] {
  const wrong: string[] = [];
  for (const file of files)
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith(".")) continue;
      const target = resolveRelative(file, specifier);
      const problem = target === undefined ? undefined : storeImportProblem(file, target);
      if (problem !== undefined) wrong.push(`${relative(root, file)} imports ${specifier}: ${problem}`);
    }
  return wrong;
}

test("store folders import only down the folder order of docs/architecture.md", () => {
  const store = [...files].find(([workspace]) => workspace.dir === "services/store")![1];
  assert.ok(
    store.some((file) => file.includes("/entries/")),
    "the store's sources were read",
  );
  assert.deepEqual(storeOrderViolations(store), []);
});

/** Specifiers of proto: the generated contracts and the protobuf runtime whose types they speak. */
const protoPattern = /^(?:@context-hub\/proto|@bufbuild\/protobuf)(?:\/|$)/;

/**
 * MCP files that still import proto, with what they import. Each is a step left to take (a domain client or domain
 * type in `clients/`); the test fails when one is taken and its line is still here, so the list only shrinks.
 */
const mcpProtoExceptions: ReadonlyMap<string, readonly string[]> = new Map();

test("the gateway's MCP tools and schemas do not import proto, but for the listed exceptions", () => {
  const gateway = [...files].find(([workspace]) => workspace.dir === "services/gateway")![1];
  const mcp = gateway.filter((file) => relative(root, file).startsWith("services/gateway/src/mcp/"));
  assert.ok(
    mcp.some((file) => file.includes("/mcp/tools/")),
    "the MCP sources were read",
  );
  const found = new Map<string, string[]>();
  for (const file of mcp) {
    const proto = importsOf(file).filter((specifier) => protoPattern.test(specifier));
    if (proto.length > 0) found.set(relative(root, file), [...new Set(proto)].sort());
  }
  const unexpected = [...found].filter(([file, specifiers]) =>
    specifiers.some((specifier) => !(mcpProtoExceptions.get(file) ?? []).includes(specifier)),
  );
  assert.deepEqual(
    unexpected,
    [],
    "MCP code calls a domain client in services/gateway/src/clients/ instead of speaking proto",
  );
  const stale = [...mcpProtoExceptions].filter(([file, specifiers]) =>
    specifiers.some((specifier) => !(found.get(file) ?? []).includes(specifier)),
  );
  assert.deepEqual(stale, [], "an exception no longer needed is taken off the list");
});

test("the checker sees a cycle when there is one", () => {
  const graph = new Map<string, Set<string>>();
  addEdge(graph, "a", "b");
  addEdge(graph, "b", "c");
  addEdge(graph, "c", "a");
  addEdge(graph, "c", "d");
  assert.deepEqual(cycles(graph), [["a", "b", "c"]]);
  assert.deepEqual(importsOf(fileURLToPath(import.meta.url)).includes("node:test"), true);
});

test("the store's folder check sees imports up, beside and outside the order", () => {
  const store = (path: string) => join(root, "services/store/src", path);
  assert.equal(storeImportProblem(store("entries/write-scope/entry-insert.ts"), store("model/ids.ts")), undefined);
  assert.equal(
    storeImportProblem(store("entries/write-scope/entry-insert.ts"), store("entries/entry-ports.ts")),
    undefined,
  );
  assert.equal(storeImportProblem(store("index.ts"), store("search/search.ts")), undefined);
  assert.equal(storeImportProblem(store("model/ids.ts"), store("search/search.ts")), "search/ is above model/");
  assert.equal(
    storeImportProblem(store("db/migrations/index.ts"), store("entries/entry-ports.ts")),
    "entries/ is above db/",
  );
  assert.equal(storeImportProblem(store("audit/audit.ts"), store("keys/api-keys.ts")), "keys/ is above audit/");
  assert.equal(
    storeImportProblem(store("audit/audit.ts"), store("idempotency/idempotency.ts")),
    "idempotency/ is beside audit/",
  );
  assert.equal(storeImportProblem(store("search/search.ts"), store("config.ts")), "(wiring)/ is above search/");
  assert.match(
    storeImportProblem(store("workflows/flow.ts"), store("model/ids.ts")) ?? "",
    /does not place workflows\//,
  );
  assert.ok(
    protoPattern.test("@context-hub/proto") &&
      protoPattern.test("@bufbuild/protobuf/wkt") &&
      !protoPattern.test("@context-hub/protocol"),
  );
});
