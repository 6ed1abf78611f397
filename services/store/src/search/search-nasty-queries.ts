/**
 * Full-text queries that break naive query builders: quotes, operators,
 * unbalanced syntax, SQL fragments, control, combining and astral
 * characters. Not used at run time: it is the one list the store's unit
 * tests (search-text-query.test.ts) and the retrieval integration suites
 * (test/src/retrieval) feed to every query mode, kept here so that the store
 * needs nothing from the test workspace. docs/retrieval.md names what it
 * covers.
 */
export const nastyQueries: readonly string[] = [
  "'",
  "''",
  '"',
  '"unbalanced',
  "a & | ! b",
  "foo:*",
  "!!!",
  "(((",
  ")",
  "<->",
  "<2>",
  "a <-> b",
  "-",
  "--",
  "- - -",
  "state-of-the-art",
  "x-",
  "-x",
  "OR",
  "AND OR NOT",
  "\\",
  "\\'",
  "';DROP TABLE entries;--",
  "$1",
  "%",
  "_",
  "*",
  ":*",
  "a:*:*",
  "@@",
  "🙂 emoji 🚀",
  "e\u0301clair",
  "\u200b",
  "\t\n\r",
  "the and of",
  "x".repeat(1000),
  "日本語のテキスト",
  "Ünïcödé ß",
  "a'b\"c",
  "1.2.3",
  "user@example.com",
  "/usr/bin",
  "C++ && C#",
];
