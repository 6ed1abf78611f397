import { test } from "node:test";
import { assertLinearGrowthForAll, framedRun, markerTexts, pathologicalTexts, repeatTo } from "./testing/index.js";
import { placeholderNames, renderPromptTemplate, renderTextWithValues } from "./prompt-template.js";

/** Inputs aimed at the placeholder pattern: openings that never close, runs of spaces inside braces, near-names. */
const templateTexts = [
  { name: "a run of {", generate: (length: number) => repeatTo("{", length) },
  { name: "a run of {{ then spaces", generate: (length: number) => framedRun("{{", " ", "", length) },
  { name: "alternating {{ and a tab", generate: (length: number) => repeatTo("{{\t", length) },
  { name: "names that never close", generate: (length: number) => repeatTo("{{ topic ", length) },
  { name: "a name too long", generate: (length: number) => framedRun("{{", "a", "}}", length) },
  { name: "placeholders", generate: (length: number) => repeatTo("{{topic}} ", length) },
];

test("prompt templates and published templates' texts are read and rendered in time linear in their length, on every pathological input", () => {
  const texts = [...pathologicalTexts, ...markerTexts, ...templateTexts];
  assertLinearGrowthForAll("placeholderNames", placeholderNames, texts);
  const values = new Map([["topic", "{{topic}} again"]]);
  assertLinearGrowthForAll("renderPromptTemplate", (text) => renderPromptTemplate(text, values), texts);
  // A published template's text: placeholders the URI gives no value keep their text.
  assertLinearGrowthForAll("renderTextWithValues", (text) => renderTextWithValues(text, values), texts);
});
