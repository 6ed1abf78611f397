import { test } from "node:test";
import assert from "node:assert/strict";
import { parseOutline, slugify, toProseBlocks } from "./markdown.js";
import { stripInlineMarkdown } from "./markdown-inline.js";

const document = [
  "Intro text before any heading.",
  "",
  "# Setup",
  "Install things.",
  "",
  "## Install",
  "Run the installer.",
  "",
  "```bash",
  "# not a heading",
  "echo hi",
  "```",
  "",
  "## Configure `env`",
  "Set variables.",
  "",
  "# Usage",
  "Use it.",
  "",
  "~~~~",
  "## also not a heading",
  "~~~",
  "still code",
  "~~~~",
  "",
  "### Deep",
  "Deep text.",
].join("\n");

test("parseOutline finds ATX headings with paths, levels and readable ids, skipping code fences", () => {
  const outline = parseOutline(document);
  assert.deepEqual(
    outline.map((s) => [s.nodeId, s.heading, s.level, s.path]),
    [
      ["setup", "Setup", 1, ["Setup"]],
      ["setup/install", "Install", 2, ["Setup", "Install"]],
      ["setup/configure-env", "Configure env", 2, ["Setup", "Configure env"]],
      ["usage", "Usage", 1, ["Usage"]],
      ["usage/deep", "Deep", 3, ["Usage", "Deep"]],
    ],
  );
});

test("parseOutline spans run from the heading to the next heading of the same or higher level", () => {
  const outline = parseOutline(document);
  const byId = new Map(outline.map((s) => [s.nodeId, s]));
  const setup = byId.get("setup")!;
  const install = byId.get("setup/install")!;
  const usage = byId.get("usage")!;
  assert.equal(setup.start, document.indexOf("# Setup"));
  assert.equal(setup.end, document.indexOf("# Usage"));
  assert.equal(install.start, document.indexOf("## Install"));
  assert.equal(install.end, document.indexOf("## Configure"));
  assert.ok(document.slice(install.start, install.end).includes("# not a heading"));
  assert.equal(usage.end, document.length);
  assert.equal(byId.get("usage/deep")!.end, document.length);
});

test("parseOutline numbers duplicate siblings and keeps ids stable when bodies change", () => {
  const text = "# Notes\n## Step\na\n## Step\nb\n## Step 2\nc\n# Notes\n## Step\nd";
  const ids = parseOutline(text).map((s) => s.nodeId);
  assert.deepEqual(ids, ["notes", "notes/step", "notes/step-2", "notes/step-2-2", "notes-2", "notes-2/step"]);
  const edited = text.replace("a\n", "a much longer body\nwith more lines\n");
  assert.deepEqual(
    parseOutline(edited).map((s) => s.nodeId),
    ids,
  );
});

test("parseOutline reads setext headings, closing hashes and ignores front matter and hashtags", () => {
  const text =
    "---\ntitle: x\n---\nTitle\n=====\n\nSub *part*\n---\n#hashtag is text\n## Closed ##\n    # indented code";
  const outline = parseOutline(text);
  assert.deepEqual(
    outline.map((s) => [s.nodeId, s.heading, s.level]),
    [
      ["title", "Title", 1],
      ["title/sub-part", "Sub part", 2],
      ["title/closed", "Closed", 2],
    ],
  );
  assert.equal(outline[0]!.start, text.indexOf("Title"));
});

test("parseOutline of text without headings is empty", () => {
  assert.deepEqual(parseOutline("just text\n\nmore text"), []);
});

test("slugify is lowercase, accent-free, dash-joined and keeps other scripts", () => {
  assert.equal(slugify("  Héllo, Wörld: v1.2!  "), "hello-world-v1-2");
  assert.equal(slugify("東京 Notes"), "東京-notes");
  assert.equal(slugify("!!!"), "");
});

test("stripInlineMarkdown keeps words and removes syntax", () => {
  assert.equal(
    stripInlineMarkdown("See **the** [docs](http://x.y) and `code_path`, _emphasis_ with snake_case <b>tag</b>"),
    "See the docs and code_path, emphasis with snake_case tag",
  );
});

test("toProseBlocks yields paragraphs and list items without markup, code or tables", () => {
  const text =
    "# Title\n\nA paragraph\ncontinues here.\n\n- first *item*\n- second item\n\n```\ncode();\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted text\n\n---\n1. numbered";
  const blocks = toProseBlocks(text);
  assert.deepEqual(
    blocks.map((b) => b.text),
    ["A paragraph continues here.", "first item", "second item", "quoted text", "numbered"],
  );
  assert.equal(blocks[0]!.start, text.indexOf("A paragraph"));
  assert.equal(blocks[0]!.end, text.indexOf("here.") + 5);
});

test("same-named siblings skip suffixes a heading already took, however many there are", () => {
  const ids = parseOutline("# a\n# a-2\n# a\n# a\n# a-4\n# a\n").map((section) => section.nodeId);
  assert.deepEqual(ids, ["a", "a-2", "a-3", "a-4", "a-4-2", "a-5"]);
  const many = parseOutline("# x\n".repeat(20_000));
  assert.equal(many.length, 20_000);
  assert.equal(many[19_999]!.nodeId, "x-20000");
});

test("closing hashes go with the spaces before them, only after a space or alone", () => {
  assert.deepEqual(
    parseOutline(`# Title${" ".repeat(5_000)}###   \n## Tag#\n### ###\n#### a #b\n`).map((section) => section.heading),
    ["Title", "Tag#", "", "a #b"],
  );
});

test("links, comments and emphasis that never close are left as text", () => {
  assert.equal(stripInlineMarkdown('see [the docs](https://x.test/a "t") and ![](a.png) now'), "see the docs and now");
  assert.equal(stripInlineMarkdown("[a [b](u) [c][r] [d](u"), "a b [c [d](u");
  assert.equal(stripInlineMarkdown("x <!-- a --> y <!-- never closed"), "x y <!-- never closed");
  assert.equal(stripInlineMarkdown("**a **b** c** and ~~d"), "a **b c** and ~~d");
  assert.equal(stripInlineMarkdown("<https://a.test <https://b.test> end"), "<https://a.test https://b.test end");
});
