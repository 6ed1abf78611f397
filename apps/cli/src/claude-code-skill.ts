// The skill that teaches a Claude Code agent when to search Context Hub, what to store and how to hand work off.

/** The text of .claude/skills/context-hub/SKILL.md. */
export function claudeCodeSkill(): string {
  const summary =
    "- A hook stores the last messages of each turn in the session thread; store anything longer or more structured yourself.";
  return `---
name: context-hub
description: Use Context Hub, the team's shared memory over MCP (tools named mcp__context-hub__*), to find earlier decisions and findings before asking or re-deriving them, to store what is worth keeping, and to hand work to another agent or session through a thread.
---

# Context Hub

Context Hub keeps context (prompts, decisions, findings, plans, summaries) in
threads that you, other agents and later sessions can search. At the start of
each session a hook names this session's thread (\`claude-code/<project>/<session id>\`)
and shows the latest summaries of earlier sessions in this project.

## Search first

- Before asking the user to repeat something, or re-deriving a decision, search:
  \`hybrid_search_context\` for a question in words, \`fts_search_context\` for exact
  names, identifiers and error messages, \`search_context\` with \`thread_id\` to load
  a thread in order, \`list_threads\` to see where earlier work was recorded.
- Results carry a preview and a summary; fetch the full text with
  \`get_context_by_ids\` before relying on a detail.

## Store what is worth keeping

- Store with \`store_context\` in the session thread: a decision and its reason, a
  finding (what was tried and what happened), a requirement the user stated, a
  plan. Use \`source: "user"\` for the user's own words and \`source: "agent"\` for yours.
- One idea per entry, written to be understood without this conversation.
- Do not store secrets (keys, passwords, tokens) or whole files that live in the repository.
${summary}

## Hand off

- When you start a subagent, give it the session thread id and ask it to store its
  result there with \`store_context\`; read it back with \`search_context\`.
- Before you stop in the middle of a task, store a hand-off note: the goal, what is
  done, what is next, and the files involved. The next session sees it at start.
- To share a thread with another person or team, use \`share_context\`.
`;
}
