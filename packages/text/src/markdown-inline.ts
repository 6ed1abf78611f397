/**
 * Inline Markdown removed from a line or paragraph, keeping its words: links
 * and images to their text, code spans, emphasis, strike-through, HTML tags
 * and comments, escapes. Every step scans in time linear in the text, so a
 * heading or a paragraph full of openers costs no more than plain text.
 */

/**
 * For nondecreasing `from`, the first index at or after `from` whose
 * character passes `test` (-1 when none): every character is looked at once
 * over all calls, however many openers share the same closer.
 */
function createForwardFinder(text: string, test: (char: string) => boolean): (from: number) => number {
  let found = -2;
  return (from) => {
    if (found === -1 || found >= from) return found;
    let at = from;
    while (at < text.length && !test(text.charAt(at))) at++;
    found = at < text.length ? at : -1;
    return found;
  };
}

const whitespace = /\s/;

/**
 * Replaces each match of a link-shaped construct, left to right without
 * overlaps, as the global patterns `![alt](url)`, `[text](url)`,
 * `[text][ref]` and `<https://…>` would (`\[([^\]]+)\]\([^)]*\)` and its
 * kin), but finds each opener's closing bracket with a forward finder, so a
 * run of openers sharing one far-away closer (`[[[[…`, `[x](` repeated) is
 * not rescanned once per opener.
 */
function replaceLinks(text: string, kind: "image" | "inline" | "reference" | "autolink"): string {
  const bracket = createForwardFinder(text, (char) => char === "]");
  const second = createForwardFinder(text, (char) => (kind === "reference" ? char === "]" : char === ")"));
  const autolinkEnd = createForwardFinder(text, (char) => char === ">" || whitespace.test(char));
  const parts: string[] = [];
  let kept = 0;
  let at = 0;
  while (at < text.length) {
    let keep: [number, number] | undefined;
    let end = -1;
    if (kind === "autolink") {
      const scheme = text.startsWith("<https://", at) ? 9 : text.startsWith("<http://", at) ? 8 : 0;
      if (scheme > 0) {
        const close = autolinkEnd(at + scheme);
        if (close > at + scheme && text.charAt(close) === ">") [keep, end] = [[at + 1, close], close + 1];
      }
    } else if (kind === "image" ? text.startsWith("![", at) : text.charAt(at) === "[") {
      const textStart = at + (kind === "image" ? 2 : 1);
      const close = bracket(textStart);
      if (
        close >= 0 &&
        (kind === "image" || close > textStart) &&
        text.charAt(close + 1) === (kind === "reference" ? "[" : "(")
      ) {
        const last = second(close + 2);
        if (last >= 0) [keep, end] = [[textStart, close], last + 1];
      }
    }
    if (keep === undefined) {
      at++;
      continue;
    }
    parts.push(text.slice(kept, at), text.slice(keep[0], keep[1]));
    kept = end;
    at = end;
  }
  parts.push(text.slice(kept));
  return parts.join("");
}

const htmlTag = /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/g;
const codeSpan = /`+([^`]*)`+/g;
const starEmphasis = /(^|[^\p{L}\p{N}*])\*(?=\S)([^*]*?\S)\*(?![\p{L}\p{N}])/gu;
const underscoreEmphasis = /(^|[^\p{L}\p{N}_])_(?=\S)([^_]*?\S)_(?![\p{L}\p{N}_])/gu;
const escape = /\\([\\`*_{}[\]()#+\-.!>|])/g;
/**
 * A character without which `stripInlineMarkdown` has nothing to remove but
 * whitespace: links, images and link references open with `[`, autolinks,
 * tags and comments with `<`, code spans with a backtick, emphasis, strong
 * and strike-through with `*`, `_` or `~`, escapes with a backslash.
 */
const inlineMarkupCharacter = /[[<`*_~\\]/;

/**
 * `text` with every HTML comment replaced by a space. A comment runs from
 * `<!--` to the first `-->` after it; once one is never closed, none after it
 * can be, so the scan stops there (a lazy pattern would rescan to the end
 * from every unclosed opener).
 */
function withoutHtmlComments(text: string): string {
  let open = text.indexOf("<!--");
  if (open < 0) return text;
  const parts: string[] = [];
  let kept = 0;
  while (open >= 0) {
    const close = text.indexOf("-->", open + 4);
    if (close < 0) break;
    parts.push(text.slice(kept, open), " ");
    kept = close + 3;
    open = text.indexOf("<!--", kept);
  }
  parts.push(text.slice(kept));
  return parts.join("");
}

const isNonSpace = (char: string) => char !== "" && !/\s/.test(char);

/**
 * `text` with `**strong**`, `__strong__` and `~~struck~~` markers removed: an
 * opening pair followed by a non-space pairs with the first same pair after
 * it that follows a non-space. Once an opening pair finds no closing one,
 * no later opening pair of that kind can, so it is not looked for again
 * (the lazy pattern `(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1` would rescan to
 * the end from every opener of "**x " repeated).
 */
function withoutStrongAndStrike(text: string): string {
  const parts: string[] = [];
  let kept = 0;
  const unclosed = new Set<string>();
  for (let at = 0; at + 2 < text.length; ) {
    const code = text.charCodeAt(at);
    if (
      (code !== 42 && code !== 95 && code !== 126) ||
      text.charCodeAt(at + 1) !== code ||
      !isNonSpace(text.charAt(at + 2))
    ) {
      at++;
      continue;
    }
    const pair = text.slice(at, at + 2);
    let close = unclosed.has(pair) ? -1 : text.indexOf(pair, at + 3);
    while (close >= 0 && !isNonSpace(text.charAt(close - 1))) close = text.indexOf(pair, close + 1);
    if (close < 0) {
      unclosed.add(pair);
      at++;
      continue;
    }
    parts.push(text.slice(kept, at), text.slice(at + 2, close));
    kept = close + 2;
    at = kept;
  }
  parts.push(text.slice(kept));
  return parts.join("");
}

/**
 * Removes inline Markdown from one line or paragraph while keeping its words:
 * links and images become their text, code spans lose their backticks,
 * emphasis and strike-through markers and HTML tags go, backslash escapes
 * resolve, and whitespace collapses. Underscores inside words (`snake_case`)
 * are kept. Takes time linear in the text's length, whatever markup it holds.
 */
export function stripInlineMarkdown(text: string): string {
  // Most headings and lines hold no markup at all: only their whitespace needs collapsing.
  if (!inlineMarkupCharacter.test(text)) return text.replace(/\s+/g, " ").trim();
  const linksResolved = replaceLinks(
    replaceLinks(replaceLinks(replaceLinks(text, "image"), "inline"), "reference"),
    "autolink",
  );
  return withoutStrongAndStrike(withoutHtmlComments(linksResolved).replace(htmlTag, " ").replace(codeSpan, "$1"))
    .replace(starEmphasis, "$1$2")
    .replace(underscoreEmphasis, "$1$2")
    .replace(escape, "$1")
    .replace(/\s+/g, " ")
    .trim();
}
