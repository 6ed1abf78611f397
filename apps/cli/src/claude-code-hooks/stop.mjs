// Stop and SubagentStop: stores a short summary of where the session (or the subagent) left off in the
// session's thread, from the last assistant messages, so the next session or agent can pick it up.
import {
  bounded,
  callTool,
  lastAssistantTexts,
  loadSettings,
  projectName,
  readEvent,
  runHook,
  sessionThreadId,
} from "./hub-client.mjs";

/** How many of the last assistant messages make the summary, and its size bound. */
const lastMessages = 3;
const summaryChars = 4000;

const settings = loadSettings();

runHook(async () => {
  const event = await readEvent();
  const subagent = event.hook_event_name === "SubagentStop";
  const transcript = subagent ? (event.agent_transcript_path ?? event.transcript_path) : event.transcript_path;
  const texts = lastAssistantTexts(transcript, lastMessages);
  // Newer Claude Code versions send the last message itself; it is the most recent text there is.
  if (
    typeof event.last_assistant_message === "string" &&
    event.last_assistant_message.trim() !== "" &&
    texts.at(-1) !== event.last_assistant_message.trim()
  ) {
    texts.push(event.last_assistant_message.trim());
  }
  if (texts.length === 0) return; // nothing said yet: nothing to summarise
  const project = projectName(event);
  const heading = subagent
    ? `Subagent ${event.agent_type ?? event.agent_id ?? ""} finished`
    : `Claude Code session ${event.session_id} in ${project}`;
  const body = texts.slice(-lastMessages).join("\n\n---\n\n");
  await callTool(settings, "store_context", {
    thread_id: sessionThreadId(event),
    source: "agent",
    text: bounded(`${heading}: where it left off\n\n${body}`, summaryChars),
    tags: ["claude-code", subagent ? "subagent-summary" : "session-summary"],
    metadata: {
      project,
      session_id: event.session_id,
      event: subagent ? "SubagentStop" : "Stop",
      ...(subagent && typeof event.agent_type === "string" ? { agent_type: event.agent_type } : {}),
    },
  });
}, settings.timeoutMs);
