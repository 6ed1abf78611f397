// What `context-hub init claude-code` puts in a project: the MCP server entry, the hooks and their settings, the skill.
import { isDeepStrictEqual } from "node:util";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { claudeCodeSkill } from "./claude-code-skill.js";

/** Where the hook scripts live in this checkout (plain .mjs, copied as they are). */
const hookSourceDir = fileURLToPath(new URL("../src/claude-code-hooks/", import.meta.url));
/** The context-hub command of this checkout, for the stdio server entry. */
export const contextHubBin = fileURLToPath(new URL("../../../bin/context-hub.js", import.meta.url));

/** Where the hooks go inside the project, relative to its root. */
export const hookDir = ".claude/hooks/context-hub";
const hookScripts = ["hub-client.mjs", "session-start.mjs", "stop.mjs", "user-prompt-submit.mjs"] as const;

/** The name of the MCP server in .mcp.json, and so the prefix of its tools in Claude Code (mcp__context-hub__…). */
export const serverName = "context-hub";

/** How long Claude Code lets a hook run, in seconds; the hooks stop themselves well before. */
const hookTimeoutSeconds = 15;

export interface KitOptions {
  /** The hub's MCP URL; unset with stdio. */
  url?: string | undefined;
  stdio: boolean;
  savePrompts: boolean;
  /** The environment variable the API key is read from. */
  tokenEnv: string;
}

/** A file the kit owns outright: written as is, refused over a differing one unless forced. */
export interface KitFile {
  path: string;
  content: string;
}

/** The files the kit owns outright, with their content. */
export function kitFiles(options: KitOptions): KitFile[] {
  const files: KitFile[] = hookScripts.map((script) => ({
    path: `${hookDir}/${script}`,
    content: readFileSync(`${hookSourceDir}${script}`, "utf8"),
  }));
  const config = {
    transport: options.stdio ? "stdio" : "http",
    url: options.url ?? null,
    tokenEnv: options.tokenEnv,
    timeoutMs: 3000,
  };
  files.push({ path: `${hookDir}/config.json`, content: `${JSON.stringify(config, null, 2)}\n` });
  files.push({ path: ".claude/skills/context-hub/SKILL.md", content: claudeCodeSkill() });
  return files;
}

/** The hub as an MCP server: HTTP with the key taken from the environment when Claude Code starts, or stdio. */
export function mcpServerEntry(options: KitOptions): Record<string, unknown> {
  if (options.stdio) return { type: "stdio", command: "node", args: [contextHubBin, "stdio"] };
  // Claude Code expands ${VAR:-default} in .mcp.json; an empty key is ignored by a hub with authentication off.
  return { type: "http", url: options.url, headers: { Authorization: `Bearer \${${options.tokenEnv}:-}` } };
}

type HookEvent = "SessionStart" | "Stop" | "SubagentStop" | "UserPromptSubmit";

/** Which script each hook event runs, and whether this installation wants it. */
function wantedHooks(options: KitOptions): { event: HookEvent; script: string; wanted: boolean }[] {
  // With stdio the hub lives inside Claude Code's own server process; the hooks reach it on the Unix socket that
  // process publishes in its data directory, so every hook runs with either transport.
  return [
    { event: "SessionStart", script: "session-start.mjs", wanted: true },
    { event: "Stop", script: "stop.mjs", wanted: true },
    { event: "SubagentStop", script: "stop.mjs", wanted: true },
    { event: "UserPromptSubmit", script: "user-prompt-submit.mjs", wanted: options.savePrompts },
  ];
}

/** The hook group the kit installs for one script. */
function hookGroup(script: string): Record<string, unknown> {
  return {
    hooks: [
      { type: "command", command: `node "$CLAUDE_PROJECT_DIR/${hookDir}/${script}"`, timeout: hookTimeoutSeconds },
    ],
  };
}

/** True when a settings hook group is one of the kit's (it runs a script from the kit's directory). */
function isKitGroup(group: unknown): boolean {
  const hooks = (group as { hooks?: unknown } | null)?.hooks;
  return (
    Array.isArray(hooks) &&
    hooks.some(
      (hook) =>
        typeof (hook as { command?: unknown } | null)?.command === "string" &&
        (hook as { command: string }).command.includes(`/${hookDir}/`),
    )
  );
}

/** A merge's outcome: the new document, and what it would overwrite (empty when nothing differs or forced). */
export interface Merge {
  document: Record<string, unknown>;
  conflicts: string[];
  changed: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Merges the kit's hooks into a project's .claude/settings.json: every other
 * setting and hook stays as it is; a kit hook that differs from what this
 * installation wants (another command, or one it no longer wants) is a
 * conflict unless forced.
 */
export function mergeSettings(existing: Record<string, unknown>, options: KitOptions, force: boolean): Merge {
  const document = structuredClone(existing);
  const conflicts: string[] = [];
  if (document.hooks !== undefined && !isObject(document.hooks))
    return { document, conflicts: [".claude/settings.json: hooks is not an object"], changed: false };
  const hooks = (document.hooks ?? {}) as Record<string, unknown>;
  for (const { event, script, wanted } of wantedHooks(options)) {
    const groups = hooks[event] ?? [];
    if (!Array.isArray(groups)) {
      conflicts.push(`.claude/settings.json: hooks.${event} is not a list`);
      continue;
    }
    const ours = groups.findIndex(isKitGroup);
    const desired = hookGroup(script);
    if (ours === -1) {
      if (wanted) hooks[event] = [...groups, desired];
      continue;
    }
    if (wanted && isDeepStrictEqual(groups[ours], desired)) continue;
    if (!force) {
      conflicts.push(
        `.claude/settings.json: the ${event} hook differs from the kit's (${wanted ? "another command" : "this installation does not use it"})`,
      );
      continue;
    }
    const kept = groups.filter((_, index) => index !== ours);
    if (wanted) kept.splice(ours, 0, desired);
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
  if (Object.keys(hooks).length > 0) document.hooks = hooks;
  return { document, conflicts, changed: !isDeepStrictEqual(document, existing) };
}

/** Merges the hub's server entry into a project's .mcp.json, keeping every other server. */
export function mergeMcpConfig(existing: Record<string, unknown>, options: KitOptions, force: boolean): Merge {
  const document = structuredClone(existing);
  if (document.mcpServers !== undefined && !isObject(document.mcpServers))
    return { document, conflicts: [".mcp.json: mcpServers is not an object"], changed: false };
  const servers = (document.mcpServers ?? {}) as Record<string, unknown>;
  const desired = mcpServerEntry(options);
  const current = servers[serverName];
  if (current !== undefined && !isDeepStrictEqual(current, desired) && !force) {
    return {
      document,
      conflicts: [`.mcp.json: the "${serverName}" server is configured differently (${JSON.stringify(current)})`],
      changed: false,
    };
  }
  servers[serverName] = desired;
  document.mcpServers = servers;
  return { document, conflicts: [], changed: !isDeepStrictEqual(document, existing) };
}
