/**
 * Turns a language model's answer into a stored summary: reasoning removed,
 * preamble removed, one paragraph. Pure; no I/O.
 */

// Tags reasoning models wrap their thoughts in (DeepSeek-R1, QwQ, Qwen3 and others use "think").
const reasoningTags = "think|thinking|reasoning|reflection|thought";
const reasoningOpening = new RegExp(`<(${reasoningTags})\\b`, "gi");
const reasoningClosing = new RegExp(`</(?:${reasoningTags})\\s*>`, "gi");

/** Whether the answer holds reasoning markup at all (for a clearer error when nothing else is left). */
export function hasReasoning(text: string): boolean {
  return new RegExp(`</?(?:${reasoningTags})\\b`, "i").test(text);
}

/**
 * `text` without its complete `<think …>…</think>` blocks (any of the
 * reasoning tags, closed by the same tag name, any case). Each opening tag
 * pairs with the first matching closing tag after it; an opening tag without
 * one is left in place. One pass: once no `>` or no closing tag of a name
 * follows some point, none can follow a later opening tag either, so
 * nothing is searched twice.
 */
function withoutReasoningBlocks(text: string): string {
  const parts: string[] = [];
  let kept = 0;
  const unclosedAfter = new Map<string, number>();
  reasoningOpening.lastIndex = 0;
  for (let opening = reasoningOpening.exec(text); opening !== null; opening = reasoningOpening.exec(text)) {
    const tagEnd = text.indexOf(">", opening.index + opening[0].length);
    if (tagEnd < 0) break;
    const name = (opening[1] as string).toLowerCase();
    if ((unclosedAfter.get(name) ?? Number.POSITIVE_INFINITY) <= tagEnd) continue;
    const closing = new RegExp(`</${name}\\s*>`, "gi");
    closing.lastIndex = tagEnd + 1;
    const close = closing.exec(text);
    if (close === null) {
      unclosedAfter.set(name, tagEnd);
      continue;
    }
    parts.push(text.slice(kept, opening.index));
    kept = close.index + close[0].length;
    reasoningOpening.lastIndex = kept;
  }
  parts.push(text.slice(kept));
  return parts.join("");
}

/**
 * Removes `<think>…</think>` and similar blocks; then a closing tag without
 * its opening one (chat templates that open the block inside the prompt,
 * like DeepSeek-R1's, leave only "…</think>") with everything before the
 * last such tag; then an opening tag never closed (the model was cut off
 * while still reasoning) with everything after the first such tag. Linear
 * in the answer's length.
 */
export function stripReasoning(text: string): string {
  let result = withoutReasoningBlocks(text);
  let lastClosingEnd = -1;
  reasoningClosing.lastIndex = 0;
  for (let closing = reasoningClosing.exec(result); closing !== null; closing = reasoningClosing.exec(result))
    lastClosingEnd = closing.index + closing[0].length;
  if (lastClosingEnd >= 0) result = result.slice(lastClosingEnd);
  reasoningOpening.lastIndex = 0;
  const opening = reasoningOpening.exec(result);
  if (opening !== null && result.includes(">", opening.index + opening[0].length))
    result = result.slice(0, opening.index);
  return result.trim();
}

const summaryWord = String.raw`(?:summary|summari[sz]ed|summari[sz]ation|overview|tl;?dr|recap|gist|paragraph)`;
// Sticky: each is tried exactly where the answer's remaining text starts, which never holds leading whitespace.
const preambles: RegExp[] = [
  // "Sure! ", "Certainly, " when a "Here is…" follows.
  /(?:sure|certainly|of course|okay|ok|absolutely|alright)\b[!,.]*\s*(?=here\b)/iy,
  // "Here is a concise summary of the report:" / "Here's the one-paragraph summary you asked for:"
  new RegExp(String.raw`here(?:'s|’s|\s+is|\s+are)\b[^\n:]{0,120}?\b${summaryWord}\b[^\n:]{0,80}:\s*`, "iy"),
  // "Here is a summary of the text." on a line of its own.
  new RegExp(
    String.raw`here(?:'s|’s|\s+is|\s+are)\b[^\n]{0,120}?\b${summaryWord}\b[^\n]{0,80}?[.!]?[^\S\n]*\n\s*`,
    "iy",
  ),
  // "Summary:", "**Summary:**", "## Summary:", "TL;DR - …", "Concise summary — …" (a hyphen only with a space before it, so "Summary-based" stays).
  new RegExp(
    String.raw`(?:#{1,6}\s*)?(?:(?:\*\*|__)\s*)?(?:(?:a|the)\s+)?(?:(?:concise|short|brief|one-paragraph|final)\s+)?${summaryWord}(?:\*\*|__)?(?:\s*[:–—]|\s+-)\s*(?:\*\*|__)?\s*`,
    "iy",
  ),
  // "## Summary" or "**Summary**" as a heading line.
  new RegExp(String.raw`(?:#{1,6}\s*|\*\*|__)${summaryWord}(?:\*\*|__)?[^\S\n]*\n\s*`, "iy"),
];

const isWhitespace = (char: string) => char !== "" && /\s/.test(char);

/**
 * Removes leading boilerplate ("Summary:", "Here is a summary of…:", "Sure!
 * Here's…") however often it repeats. Works on an offset into the trimmed
 * answer, so a thousand repeats cost one pass, not a thousand copies.
 */
export function stripPreamble(text: string): string {
  const answer = text.trim();
  let at = 0;
  for (let changed = true; changed; ) {
    changed = false;
    for (const preamble of preambles) {
      preamble.lastIndex = at;
      const match = preamble.exec(answer);
      if (match === null || match[0].length === 0) continue;
      at += match[0].length;
      while (at < answer.length && isWhitespace(answer.charAt(at))) at++;
      changed = true;
    }
  }
  return answer.slice(at);
}

/** Joins lines into one paragraph and drops quotes wrapped around the whole answer. */
export function toOneParagraph(text: string): string {
  const flat = text
    // A whole run of whitespace at once: `\s*\n+\s*` would rescan a long run of spaces from each of them.
    .replace(/\s+/g, (run) => (run.includes("\n") ? " " : run))
    .replace(/[ \t]{2,}/g, " ")
    .trim();
  const quoted = /^(["“])([\s\S]*)(["”])$/.exec(flat);
  return quoted !== null && !quoted[2]!.includes('"') ? quoted[2]!.trim() : flat;
}

/** The stored form of a model's answer: reasoning stripped, preamble stripped, one paragraph. "" when nothing is left. */
export function cleanSummary(answer: string): string {
  return toOneParagraph(stripPreamble(stripReasoning(answer)));
}

/**
 * A summary cut to at most `maxChars` UTF-16 code units: unchanged when it
 * fits; otherwise cut at the last whitespace that keeps at least half of the
 * room (mid-word, never inside a surrogate pair, when there is none),
 * trailing whitespace and punctuation dropped, and "…" appended.
 */
export function fitSummary(summary: string, maxChars: number): string {
  if (summary.length <= maxChars) return summary;
  const room = maxChars - 1;
  let end = room;
  for (let at = room; at >= Math.ceil(room / 2); at--) {
    if (isWhitespace(summary.charAt(at))) {
      end = at;
      break;
    }
  }
  while (end > 0 && (isWhitespace(summary.charAt(end - 1)) || ",;:.!?".includes(summary.charAt(end - 1)))) end--;
  const last = summary.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${summary.slice(0, end)}…`;
}
