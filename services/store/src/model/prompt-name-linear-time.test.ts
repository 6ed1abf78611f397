// A prompt name the caller sends is checked in time linear in its length, whatever it holds.
import { test } from "node:test";
import {
  assertLinearGrowthForAll,
  framedRun,
  pathologicalTexts,
  repeatTo,
  resultOrError,
} from "@context-hub/common/testing";
import { isEntryIdForm, validatePromptName } from "./prompt-name.js";

const nameTexts = [
  ...pathologicalTexts,
  { name: "letters", generate: (length: number) => repeatTo("a", length) },
  { name: "hex digits and hyphens", generate: (length: number) => repeatTo("0a-", length) },
  { name: "a letter, then dots and hyphens", generate: (length: number) => framedRun("a", ".-", "", length) },
  { name: "a name cut by a space at the end", generate: (length: number) => framedRun("_", "x", " ", length) },
];

test("validatePromptName and isEntryIdForm are linear in the name's length", () => {
  assertLinearGrowthForAll(
    "validatePromptName",
    (name) => resultOrError(() => validatePromptName(name, "prompt_name")),
    nameTexts,
  );
  assertLinearGrowthForAll("isEntryIdForm", isEntryIdForm, nameTexts);
});
