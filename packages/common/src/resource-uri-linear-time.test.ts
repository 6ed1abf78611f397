import { test } from "node:test";
import {
  assertLinearGrowthForAll,
  framedRun,
  pathologicalTexts,
  repeatTo,
  resultOrError,
  type TextGenerator,
} from "./testing/index.js";
import { matchResourceUriTemplate, parseResourceUri } from "./resource-uri.js";

/** The text after a scheme, as a caller may send it: runs of what the parser or the matcher treats specially. */
const afterScheme: readonly TextGenerator[] = [
  ...pathologicalTexts,
  { name: "a run of {", generate: (length) => repeatTo("{", length) },
  { name: "a run of }", generate: (length) => repeatTo("}", length) },
  { name: "expressions", generate: (length) => repeatTo("{x}/", length) },
  { name: "expressions side by side", generate: (length) => repeatTo("{a}{b}", length) },
  { name: "a name that never closes", generate: (length) => framedRun("{", "a", "", length) },
  { name: "percent-encoding", generate: (length) => repeatTo("%41", length) },
];

const withScheme = (scheme: string, generators: readonly TextGenerator[]): TextGenerator[] =>
  generators.map((generator) => ({
    name: `${scheme} then ${generator.name}`,
    generate: (length: number) => `${scheme}${generator.generate(length - scheme.length)}`,
  }));

test("parseResourceUri takes time linear in what it is sent, however long (it refuses past 512 characters)", () => {
  assertLinearGrowthForAll("parseResourceUri", (uri) => resultOrError(() => parseResourceUri(uri)), [
    ...afterScheme,
    ...withScheme("docs:", afterScheme),
  ]);
});

/** URIs made of what a template's literals repeat, so a careless matcher would look for each literal at every place. */
const repeatingUris: readonly TextGenerator[] = [
  { name: "a: then a run of a", generate: (length) => framedRun("a:", "a", "", length) },
  { name: "a: then a run of a, then b", generate: (length) => framedRun("a:", "a", "b", length) },
  { name: "a: then a run of ab", generate: (length) => framedRun("a:", "ab", "", length) },
  { name: "a: then a run of %61", generate: (length) => framedRun("a:", "%61", "", length) },
  { name: "a: then a run of %", generate: (length) => framedRun("a:", "%", "", length) },
  { name: "a: then a run of a, then /", generate: (length) => framedRun("a:", "a", "/", length) },
  { name: "a: then a run of /", generate: (length) => framedRun("a:", "/", "", length) },
];

test("matchResourceUriTemplate takes time linear in the URI, on templates whose literals the URI repeats", () => {
  const templates = [
    "a:{x}",
    "a:{x}aa{y}",
    "a:{x}ab{y}",
    "a:{x}aa",
    "a:{x}b",
    "a:{x}/{y}",
    `a:${Array.from({ length: 8 }, (_, index) => `{v${index}}`).join("aa")}`,
    `a:{x}${"a".repeat(400)}b{y}`,
    `a:{x}${"a".repeat(400)}`,
  ];
  for (const template of templates) {
    const parsed = parseResourceUri(template);
    assertLinearGrowthForAll(
      `matchResourceUriTemplate(${template.length > 40 ? `${template.slice(0, 40)}…` : template})`,
      (uri) => matchResourceUriTemplate(parsed, uri),
      repeatingUris,
    );
  }
});

test("matchResourceUriTemplate takes time linear in the URI, whatever follows the scheme", () => {
  for (const template of ["a:{x}", "a:{x}/{y}.md"]) {
    const parsed = parseResourceUri(template);
    assertLinearGrowthForAll(
      `matchResourceUriTemplate(${template})`,
      (uri) => matchResourceUriTemplate(parsed, uri),
      withScheme("a:", pathologicalTexts),
    );
  }
});
