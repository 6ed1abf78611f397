import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { nastyQueries } from "./search-nasty-queries.js";
import {
  chooseQueryLanguage,
  highlightMarks,
  parseHeadline,
  toLexemeQuery,
  toQueryWords,
  validateFullTextQuery,
} from "./text-search.js";

describe("full-text query words", () => {
  test("keep letters, digits and combining marks only, in order and with their repeats", () => {
    assert.deepEqual(toQueryWords("Config config CONFIGS, state-of-the-art!"), [
      "Config",
      "config",
      "CONFIGS",
      "state",
      "of",
      "the",
      "art",
    ]);
    assert.deepEqual(toQueryWords("'\";!&|()<->:*\\"), []);
    assert.deepEqual(toQueryWords("café e\u0301clair"), ["café", "éclair"]);
  });

  test("are capped at 100 distinct words of 64 characters, repeats of kept words still counting", () => {
    const words = toQueryWords(Array.from({ length: 150 }, (_, index) => `w${index}`).join(" "));
    assert.deepEqual(
      words,
      Array.from({ length: 100 }, (_, index) => `w${index}`),
    );
    assert.deepEqual(toQueryWords(`${words.join(" ")} w140 W0 w141 w99`).slice(100), ["W0", "w99"]);
    assert.equal(toQueryWords("y".repeat(500))[0]?.length, 64);
  });

  test("prefix and any-word queries carry no tsquery syntax whatever the input", () => {
    for (const query of nastyQueries) {
      for (const mode of ["prefix", "any"] as const) {
        const lexemes = toLexemeQuery(query, mode);
        // Every term is a quoted run of letters and digits; only the joiners and :* are syntax.
        const stripped = lexemes
          .replace(/'[\p{L}\p{N}\p{M}]+'(:\*)?/gu, "")
          .replace(mode === "prefix" ? / & /g : / \| /g, "");
        assert.equal(stripped, "", `${mode} ${JSON.stringify(query)} → ${JSON.stringify(lexemes)}`);
      }
    }
    assert.equal(toLexemeQuery("config serv", "prefix"), "'config':* & 'serv':*");
    assert.equal(toLexemeQuery("wing lift", "any"), "'wing' | 'lift'");
    assert.equal(
      toLexemeQuery("lift wing lift", "any"),
      "'lift' | 'wing' | 'lift'",
      "a repeated word stays, so it weighs more",
    );
  });
});

describe("full-text query checks", () => {
  test("a blank, overlong or NUL query is refused", () => {
    for (const query of ["", "   ", "x".repeat(1001), "a\u0000b"]) {
      assert.throws(
        () => validateFullTextQuery(query),
        (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT",
      );
    }
    assert.equal(validateFullTextQuery("fine"), "fine");
  });

  test("a query language comes from the allow-list only", () => {
    const allowed = ["english", "german", "simple"];
    assert.equal(chooseQueryLanguage("", "english", allowed), "english");
    assert.equal(chooseQueryLanguage("german", "english", allowed), "german");
    for (const language of ["french", "english'; --", "pg_catalog.english", "English"]) {
      assert.throws(
        () => chooseQueryLanguage(language, "english", allowed),
        /is not offered; choose one of: english, german, simple/,
      );
    }
  });
});

describe("highlight fragments", () => {
  const { start, stop, fragment } = highlightMarks;

  test("fragments are split and match spans point at the marked words", () => {
    const fragments = parseHeadline(
      ` quick brown ${start}fox${stop} jumps${fragment}${start}Foxes${stop} are ${start}quick${stop} `,
    );
    assert.deepEqual(fragments, [
      { text: "quick brown fox jumps", matches: [{ start: 12, end: 15 }] },
      {
        text: "Foxes are quick",
        matches: [
          { start: 0, end: 5 },
          { start: 10, end: 15 },
        ],
      },
    ]);
    for (const part of fragments)
      for (const match of part.matches) assert.match(part.text.slice(match.start, match.end), /^(fox|Foxes|quick)$/);
  });

  test("text without marks is one fragment without matches; empty fragments are dropped", () => {
    assert.deepEqual(parseHeadline(`plain text${fragment}   `), [{ text: "plain text", matches: [] }]);
  });
});
