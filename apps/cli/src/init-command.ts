import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { hookDir, kitFiles, mergeMcpConfig, mergeSettings, type KitOptions, type Merge } from "./claude-code-kit.js";

export const initUsage = `Usage: context-hub init claude-code [--dir <project>] [--url <mcp url> | --stdio] [--save-prompts] [--token-env <NAME>] [--force]

Sets a project up for Claude Code: .mcp.json (the hub as an MCP server),
hooks in .claude/settings.json with their scripts in ${hookDir}/
(a thread per session, given to the agent at start; a summary of where each
turn left off stored at stop; with --save-prompts, every prompt), and a skill in
.claude/skills/context-hub/SKILL.md that teaches the agent to search, store and
hand off. Other settings and servers in those files are kept.

  --dir <project>    the project's root (default: the working directory)
  --url <mcp url>    the hub's MCP URL (default http://127.0.0.1:8080/mcp, as \`context-hub start\` serves)
  --stdio            run the hub inside Claude Code's own server process (\`context-hub stdio\`);
                     the hooks reach it on the Unix socket it publishes in its data directory
  --save-prompts     store every prompt the user submits
  --token-env <NAME> the environment variable holding the API key (default CONTEXT_HUB_TOKEN);
                     the key itself is never written to a file
  --force            overwrite kit files and entries that differ from what this run would write
`;

const defaultUrl = "http://127.0.0.1:8080/mcp";

/** One file init writes, and whether it changes anything. */
interface Write {
  path: string;
  content: string;
  changed: boolean;
}

/**
 * `context-hub init claude-code`: checks everything first and writes nothing
 * when any file would lose something it holds (a differing hook, server entry
 * or kit file without --force, or a settings file that is not valid JSON);
 * otherwise writes every file. Returns the exit code.
 */
export function runInitCommand(
  args: string[],
  out: (text: string) => void,
  err: (text: string) => void,
  cwd = process.cwd(),
): number {
  const parsed = parseInitArgs(args, out, err);
  if (typeof parsed === "number") return parsed;
  const { root, options, force } = parsed;
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    err(`context-hub init: ${root} is not a directory\n`);
    return 2;
  }
  const writes: Write[] = [];
  const problems: string[] = [];
  for (const file of kitFiles(options)) {
    const current = readIfExists(join(root, file.path));
    if (current !== undefined && current !== file.content && !force)
      problems.push(`${file.path} differs from the kit's`);
    writes.push({ ...file, changed: current !== file.content });
  }
  for (const [path, merge] of [
    [".mcp.json", (existing: Record<string, unknown>) => mergeMcpConfig(existing, options, force)],
    [".claude/settings.json", (existing: Record<string, unknown>) => mergeSettings(existing, options, force)],
  ] as const) {
    const outcome = mergeJsonFile(join(root, path), path, merge);
    if (typeof outcome === "string") problems.push(outcome);
    else {
      problems.push(...outcome.conflicts);
      writes.push({ path, content: `${JSON.stringify(outcome.document, null, 2)}\n`, changed: outcome.changed });
    }
  }
  if (problems.length > 0) {
    err(
      `context-hub init: nothing was written:\n${problems.map((problem) => `  - ${problem}`).join("\n")}\nRun again with --force to replace them.\n`,
    );
    return 1;
  }
  for (const write of writes.filter((candidate) => candidate.changed))
    writeAtomically(join(root, write.path), write.content);
  out(report(root, writes, options, cwd));
  return 0;
}

function parseInitArgs(
  args: string[],
  out: (text: string) => void,
  err: (text: string) => void,
): { root: string; options: KitOptions; force: boolean } | number {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        dir: { type: "string" },
        url: { type: "string" },
        stdio: { type: "boolean" },
        "save-prompts": { type: "boolean" },
        "token-env": { type: "string" },
        force: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    err(`context-hub init: ${error instanceof Error ? error.message : String(error)}\n\n${initUsage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    out(initUsage);
    return 0;
  }
  const fail = (message: string) => {
    err(`context-hub init: ${message}\n\n${initUsage}`);
    return 2;
  };
  if (positionals.length !== 1 || positionals[0] !== "claude-code")
    return fail(
      positionals.length === 0
        ? "name the client to set up: claude-code"
        : `unknown client "${positionals.join(" ")}"; supported: claude-code`,
    );
  if (values.stdio === true && values.url !== undefined)
    return fail("--url and --stdio exclude each other: the stdio server runs the hub itself");
  const url = values.stdio === true ? undefined : (values.url ?? defaultUrl);
  if (url !== undefined) {
    let protocol;
    try {
      protocol = new URL(url).protocol;
    } catch {
      return fail(`--url "${url}" is not a URL`);
    }
    if (protocol !== "http:" && protocol !== "https:")
      return fail(`--url must be http:// or https://, not ${protocol}`);
  }
  const tokenEnv = values["token-env"] ?? "CONTEXT_HUB_TOKEN";
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv))
    return fail(`--token-env "${tokenEnv}" is not an environment variable name`);
  return {
    root: resolve(values.dir ?? "."),
    options: { url, stdio: values.stdio === true, savePrompts: values["save-prompts"] === true, tokenEnv },
    force: values.force === true,
  };
}

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

/** Reads a JSON settings file (absent: empty) and merges into it; a string says why it cannot be merged. */
function mergeJsonFile(
  path: string,
  name: string,
  merge: (existing: Record<string, unknown>) => Merge,
): Merge | string {
  const text = readIfExists(path);
  let existing: unknown = {};
  if (text !== undefined && text.trim() !== "") {
    try {
      existing = JSON.parse(text);
    } catch (error) {
      return `${name} is not valid JSON (${error instanceof Error ? error.message : String(error)}); fix it first`;
    }
  }
  if (typeof existing !== "object" || existing === null || Array.isArray(existing))
    return `${name} does not hold a JSON object`;
  return merge(existing as Record<string, unknown>);
}

/** Writes through a temporary file and a rename, so Claude Code never reads half a settings file. */
function writeAtomically(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}

function report(root: string, writes: Write[], options: KitOptions, cwd: string): string {
  const where = root === resolve(cwd) ? "this project" : root;
  const lines = [`Claude Code set up for Context Hub in ${where}:`];
  for (const write of writes) lines.push(`  ${write.changed ? "wrote    " : "unchanged"} ${write.path}`);
  lines.push("");
  if (options.stdio) {
    lines.push(
      "Claude Code starts the hub itself (context-hub stdio); its data lives in .context-hub/data under the directory Claude Code runs in.",
    );
    lines.push(
      "The hooks reach that hub on the Unix socket it publishes in its data directory, while Claude Code runs it.",
    );
  } else {
    lines.push(
      `Hooks and the MCP server reach the hub at ${options.url}; start it with \`context-hub start\` if it runs on this machine.`,
    );
    lines.push(
      `A key, if the hub needs one, is read from $${options.tokenEnv} when Claude Code starts; it is never written to these files.`,
    );
  }
  lines.push(
    "Claude Code asks to approve the project's MCP server on first use; run `claude` in the project and check with /mcp.",
  );
  return `${lines.join("\n")}\n`;
}
