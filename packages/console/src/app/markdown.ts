/**
 * A small Markdown renderer that builds DOM nodes: headings, paragraphs,
 * lists, fenced and indented code, block quotes, emphasis, inline code and
 * links. Text only ever becomes text nodes; a link is made only for an
 * http(s) URL (with rel="noopener noreferrer"), any other target stays
 * visible as the literal text the entry holds. HTML in the source is
 * shown as text, never parsed.
 */
import { append, h } from "./dom.js";

/** Block quotes nested deeper than this render their content as plain text: each level parses its content again. */
const maxQuoteDepth = 8;

/**
 * The DOM of `source` rendered as Markdown, in a `div.markdown`. Every rule
 * reads a line in one pass, so a megabyte entry renders in time linear in
 * its length whatever it holds.
 */
export function renderMarkdown(source: string, quoteDepth = 0): HTMLElement {
  const root = h("div", { class: "markdown" });
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? "";
    if (line.trim() === "") {
      index += 1;
      continue;
    }
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence !== null) {
      const code: string[] = [];
      index += 1;
      while (index < lines.length && !(lines[index] ?? "").trim().startsWith(fence[1] ?? "```")) {
        code.push(lines[index] ?? "");
        index += 1;
      }
      index += 1;
      root.appendChild(h("pre", {}, h("code", {}, code.join("\n"))));
      continue;
    }
    const heading = atxHeading(line);
    if (heading !== undefined) {
      const level = Math.min(6, heading.level + 1) as 2 | 3 | 4 | 5 | 6;
      // Entry headings start at h2: the page's own title is the h1.
      root.appendChild(inline(h(`h${level}`), heading.text));
      index += 1;
      continue;
    }
    if (/^ {4}|^\t/.test(line)) {
      const code: string[] = [];
      while (index < lines.length && (/^ {4}|^\t/.test(lines[index] ?? "") || (lines[index] ?? "").trim() === "")) {
        code.push((lines[index] ?? "").replace(/^ {4}|^\t/, ""));
        index += 1;
      }
      while (code.length > 0 && code[code.length - 1] === "") code.pop();
      root.appendChild(h("pre", {}, h("code", {}, code.join("\n"))));
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted: string[] = [];
      while (index < lines.length && /^\s*>/.test(lines[index] ?? "")) {
        quoted.push((lines[index] ?? "").replace(/^\s*>\s?/, ""));
        index += 1;
      }
      const quote = h("blockquote");
      if (quoteDepth >= maxQuoteDepth) quote.appendChild(h("p", {}, quoted.join("\n")));
      else
        for (const child of Array.from(renderMarkdown(quoted.join("\n"), quoteDepth + 1).childNodes))
          quote.appendChild(child);
      root.appendChild(quote);
      continue;
    }
    const bullet = /^\s*([-*+]|\d{1,9}[.)])\s+/;
    const listStart = bullet.exec(line);
    if (listStart !== null) {
      const ordered = /\d/.test(listStart[1] ?? "");
      const list = ordered ? h("ol") : h("ul");
      while (index < lines.length) {
        const item = bullet.exec(lines[index] ?? "");
        if (item === null || /\d/.test(item[1] ?? "") !== ordered) break;
        list.appendChild(inline(h("li"), (lines[index] ?? "").slice(item[0].length)));
        index += 1;
      }
      root.appendChild(list);
      continue;
    }
    const paragraph: string[] = [];
    while (index < lines.length && isParagraphLine(lines[index] ?? "")) {
      paragraph.push((lines[index] ?? "").trim());
      index += 1;
    }
    if (paragraph.length === 0) {
      // A line no block rule took (cannot happen today): keep it as text rather than loop forever.
      paragraph.push(line.trim());
      index += 1;
    }
    root.appendChild(inline(h("p"), paragraph.join(" ")));
  }
  return root;
}

function isParagraphLine(line: string): boolean {
  return (
    line.trim() !== "" &&
    !/^\s*(```|~~~)/.test(line) &&
    !/^#{1,6}\s/.test(line) &&
    !/^\s*>/.test(line) &&
    !/^\s*([-*+]|\d{1,9}[.)])\s+/.test(line)
  );
}

/**
 * A link's label holds no bracket: with `[^\]]*` every unclosed `[` would
 * read to the end of the text again. Each other span stops at its own
 * delimiter, so a scan never runs past the next place a match could start.
 */
const inlinePattern =
  /`([^`]+)`|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|\[([^[\]]*)\]\(([^()\s]*)\)/g;

const isWhitespace = (char: string | undefined) => char !== undefined && /\s/.test(char);

/**
 * An ATX heading (`## Title ##`): its level and its text without the
 * closing hashes, or undefined. Read from both ends: a single pattern such
 * as `(.*?)\s*#*\s*$` tries every split of a long run of spaces again at
 * each of its characters.
 */
export function atxHeading(line: string): { level: number; text: string } | undefined {
  let level = 0;
  while (level < line.length && line[level] === "#") level += 1;
  if (level === 0 || level > 6 || !isWhitespace(line[level])) return undefined;
  let start = level;
  while (start < line.length && isWhitespace(line[start])) start += 1;
  let end = line.length;
  while (end > start && isWhitespace(line[end - 1])) end -= 1;
  while (end > start && line[end - 1] === "#") end -= 1;
  while (end > start && isWhitespace(line[end - 1])) end -= 1;
  return { level, text: line.slice(start, end) };
}

/** Appends `text` to `parent` with inline Markdown (code, strong, emphasis, links) as nodes. */
export function inline<T extends HTMLElement>(parent: T, text: string): T {
  let last = 0;
  for (const match of text.matchAll(inlinePattern)) {
    const at = match.index;
    if (at > last) append(parent, text.slice(last, at));
    const [whole, code, strong, strongAlt, em, emAlt, label, href] = match;
    if (code !== undefined) parent.appendChild(h("code", {}, code));
    else if (strong !== undefined || strongAlt !== undefined)
      parent.appendChild(inline(h("strong"), strong ?? strongAlt ?? ""));
    else if (em !== undefined || emAlt !== undefined) parent.appendChild(inline(h("em"), em ?? emAlt ?? ""));
    else if (label !== undefined && href !== undefined && isWebUrl(href))
      parent.appendChild(inline(h("a", { href, rel: "noopener noreferrer" }), label));
    else append(parent, whole);
    last = at + whole.length;
  }
  if (last < text.length) append(parent, text.slice(last));
  return parent;
}

/** True for an absolute http: or https: URL; every other scheme (javascript:, data:, …) is refused. */
export function isWebUrl(href: string): boolean {
  try {
    const url = new URL(href);
    return (url.protocol === "http:" || url.protocol === "https:") && /^https?:\/\//i.test(href);
  } catch {
    return false;
  }
}
