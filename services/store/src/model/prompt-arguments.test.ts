import { test } from "node:test";
import assert from "node:assert/strict";
import { placeholderNames, renderPromptTemplate } from "@context-hub/common";
import { refusalOf } from "@context-hub/common/testing";
import {
  checkPromptShape,
  fromPromptArgumentsJson,
  toPromptArgumentsJson,
  validatePromptArguments,
} from "./prompt-arguments.js";
import { validateEntryChange, validateNewEntry } from "../entries/entry-validation.js";
import type { EntryUpdateInput, NewEntryInput } from "./entry-model.js";

const fields = { kind: "kind", text: "text", promptArguments: "prompt_arguments" };

const newEntry = (init: Partial<NewEntryInput>): NewEntryInput => ({
  threadId: "t",
  source: "user",
  text: "x",
  metadata: undefined,
  tags: [],
  images: [],
  visibility: undefined,
  ...init,
});

const update = (init: Partial<EntryUpdateInput>): EntryUpdateInput => ({
  id: "0123456789abcdef",
  expectedVersion: undefined,
  text: undefined,
  metadata: undefined,
  tags: undefined,
  images: undefined,
  visibility: undefined,
  generated: undefined,
  ...init,
});

test("declared arguments: names are identifiers, unique, at most 20; descriptions trimmed and bounded", () => {
  assert.deepEqual(
    validatePromptArguments(
      [{ name: "topic", description: "  what to write about ", required: true }, { name: "_tone2" }],
      "prompt_arguments",
    ),
    [
      { name: "topic", description: "what to write about", required: true },
      { name: "_tone2", description: undefined, required: false },
    ],
  );
  assert.match(
    refusalOf(() => validatePromptArguments([{ name: "2fast" }], "prompt_arguments")),
    /^prompt_arguments\[0\]\.name "2fast" is not an argument name/,
  );
  assert.match(
    refusalOf(() => validatePromptArguments([{ name: "a-b" }], "p")),
    /is not an argument name/,
  );
  assert.match(
    refusalOf(() => validatePromptArguments([{ name: "" }], "p")),
    /is not an argument name/,
  );
  assert.match(
    refusalOf(() => validatePromptArguments([{ name: "x".repeat(65) }], "p")),
    /is not an argument name/,
  );
  assert.equal(validatePromptArguments([{ name: "x".repeat(64) }], "p").length, 1);
  assert.equal(
    refusalOf(() => validatePromptArguments([{ name: "topic" }, { name: "topic" }], "updates[1].prompt_arguments")),
    'updates[1].prompt_arguments[1].name "topic" is declared twice',
  );
  // Names are case-sensitive, as placeholders are.
  assert.equal(validatePromptArguments([{ name: "topic" }, { name: "Topic" }], "p").length, 2);
  const many = Array.from({ length: 21 }, (_, index) => ({ name: `a${index}` }));
  assert.equal(
    refusalOf(() => validatePromptArguments(many, "p")),
    "p: at most 20 arguments (got 21)",
  );
  assert.equal(validatePromptArguments(many.slice(0, 20), "p").length, 20);
  assert.equal(
    refusalOf(() => validatePromptArguments([{ name: "a", description: "d".repeat(501) }], "p")),
    "p[0].description is 501 characters; the limit is 500",
  );
  assert.match(
    refusalOf(() => validatePromptArguments([{ name: "a", description: "a\u0000b" }], "p")),
    /NUL/,
  );
  // A lone surrogate becomes U+FFFD (jsonb would refuse it); a pair stays.
  assert.equal(
    validatePromptArguments([{ name: "a", description: "x\uD800y \uD83D\uDE00" }], "p")[0]!.description,
    "x\uFFFDy \uD83D\uDE00",
  );
});

test("only a prompt declares arguments, and every placeholder of a prompt names one", () => {
  const topic = validatePromptArguments([{ name: "topic", required: true }], "p");
  checkPromptShape({ kind: "prompt", text: "Write about {{topic}} and {{ topic }}.", promptArguments: topic }, fields);
  // Braces around anything but a name are text, not placeholders.
  checkPromptShape({ kind: "prompt", text: "Literal {{}} and {{ a.b }} and {x} stay.", promptArguments: [] }, fields);
  assert.equal(
    refusalOf(() =>
      checkPromptShape(
        { kind: "prompt", text: "{{topic}} in {{style}} for {{ audience }}", promptArguments: topic },
        fields,
      ),
    ),
    "text: the placeholders {{style}}, {{audience}} name no argument declared in prompt_arguments",
  );
  assert.equal(
    refusalOf(() => checkPromptShape({ kind: "note", text: "plain", promptArguments: topic }, fields)),
    'prompt_arguments: only an entry of kind "prompt" declares arguments (this one is a "note")',
  );
  // A note's braces mean nothing: only prompts are templates.
  checkPromptShape({ kind: "note", text: "{{anything}}", promptArguments: [] }, fields);
});

test("a new entry and an update are checked as they arrive", () => {
  const entry = { text: "Summarise {{doc}}", kind: "prompt" };
  assert.deepEqual(validateNewEntry(newEntry({ ...entry, promptArguments: [{ name: "doc" }] })).promptArguments, [
    { name: "doc", description: undefined, required: false },
  ]);
  assert.match(
    refusalOf(() => validateNewEntry(newEntry(entry))),
    /^text: the placeholder \{\{doc\}\} names no argument/,
  );
  assert.match(
    refusalOf(() => validateNewEntry(newEntry({ kind: "plan", promptArguments: [{ name: "doc" }] }))),
    /^prompt_arguments: only an entry of kind "prompt"/,
  );
  const change = validateEntryChange(update({ promptArguments: [] }), "updates[0]");
  assert.deepEqual(change.promptArguments, []);
  assert.equal(validateEntryChange(update({ tags: ["a"] }), "updates[0]").promptArguments, undefined);
  assert.match(
    refusalOf(() => validateEntryChange(update({ promptArguments: [{ name: "no way" }] }), "updates[3]")),
    /^updates\[3\]\.prompt_arguments\[0\]\.name/,
  );
});

test("the stored form round-trips, and none is NULL", () => {
  const list = validatePromptArguments([{ name: "a", description: "first", required: true }, { name: "b" }], "p");
  assert.equal(toPromptArgumentsJson([]), null);
  assert.deepEqual(fromPromptArgumentsJson(JSON.parse(toPromptArgumentsJson(list)!)), list);
  assert.deepEqual(fromPromptArgumentsJson(null), []);
});

test("rendering fills each placeholder once and never expands a value", () => {
  const template = "Dear {{name}}, about {{ topic }}: {{topic}}. {{missing_optional}}|{{ x.y }}";
  assert.deepEqual(placeholderNames(template), ["name", "topic", "missing_optional"]);
  assert.equal(
    renderPromptTemplate(
      template,
      new Map([
        ["name", "{{topic}}"],
        ["topic", "$& and $1"],
      ]),
    ),
    "Dear {{topic}}, about $& and $1: $& and $1. |{{ x.y }}",
  );
});
