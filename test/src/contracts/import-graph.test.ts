/**
 * The shape of the import graph, checked on the sources themselves so it
 * stays as docs/architecture.md draws it: no file imports itself back
 * through any chain (type-only imports included), no folder of a package
 * does either, and workspaces import only downwards (the shared kit never
 * imports a service, services never import each other, nothing but tests
 * imports an application).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../../../..");

/** Workspaces by layer: a workspace may import its own layer's shared kit and every lower layer. */
const layers: readonly { layer: number; dirs: readonly string[]; peersMayImportEachOther: boolean }[] = [
  { layer: 0, dirs: ["proto", "packages/common", "packages/text"], peersMayImportEachOther: true },
  { layer: 1, dirs: ["services/embedder", "services/summarizer", "services/reranker", "services/store", "services/gateway"], peersMayImportEachOther: false },
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

/** Source files of a workspace: its src tree without tests, test helpers' fixtures or generated code. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) {
        if (name !== "gen" && name !== "node_modules") walk(path);
      } else if (name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts")) out.push(path);
    }
  };
  const src = join(root, dir, "src");
  if (existsSync(src)) walk(src);
  return out;
}

const specifierPattern = /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']|(?:^|[\s;])import\s*\(?\s*["']([^"']+)["']/g;

/** The module specifiers a file names in its import and re-export statements (type-only ones included). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  return [...text.matchAll(specifierPattern)].map((match) => (match[1] ?? match[2])!);
}

function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")]) if (existsSync(candidate)) return candidate;
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
        const allowed = target.layer < workspace.layer || (target.layer === workspace.layer && workspace.peersMayImportEachOther);
        if (!allowed) wrong.push(`${relative(root, file)} imports ${specifier}`);
      }
  assert.deepEqual(wrong, []);
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
