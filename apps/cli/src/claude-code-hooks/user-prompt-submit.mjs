// UserPromptSubmit (installed with --save-prompts): stores each prompt the user sends in the session's thread.
// It prints nothing on stdout, since Claude Code would add that to the prompt.
import { bounded, callTool, loadSettings, projectName, readEvent, runHook, sessionThreadId } from "./hub-client.mjs";

/** A prompt longer than this is stored cut, with a note saying how much was left out. */
const promptChars = 100_000;

const settings = loadSettings();

runHook(async () => {
  const event = await readEvent();
  if (typeof event.prompt !== "string" || event.prompt.trim() === "") return;
  await callTool(settings, "store_context", {
    thread_id: sessionThreadId(event),
    source: "user",
    text: bounded(event.prompt, promptChars),
    tags: ["claude-code", "prompt"],
    metadata: { project: projectName(event), session_id: event.session_id, event: "UserPromptSubmit" },
  });
}, settings.timeoutMs);
