/**
 * Turns a language model's answer into a stored summary: reasoning removed,
 * preamble removed, one paragraph. Pure; no I/O.
 */

// Tags reasoning models wrap their thoughts in (DeepSeek-R1, QwQ, Qwen3 and others use "think").
const reasoningTags = "think|thinking|reasoning|reflection|thought";
const reasoningBlock = new RegExp(`<(${reasoningTags})\\b[^>]*>[\\s\\S]*?</\\1\\s*>`, "gi");
// A closing tag without its opening one: chat templates that open the block inside the prompt (DeepSeek-R1) leave only "…</think>".
const reasoningBeforeOrphanClose = new RegExp(`^[\\s\\S]*</(?:${reasoningTags})\\s*>`, "i");
// An opening tag never closed: the model was cut off (max tokens) while still reasoning.
const unterminatedReasoning = new RegExp(`<(?:${reasoningTags})\\b[^>]*>[\\s\\S]*$`, "i");

/** Whether the answer holds reasoning markup at all (for a clearer error when nothing else is left). */
export function hasReasoning(text: string): boolean {
  return new RegExp(`</?(?:${reasoningTags})\\b`, "i").test(text);
}

/** Removes `<think>…</think>` and similar blocks, an orphan closing tag with everything before it, and an unterminated block with everything after it. */
export function stripReasoning(text: string): string {
  return text.replace(reasoningBlock, "").replace(reasoningBeforeOrphanClose, "").replace(unterminatedReasoning, "").trim();
}

const summaryWord = String.raw`(?:summary|summari[sz]ed|summari[sz]ation|overview|tl;?dr|recap|gist|paragraph)`;
const preambles: RegExp[] = [
  // "Sure! ", "Certainly, " when a "Here is…" follows.
  /^(?:sure|certainly|of course|okay|ok|absolutely|alright)\b[!,.]*\s*(?=here\b)/i,
  // "Here is a concise summary of the report:" / "Here's the one-paragraph summary you asked for:"
  new RegExp(String.raw`^here(?:'s|’s|\s+is|\s+are)\b[^\n:]{0,120}?\b${summaryWord}\b[^\n:]{0,80}:\s*`, "i"),
  // "Here is a summary of the text." on a line of its own.
  new RegExp(String.raw`^here(?:'s|’s|\s+is|\s+are)\b[^\n]{0,120}?\b${summaryWord}\b[^\n]{0,80}?[.!]?\s*\n+`, "i"),
  // "Summary:", "**Summary:**", "## Summary:", "TL;DR - …", "Concise summary — …" (a hyphen only with a space before it, so "Summary-based" stays).
  new RegExp(String.raw`^(?:#{1,6}\s*)?(?:\*\*|__)?\s*(?:(?:a|the)\s+)?(?:(?:concise|short|brief|one-paragraph|final)\s+)?${summaryWord}(?:\*\*|__)?(?:\s*[:–—]|\s+-)\s*(?:\*\*|__)?\s*`, "i"),
  // "## Summary" or "**Summary**" as a heading line.
  new RegExp(String.raw`^(?:#{1,6}\s*|\*\*|__)${summaryWord}(?:\*\*|__)?\s*\n+`, "i"),
];

/** Removes leading boilerplate ("Summary:", "Here is a summary of…:", "Sure! Here's…") however often it repeats. */
export function stripPreamble(text: string): string {
  let result = text.trim();
  for (let changed = true; changed; ) {
    changed = false;
    for (const preamble of preambles) {
      const next = result.replace(preamble, "").trimStart();
      if (next !== result) {
        result = next;
        changed = true;
      }
    }
  }
  return result;
}

/** Joins lines into one paragraph and drops quotes wrapped around the whole answer. */
export function toOneParagraph(text: string): string {
  const flat = text
    .replace(/\s*\n+\s*/g, " ")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
  const quoted = /^(["“])([\s\S]*)(["”])$/.exec(flat);
  return quoted !== null && !quoted[2]!.includes('"') ? quoted[2]!.trim() : flat;
}

/** The stored form of a model's answer: reasoning stripped, preamble stripped, one paragraph. "" when nothing is left. */
export function cleanSummary(answer: string): string {
  return toOneParagraph(stripPreamble(stripReasoning(answer)));
}
