import { test } from "node:test";
import assert from "node:assert/strict";
import { refusalOf } from "@context-hub/common/testing";
import {
  publicationNotFound,
  resourceNotFound,
  validatePublicationDescription,
  validatePublicationPage,
} from "./publication-model.js";

test("a description is trimmed, at most 500 characters and without NUL", () => {
  assert.equal(validatePublicationDescription("  on-call handbook \n"), "on-call handbook");
  assert.equal(validatePublicationDescription(""), "");
  assert.equal(validatePublicationDescription(` ${"d".repeat(500)} `).length, 500);
  assert.match(
    refusalOf(() => validatePublicationDescription("d".repeat(501))),
    /501 characters; the limit is 500/,
  );
  assert.match(
    refusalOf(() => validatePublicationDescription("a\u0000b")),
    /must not contain NUL/,
  );
});

test("a page holds 1 to 100 publications; 0 means 20", () => {
  assert.deepEqual(
    [0, 1, 100].map((limit) => validatePublicationPage(limit)),
    [20, 1, 100],
  );
  assert.match(
    refusalOf(() => validatePublicationPage(101)),
    /limit must be 1 to 100 \(got 101\)/,
  );
});

test("a resolve that finds nothing says the same for a URI whatever the cause, and quotes a long one cut", () => {
  const miss = resourceNotFound("docs://x");
  assert.deepEqual(
    [miss.code, miss.message, miss.remedy, miss.details],
    ["ENTRY_NOT_FOUND", 'no resource at "docs://x"', undefined, {}],
  );
  const long = resourceNotFound(`docs://${"x".repeat(5000)}`);
  assert.ok(long.message.length < 700 && long.message.endsWith("…"), long.message.slice(-20));
  assert.match(publicationNotFound("docs://{x}").message, /^you have published nothing at "docs:\/\/\{x\}"$/);
});
