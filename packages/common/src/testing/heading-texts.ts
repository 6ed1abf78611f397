/**
 * Heading-heavy Markdown for growth-rate checks of the code that outlines,
 * summarises, embeds and navigates a text: what makes naive outline code
 * slow is the number of headings (per-heading scans of the text, linear
 * look-ups among siblings), their length (slicing and joining heading paths)
 * and their nesting (sections that hold every section after them).
 */
import type { TextGenerator } from "./growth-rate.js";

/** `line(0)`, `line(1)`, … joined and cut to exactly `length` code units. */
export function fillLines(length: number, line: (index: number) => string): string {
  const parts: string[] = [];
  let total = 0;
  for (let index = 0; total < length; index++) {
    const part = line(index);
    parts.push(part);
    total += part.length;
  }
  return parts.join("").slice(0, length);
}

/** `length` code units of words that differ with `seed`, so headings made of them (and their ids) differ too. */
export function distinctWords(seed: number, length: number): string {
  const words: string[] = [];
  let total = 0;
  for (let index = 0; total < length; index++) {
    const word = `w${((seed * 7919 + index * 31) % 99_991).toString(36)}`;
    words.push(word);
    total += word.length + 1;
  }
  return words.join(" ").slice(0, length);
}

const family = (name: string, line: (index: number) => string): TextGenerator => ({
  name,
  generate: (length) => fillLines(length, line),
});

/**
 * Texts of many or long headings: many short ones (with and without a body),
 * headings of 500 characters, levels 1 to 6 over and over, one top heading
 * over everything, same-named siblings (with `-2`, `-3`… ids) flat and
 * nested, explicit `a-N` headings colliding with those suffixes, long runs
 * of `#`, closing sequences, setext headings of one and of several lines,
 * and one heading as long as the text.
 */
export const headingTexts: readonly TextGenerator[] = Object.freeze([
  family("short headings", (index) => `## Heading ${index}\n`),
  family(
    "short headings with bodies",
    (index) => `## Heading ${index}\n\nSome text about item ${index}. And more.\n\n`,
  ),
  family(
    "headings of 500 characters",
    (index) => `## ${distinctWords(index, 497)}\n\nA paragraph about it. It has two sentences.\n\n`,
  ),
  family(
    "levels 1 to 6 repeated",
    (index) => `${"#".repeat((index % 6) + 1)} Level ${index}\n\nThe text of part ${index}, long enough to count.\n\n`,
  ),
  {
    name: "one top heading over many",
    generate: (length) =>
      `# Top\n\n${fillLines(Math.max(0, length - 7), (index) => `## Part ${index}\n\nSome text about part ${index}. It has a second sentence.\n\n`)}`,
  },
  family("same-named siblings", () => "## Notes\n\nSome text.\n\n"),
  family("same-named headings at every level", (index) => `${"#".repeat((index % 6) + 1)} Notes\n`),
  family("headings colliding with -N suffixes", (index) => (index % 2 === 1 ? "## a\n" : `## a-${index + 2}\n`)),
  family("long runs of #", () => `${"#".repeat(200)} x\n`),
  family("closing #s", (index) => `## h${index} ${"#".repeat(60)}   \n`),
  family("spaced closing #s", (index) => `## h${index} ${"# ".repeat(60)}\n`),
  family("setext headings", (index) => `Title ${index}\n${index % 2 === 0 ? "===" : "---"}\n\n`),
  family(
    "setext headings of two long lines",
    (index) => `${distinctWords(index, 200)}\n${distinctWords(index + 1, 200)}\n===\n\n`,
  ),
  { name: "one heading as long as the text", generate: (length) => `# ${distinctWords(1, Math.max(0, length - 2))}` },
]);
