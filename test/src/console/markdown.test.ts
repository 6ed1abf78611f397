import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertLinearGrowthForAll,
  framedRun,
  headingTexts,
  markerTexts,
  pathologicalTexts,
} from "@context-hub/common/testing";

/**
 * The console's Markdown renderer (packages/console/src/app/markdown.ts)
 * renders any stored entry, a megabyte long, written by anyone who may write
 * to a thread the viewer reads: it must render in time linear in the text
 * whatever the text holds, or one entry freezes every reader's tab. It runs
 * here under Node over a minimal document (elements, text nodes, children),
 * which is all the renderer asks of the DOM.
 */

class FakeNode {
  readonly childNodes: FakeNode[] = [];
  get firstChild(): FakeNode | null {
    return this.childNodes[0] ?? null;
  }
  appendChild(child: FakeNode): FakeNode {
    this.childNodes.push(child);
    return child;
  }
  removeChild(child: FakeNode): FakeNode {
    this.childNodes.splice(this.childNodes.indexOf(child), 1);
    return child;
  }
  get textContent(): string {
    return this.childNodes.map((child) => child.textContent).join("");
  }
}

class FakeText extends FakeNode {
  constructor(readonly data: string) {
    super();
  }
  override get textContent(): string {
    return this.data;
  }
}

class FakeElement extends FakeNode {
  readonly attributes = new Map<string, string>();
  constructor(readonly tagName: string) {
    super();
  }
  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }
  addEventListener(): void {}
}

(globalThis as { document?: unknown }).document = {
  createElement: (tag: string) => new FakeElement(tag),
  createElementNS: (_namespace: string, tag: string) => new FakeElement(tag),
  createTextNode: (data: string) => new FakeText(data),
};

interface MarkdownModule {
  renderMarkdown(source: string): FakeElement;
  atxHeading(line: string): { level: number; text: string } | undefined;
}

const markdown = (await import(
  new URL("../../../packages/console/dist/app/markdown.js", import.meta.url).href
)) as MarkdownModule;

const elements = (node: FakeNode): FakeElement[] =>
  node.childNodes.flatMap((child) => (child instanceof FakeElement ? [child, ...elements(child)] : []));

test("the console renders any entry in time linear in its length", () => {
  const framed = (name: string, prefix: string, unit: string, suffix: string) => ({
    name,
    generate: (length: number) => framedRun(prefix, unit, suffix, length),
  });
  assertLinearGrowthForAll("renderMarkdown", (text) => markdown.renderMarkdown(text), [
    ...pathologicalTexts,
    ...headingTexts,
    ...markerTexts,
    framed("a heading, runs of spaces between hashes", "# a", " \t#", "x"),
    framed("an indented code block, then blank lines, then code", "    code\n", "\n", "    more"),
    framed("one quote nested a megabyte deep", "", "> ", "x"),
    framed("a link's label never closed", "[", "[a", "](https://example.com)"),
  ]);
});

test("a heading is read from both ends as the pattern it replaces read it", () => {
  const old = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
  const alphabet = ["#", " ", "\t", "x"];
  let checked = 0;
  const visit = (line: string, depth: number): void => {
    const expected = old.exec(line);
    const actual = markdown.atxHeading(line);
    assert.deepEqual(
      actual,
      expected === null ? undefined : { level: expected[1]!.length, text: expected[2] },
      JSON.stringify(line),
    );
    checked += 1;
    if (depth > 0) for (const char of alphabet) visit(line + char, depth - 1);
  };
  visit("", 9);
  assert.equal(checked, (4 ** 10 - 1) / 3);
});

test("headings, code, nested quotes and links render as before, with deep quotes as text", () => {
  const root = markdown.renderMarkdown(
    [
      "## Title ##",
      "",
      "    first",
      "",
      "    second",
      "",
      "",
      "> > > > > > > > > > deep",
      "",
      "see [[the docs](https://example.com/docs) and [here](javascript:alert(1))",
    ].join("\n"),
  );
  const all = elements(root);
  const heading = all.find((element) => element.tagName === "h3");
  assert.equal(heading?.textContent, "Title");
  assert.equal(all.find((element) => element.tagName === "code")?.textContent, "first\n\nsecond");
  const quotes = all.filter((element) => element.tagName === "blockquote");
  assert.equal(quotes.length, 9, "eight levels parsed, the ninth holds the rest as text");
  assert.equal(quotes.at(-1)?.textContent, "> deep");
  const links = all.filter((element) => element.tagName === "a");
  assert.deepEqual(
    links.map((link) => [link.textContent, link.attributes.get("href")]),
    [["the docs", "https://example.com/docs"]],
  );
  assert.match(root.textContent, /see \[the docs and \[here\]\(javascript:alert\(1\)\)/);
});
