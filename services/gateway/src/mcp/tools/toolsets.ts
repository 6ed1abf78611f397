// Named groups of tools: what an operator offers (CONTEXT_HUB_TOOLSETS) and what a client narrows a connection to.
// Names only, no tool modules: the configuration reads this file, and a tool list a model carries costs context.

/** Every toolset, in the order docs and errors list them. */
export const toolsetNames = [
  "core",
  "search",
  "library",
  "history",
  "workflow",
  "review",
  "admin",
  "connector",
] as const;
export type ToolsetName = (typeof toolsetNames)[number];

/** The word for every toolset, in CONTEXT_HUB_TOOLSETS and in a client's choice. */
export const allToolsets = "all";

export interface Toolset {
  /** Who it is for, one line (docs and `toolset-tokens.js`). */
  summary: string;
  /** Tool names; a tool may belong to several toolsets. */
  tools: readonly string[];
}

/**
 * The toolsets. Every tool the gateway offers is in at least one of them
 * (a test holds the registry to that), so a new tool must be placed here.
 */
export const toolsets: Readonly<Record<ToolsetName, Toolset>> = {
  core: {
    summary: "Store and find entries: what every agent needs, and the tools the built-in instructions name.",
    tools: ["store_context", "get_context_by_ids", "search_context", "hybrid_search_context", "list_threads", "whoami"],
  },
  search: {
    summary:
      "Every way to find and read entries: ranked, full-text, semantic, passage-level and catalogue search, outline, ranges and grep.",
    tools: [
      "get_context_by_ids",
      "search_context",
      "hybrid_search_context",
      "fts_search_context",
      "semantic_search_context",
      "deep_search",
      "find_items",
      "reason",
      "navigate_context",
      "read_context_range",
      "grep_context",
    ],
  },
  library: {
    summary: "Curate entries: batches, updates, deletions, collections, published URIs, sharing and statistics.",
    tools: [
      "store_context_batch",
      "update_context",
      "update_context_batch",
      "delete_context",
      "delete_context_batch",
      "create_collection",
      "update_collection",
      "delete_collection",
      "list_collections",
      "get_collection",
      "add_to_collection",
      "remove_from_collection",
      "reorder_collection",
      "publish_resource",
      "unpublish_resource",
      "list_published_resources",
      "share_context",
      "unshare_context",
      "list_grants",
      "get_statistics",
    ],
  },
  history: {
    summary: "Earlier versions of an entry, and restoring one.",
    tools: ["get_context_history", "restore_context_version"],
  },
  workflow: {
    summary:
      "Agent workflow memory: named memories, handoffs between agents, ordered session logs, files by content hash and the one-call start.",
    tools: [
      "put_memory",
      "get_memory",
      "list_memories",
      "get_memory_history",
      "delete_memory",
      "create_handoff",
      "get_handoff",
      "list_handoffs",
      "accept_handoff",
      "complete_handoff",
      "cancel_handoff",
      "start_session",
      "append_session_events",
      "read_session_events",
      "list_sessions",
      "get_session",
      "end_session",
      "put_artifact",
      "begin_artifact_upload",
      "append_artifact_upload",
      "commit_artifact_upload",
      "get_artifact",
      "list_artifacts",
      "delete_artifact",
      "start_here",
      "whoami",
    ],
  },
  review: {
    summary: "The quarantine review queue, for reviewers.",
    tools: ["list_review_queue", "review_context"],
  },
  admin: {
    summary: "Operators: the audit log, statistics and the caller's identity.",
    tools: ["get_audit_log", "get_statistics", "whoami"],
  },
  connector: {
    summary: "The two tools a ChatGPT connector or deep research expects: search and fetch.",
    tools: ["search", "fetch"],
  },
};

/** A list of toolsets as read, or why it cannot be read (its message names every toolset there is). */
export type ToolsetChoice = { ok: true; names: ToolsetName[] } | { ok: false; message: string };

const isToolsetName = (name: string): name is ToolsetName => (toolsetNames as readonly string[]).includes(name);

/**
 * Reads a comma-separated list of toolset names (`all` for every one;
 * spaces and case ignored) into toolset names in their canonical order. An
 * empty list or an unknown name is an error, never an empty tool list.
 */
export function parseToolsets(raw: string): ToolsetChoice {
  const names = raw
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name.length > 0);
  if (names.length === 0) return { ok: false, message: `no toolset named (toolsets: ${known()})` };
  if (names.includes(allToolsets)) return { ok: true, names: [...toolsetNames] };
  const unknown = names.filter((name) => !isToolsetName(name));
  if (unknown.length > 0) {
    return {
      ok: false,
      message: `unknown toolset${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (toolsets: ${known()})`,
    };
  }
  return { ok: true, names: toolsetNames.filter((name) => names.includes(name)) };
}

/**
 * A client's narrowing of the toolsets the operator offers: the ones it
 * names, all of which must be offered (`all` means all offered ones). A
 * toolset the operator does not offer is refused, not dropped, so that a
 * client never gets fewer tools than it asked for without being told.
 */
export function narrowToolsets(offered: readonly ToolsetName[], raw: string): ToolsetChoice {
  const trimmed = raw.trim().toLowerCase();
  if (trimmed === allToolsets) return { ok: true, names: [...offered] };
  const parsed = parseToolsets(raw);
  if (!parsed.ok) return parsed;
  const withheld = parsed.names.filter((name) => !offered.includes(name));
  if (withheld.length > 0) {
    return {
      ok: false,
      message: `toolset${withheld.length > 1 ? "s" : ""} ${withheld.join(", ")} not offered here (offered: ${offered.join(", ")})`,
    };
  }
  return parsed;
}

/** The tools of `tools` that belong to at least one of the named toolsets, in the order of `tools`. */
export function toolsIn<T extends { name: string }>(tools: readonly T[], names: readonly ToolsetName[]): T[] {
  const wanted = new Set(names.flatMap((name) => toolsets[name].tools));
  return tools.filter((tool) => wanted.has(tool.name));
}

function known(): string {
  return [allToolsets, ...toolsetNames].join(", ");
}
