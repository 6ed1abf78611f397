/** How an entry is named where a caller sees only a title and a link (connector results). */

/** The URI that names an entry in connector results (there is no web page per entry; fetch it by id). */
export function entryUri(id: string): string {
  return `context-hub://entries/${id}`;
}

/**
 * A short title for an entry: the title it was stored with, else its first
 * non-empty line with Markdown heading, list and quote marks removed; at
 * most 80 characters; the thread id when there is neither.
 */
export function entryTitle(entry: { text: string; preview: string; threadId: string; title?: string }): string {
  const source =
    entry.title !== undefined && entry.title !== "" ? entry.title : entry.text !== "" ? entry.text : entry.preview;
  const line = source
    .split("\n")
    .map((candidate) => candidate.replace(/^\s*(?:#{1,6}\s+|[-*+>]\s+)?/, "").trim())
    .find((candidate) => candidate.length > 0);
  if (line === undefined) return entry.threadId;
  return line.length <= 80 ? line : `${line.slice(0, 79).trimEnd()}…`;
}
