// SessionStart: names the session's thread in Context Hub, records that the session began, and hands the
// agent the thread id and the latest summaries of earlier sessions in this project.
import {
  bounded,
  callTool,
  loadSettings,
  waitForLocalHub,
  projectName,
  readEvent,
  runHook,
  sessionThreadId,
  warn,
} from "./hub-client.mjs";

/** How many earlier sessions' summaries the agent is shown, and how much of each. */
const earlierSessions = 3;
const previewChars = 400;

const settings = loadSettings();

runHook(async () => {
  const event = await readEvent();
  const threadId = sessionThreadId(event);
  const project = projectName(event);
  let earlier = [];
  try {
    // With stdio, Claude Code launches the hub as the session starts, beside this hook: give it a moment.
    if (settings.transport === "stdio") await waitForLocalHub(settings.dataDir, settings.timeoutMs);
    // A compaction continues the same conversation: the thread already says it began.
    if (event.source !== "compact") {
      await callTool(settings, "store_context", {
        thread_id: threadId,
        source: "agent",
        text: `Claude Code session ${event.session_id} began (${event.source ?? "startup"}) in ${event.cwd ?? project}.`,
        tags: ["claude-code", "session-start"],
        metadata: {
          project,
          session_id: event.session_id,
          event: "SessionStart",
          start_source: event.source ?? "startup",
        },
      });
    }
    // Every turn stores a summary: keep the newest of each earlier session.
    const listed = await callTool(settings, "search_context", {
      tags_all: ["claude-code", "session-summary"],
      metadata: { project },
      limit: 30,
    });
    const seen = new Set([threadId]);
    earlier = (listed.results ?? [])
      .filter((entry) => !seen.has(entry.thread_id) && seen.add(entry.thread_id))
      .slice(0, earlierSessions);
  } catch (error) {
    warn(error instanceof Error ? error.message : String(error));
  }
  process.stdout.write(
    JSON.stringify({
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: context(threadId, earlier) },
    }),
  );
}, settings.timeoutMs * 3); // two calls, and with stdio a wait for the hub

/** What the agent is told: its thread, how to use it, and where earlier sessions left off. */
function context(threadId, earlier) {
  const lines = [
    `Context Hub thread for this session: ${threadId}`,
    `Store decisions, findings and hand-off notes there with the context-hub MCP tools (store_context with thread_id "${threadId}"); search before asking the user to repeat anything.`,
    "Give this thread id to any subagent you start, so it stores its results in the same thread.",
  ];
  if (earlier.length > 0) {
    lines.push(
      "",
      "Latest summaries of earlier sessions in this project (fetch the full text with get_context_by_ids):",
    );
    for (const entry of earlier)
      lines.push(
        `- ${entry.id} (${entry.thread_id}, ${entry.created_at ?? ""}): ${bounded(entry.preview ?? "", previewChars).replace(/\s+/g, " ")}`,
      );
  }
  return lines.join("\n");
}
