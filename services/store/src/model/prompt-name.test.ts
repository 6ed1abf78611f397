import { test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { refusalOf } from "@context-hub/common/testing";
import {
  checkPromptNameShape,
  isEntryIdForm,
  isUniqueViolationOf,
  promptNameTaken,
  validatePromptName,
} from "./prompt-name.js";
import { validateEntryChange, validateNewEntry } from "../entries/entry-validation.js";
import type { NewEntryInput } from "./entry-model.js";

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

test("a prompt name is a letter or _, then up to 63 letters, digits, _, . or -; empty is none", () => {
  for (const name of ["a", "_", "Summarise", "release.notes-v2", "_x_1", `a${"b".repeat(63)}`])
    assert.equal(validatePromptName(name, "prompt_name"), name);
  assert.equal(validatePromptName("", "prompt_name"), undefined);
  assert.equal(validatePromptName(undefined, "prompt_name"), undefined);
  for (const name of ["1st", "-x", ".x", "has space", "naïve", "a/b", " a", `a${"b".repeat(64)}`, "a\u0000"])
    assert.match(
      refusalOf(() => validatePromptName(name, "updates[1].prompt_name")),
      /^updates\[1\]\.prompt_name ".*" is not a prompt name: a letter or "_", then up to 63 letters, digits, "_", "\." or "-"$/,
      name,
    );
});

test("a name of an entry id's form is refused, so prompts/get cannot mistake one for the other", () => {
  for (const name of ["0f8e2a4c-5b6d-7e8f-9a0b-1c2d3e4f5a6b", "abcdef12", "deadbeef-cafe", "ABCDEF0123456789"]) {
    assert.ok(isEntryIdForm(name), name);
    if (/^[A-Za-z_]/.test(name))
      assert.match(
        refusalOf(() => validatePromptName(name, "prompt_name")),
        /has the form of an entry id/,
        name,
      );
  }
  for (const name of ["abcdef1", "deadbeefs", "face", "a-b-c-d-e-f-a"]) {
    assert.ok(!isEntryIdForm(name), name);
    assert.equal(validatePromptName(name, "prompt_name"), name);
  }
  assert.equal(validatePromptName("abcdef12", "filter.prompt_name", true), "abcdef12", "a filter may name one");
});

test("only a prompt has a name: on a write, and on a change of kind that keeps the name", () => {
  const fields = { kind: "kind", promptName: "prompt_name" };
  checkPromptNameShape({ kind: "prompt", promptName: "x" }, fields);
  checkPromptNameShape({ kind: "note", promptName: undefined }, fields);
  assert.match(
    refusalOf(() => checkPromptNameShape({ kind: "note", promptName: "x" }, fields)),
    /^prompt_name: only an entry of kind "prompt" has a prompt name \(this one is a "note"\)$/,
  );
  assert.match(
    refusalOf(() => checkPromptNameShape({ kind: "note", promptName: "x" }, fields, true)),
    /^kind: the entry is the prompt named "x", and only an entry of kind "prompt" has a prompt name$/,
  );
  try {
    checkPromptNameShape({ kind: "note", promptName: "x" }, fields, true);
  } catch (error) {
    assert.ok(isContextHubError(error));
    assert.match(error.remedy ?? "", /remove the name in the same update \(prompt_name ""\)/);
  }
  const written = validateNewEntry(newEntry({ kind: "prompt", promptName: "brief" }));
  assert.equal(written.promptName, "brief");
  assert.equal(validateNewEntry(newEntry({ kind: "prompt", promptName: "" })).promptName, undefined);
  assert.match(
    refusalOf(() => validateNewEntry(newEntry({ kind: "document", promptName: "brief" }))),
    /^prompt_name: only an entry of kind "prompt"/,
  );
});

test("an update's name: absent leaves it, empty removes it (null), else it is checked", () => {
  const change = (promptName: string | undefined) =>
    validateEntryChange(
      {
        id: "0f8e2a4c5b6d7e8f",
        expectedVersion: undefined,
        text: undefined,
        metadata: undefined,
        tags: undefined,
        images: undefined,
        visibility: undefined,
        generated: undefined,
        promptName,
      },
      "updates[0]",
    ).promptName;
  assert.equal(change(undefined), undefined);
  assert.equal(change(""), null);
  assert.equal(change("brief"), "brief");
  assert.match(
    refusalOf(() => change("9lives")),
    /^updates\[0\]\.prompt_name "9lives" is not a prompt name/,
  );
});

test("a taken name names the owner's prompt that has it, when known", () => {
  const known = promptNameTaken("brief", "0190c2a4-5b6d-7e8f-9a0b-1c2d3e4f5a6b");
  assert.equal(
    known.message,
    'prompt_name "brief" is already the name of your prompt 0190c2a4-5b6d-7e8f-9a0b-1c2d3e4f5a6b: rename or delete that one first',
  );
  assert.deepEqual(known.details, { prompt_name: "brief", id: "0190c2a4-5b6d-7e8f-9a0b-1c2d3e4f5a6b" });
  assert.match(
    promptNameTaken("brief", undefined).message,
    /another of your prompts: rename or delete that one first$/,
  );
});

test("a unique violation of the prompt names is told from other errors, as either database reports it", () => {
  const index = "entries_prompt_name_idx";
  assert.ok(isUniqueViolationOf({ code: "23505", constraint: index }, index), "node-postgres");
  assert.ok(
    isUniqueViolationOf({ code: "23505", message: `duplicate key value violates unique constraint "${index}"` }, index),
  );
  assert.ok(!isUniqueViolationOf({ code: "23505", constraint: "entries_pkey" }, index));
  assert.ok(!isUniqueViolationOf({ code: "23514", constraint: index }, index));
  assert.ok(!isUniqueViolationOf(new Error("boom"), index));
  assert.ok(!isUniqueViolationOf(undefined, index));
});
