import { test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "./errors.js";
import {
  isResourceUriTemplate,
  matchResourceUriTemplate,
  parseResourceUri,
  resourceUriMaxChars,
  type ParsedResourceUri,
} from "./resource-uri.js";

/** The message of the INVALID_ARGUMENT that parsing `uri` throws. */
function refusal(uri: string, field?: string): string {
  try {
    parseResourceUri(uri, field);
  } catch (error) {
    assert.ok(isContextHubError(error), String(error));
    assert.equal(error.code, "INVALID_ARGUMENT");
    return error.message;
  }
  assert.fail(`${JSON.stringify(uri)} was accepted`);
}

const match = (template: string, uri: string) => {
  const values = matchResourceUriTemplate(parseResourceUri(template), uri);
  return values === undefined ? undefined : Object.fromEntries(values);
};

test("a plain URI is one literal; a template splits into literals around its expressions", () => {
  const plain = parseResourceUri("docs://handbook/on-call");
  assert.deepEqual(
    [plain.literals, plain.variables, plain.literalChars, isResourceUriTemplate(plain)],
    [["docs://handbook/on-call"], [], 23, false],
  );
  const template: ParsedResourceUri = parseResourceUri("docs://{team}/pages/{page}");
  assert.deepEqual(
    [template.uri, template.literals, template.variables, template.literalChars, isResourceUriTemplate(template)],
    ["docs://{team}/pages/{page}", ["docs://", "/pages/", ""], ["team", "page"], 14, true],
  );
  assert.deepEqual(parseResourceUri("x:{_a1}").literals, ["x:", ""], "an expression right after the scheme");
  assert.equal(parseResourceUri(`d:${"a".repeat(resourceUriMaxChars - 2)}`).uri.length, resourceUriMaxChars);
  assert.equal(parseResourceUri("a+b.c-d:%20!$&'()*+,;=?@[]_~").variables.length, 0, "every printable it allows");
  assert.equal(parseResourceUri(`t:${Array.from({ length: 8 }, (_, i) => `{v${i}}`).join("/")}`).variables.length, 8);
});

test("each malformed URI is refused with a message that names the field and what is wrong", () => {
  const cases: [string, RegExp][] = [
    ["", /^uri must not be empty$/],
    [`d:${"a".repeat(resourceUriMaxChars - 1)}`, /^uri is 513 characters; the limit is 512$/],
    ["handbook/on-call", /^uri must be an absolute URI: a scheme/],
    ["1docs://x", /must be an absolute URI/],
    [":x", /must be an absolute URI/],
    ["{x}:y", /must be an absolute URI/],
    ["context-hub://entries/x", /uses the scheme context-hub:, which names entries themselves/],
    ["Context-Hub:x", /uses the scheme context-hub:/],
    ["docs:", /^uri has nothing after its scheme$/],
    ["docs://a b", /^uri has a space at character 9;.* percent-encode it$/],
    ["docs://a\u0001", /has the control character U\+0001 at character 9/],
    ["docs://a\u007f", /has the control character U\+007F at character 9/],
    ['docs://"', /has """ at character 8/],
    ["docs://é", /has "é" at character 8/],
    ["docs://a|b", /has "\|" at character 9/],
    ["docs://{1x}", /has "\{" at character 8 that does not open an expression \{name\}/],
    ["docs://{x", /has "\{" at character 8 that does not open an expression/],
    ["docs://{}", /does not open an expression/],
    ["docs://{x-y}", /does not open an expression/],
    ["docs://{+x}", /only simple expansion, RFC 6570 level 1, is supported/],
    [`docs://{${"a".repeat(65)}}`, /does not open an expression/],
    ["docs://x}", /has "\}" at character 9 that closes no expression/],
    ["docs://{a}{b}", /has the expressions \{a\} and \{b\} side by side; put a literal character between them/],
    ["docs://{a}/{a}", /uses the expression \{a\} twice/],
    [`t:${Array.from({ length: 9 }, (_, i) => `{v${i}}`).join("/")}`, /has more than 8 expressions/],
  ];
  for (const [uri, message] of cases) assert.match(refusal(uri), message, JSON.stringify(uri));
  assert.match(refusal("nope", "uri_template"), /^uri_template must be an absolute URI/, "the field is named");
});

test("a URI matches a template when it spells the literals with a value for each expression, percent-decoded", () => {
  assert.deepEqual(match("docs://{team}/{page}", "docs://eng/intro"), { team: "eng", page: "intro" });
  assert.deepEqual(match("docs://{t}", "docs://a%20b%E2%82%AC"), { t: "a b€" });
  assert.deepEqual(match("docs://{t}", "docs://a%2Fb%3F%23"), { t: "a/b?#" }, "encoded, they are a value's own");
  assert.deepEqual(match("docs://handbook", "docs://handbook"), {}, "a plain URI matches itself only");
  assert.equal(match("docs://handbook", "docs://handbook/"), undefined);
  assert.equal(match("docs://{t}", "DOCS://x"), undefined, "literals match exactly, case included");
  assert.equal(match("docs://{t}", "docs:/"), undefined);
  assert.equal(match("docs://{t}/x", "docs:///x"), undefined, "a value is never empty");
  assert.equal(match("docs://{t}", "docs://"), undefined);
  assert.equal(match("docs://{t}", "docs://a%zz"), undefined, "not valid percent-encoding");
  assert.equal(match("docs://{t}", "docs://%E2%82"), undefined, "a cut UTF-8 sequence");
});

test("a value holds no /, ? or #, so an expression stays inside its path segment", () => {
  assert.equal(match("docs://{t}", "docs://a/b"), undefined);
  assert.equal(match("docs://{t}", "docs://a?q=1"), undefined);
  assert.equal(match("docs://{t}", "docs://a#top"), undefined);
  assert.equal(match("docs://{team}/{page}", "docs://eng/a/b"), undefined);
  assert.deepEqual(match("docs://{team}/{page}?v=1", "docs://eng/a?v=1"), { team: "eng", page: "a" });
});

test("each value runs to the first place the next literal follows it; the last to where the final literal ends the URI", () => {
  assert.deepEqual(match("a:{x}-{y}", "a:1-2-3"), { x: "1", y: "2-3" }, "the first - ends x");
  assert.deepEqual(match("a:{x}-{y}.md", "a:1-2-3.md"), { x: "1", y: "2-3" }, "the last runs to the final literal");
  assert.deepEqual(
    match("a:{x}-{y}", "a:-1-2"),
    { x: "-1", y: "2" },
    "x is never empty, so its end is sought past one",
  );
  assert.deepEqual(match("a:{x}aa{y}", "a:aaaa"), { x: "a", y: "a" });
  assert.deepEqual(match("a:{x}aa", "a:aaaa"), { x: "aa" }, "the final literal is matched at the URI's end");
  assert.deepEqual(match("docs://{t}.md", "docs://a.md.md"), { t: "a.md" });
  assert.equal(match("docs://{t}.md", "docs://.md"), undefined, "an empty last value");
  assert.equal(match("docs://{t}.md", "docs://a.mdx"), undefined, "the final literal must end the URI");
  assert.equal(match("docs://{t}.md", "docs://md"), undefined, "shorter than the literals");
  assert.deepEqual(match("a:{x}/{y}.md", "a:b/c.md"), { x: "b", y: "c" });
  assert.equal(match("a:{x}/{y}", "a:b"), undefined, "a middle literal that never comes");
});
