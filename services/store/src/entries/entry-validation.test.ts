import { test } from "node:test";
import assert from "node:assert/strict";
import { contentHash, isContextHubError } from "@context-hub/common";
import { validateEntryChange, validateGenerated, validateNewEntry, validatePage } from "./entry-validation.js";
import { normaliseTags } from "../model/field-validation.js";
import type { EntryUpdateInput, NewEntryInput } from "../model/entry-model.js";

const entry: NewEntryInput = {
  threadId: "t",
  source: "user",
  text: "Some text",
  metadata: undefined,
  tags: [],
  images: [],
  visibility: undefined,
};

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const bytesOf = (text: string) => new TextEncoder().encode(text);

function rejects(fn: () => unknown, message: RegExp): void {
  assert.throws(
    fn,
    (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT" && message.test(error.message),
  );
}

test("a valid entry is normalised: hash computed, tags trimmed, lowercased and de-duplicated, visibility left to the store", () => {
  const write = validateNewEntry({
    ...entry,
    tags: [" Ops ", "ops", "DB"],
    images: [{ mimeType: "Image/PNG", data: new Uint8Array([...pngSignature, 1]) }],
  });
  assert.equal(write.contentHash, contentHash("Some text"));
  assert.deepEqual(write.tags, ["ops", "db"]);
  assert.equal(
    write.visibility,
    undefined,
    "unspecified: private, or shared in a thread the caller shared (decided in the transaction)",
  );
  assert.equal(write.contentType, "multimodal");
  assert.equal(write.images[0]?.mimeType, "image/png");
  assert.equal(write.images[0]?.sha256, "275f1bcbbb585c71e3b2184304eccfa0e37de92022ca3b6f4e9c10df32318d85");
  assert.deepEqual(write.metadata, {});
});

test("the text is stored as given: no trimming, so the hash matches what the caller hashed", () => {
  const write = validateNewEntry({ ...entry, text: "  padded\n" });
  assert.equal(write.text, "  padded\n");
  assert.equal(write.contentHash, contentHash("  padded\n"));
});

test("an image's bytes must be of the type it declares: each stored type is recognised, anything else is refused by position", () => {
  const images = {
    "image/png": new Uint8Array([...pngSignature, 0, 0, 0, 13]),
    "image/jpeg": new Uint8Array([0xff, 0xd8, 0xff, 0xdb, 0, 0x43]),
    "image/gif": bytesOf("GIF89a\u0001\u0000"),
    "image/webp": bytesOf("RIFF\u0024\u0000\u0000\u0000WEBPVP8 "),
  };
  for (const [mimeType, data] of Object.entries(images)) {
    assert.equal(validateNewEntry({ ...entry, images: [{ mimeType, data }] }).images[0]?.mimeType, mimeType);
    for (const [other, otherData] of Object.entries(images)) {
      if (other === mimeType) continue;
      rejects(
        () => validateNewEntry({ ...entry, images: [{ mimeType, data: otherData }] }),
        new RegExp(`^images\\[0\\] is declared ${mimeType} but its bytes are ${other}$`),
      );
    }
  }
  const hostile: [string, Uint8Array, RegExp][] = [
    [
      "SVG",
      bytesOf('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      /its bytes are SVG \(image\/svg\+xml\)/,
    ],
    [
      "SVG after a BOM, a prolog and a comment",
      bytesOf('\ufeff  <?xml version="1.0"?><!-- drawn by hand --><svg>'),
      /its bytes are SVG \(image\/svg\+xml\)/,
    ],
    ["HTML", bytesOf("<!doctype html><title>x</title>"), /its bytes are HTML/],
    ["PDF", bytesOf("%PDF-1.7\n"), /its bytes are PDF/],
    ["text", bytesOf("just some words"), /its bytes are text/],
    [
      "a truncated PNG signature",
      new Uint8Array(pngSignature.slice(0, 4)),
      /its bytes are unrecognised data \(first bytes 89 50 4e 47\)/,
    ],
    ["RIFF that is not WebP", bytesOf("RIFF\u0024\u0000\u0000\u0000WAVEfmt "), /its bytes are unrecognised data/],
  ];
  for (const [, data, detected] of hostile) {
    rejects(
      () =>
        validateNewEntry({
          ...entry,
          images: [
            { mimeType: "image/png", data: images["image/png"] },
            { mimeType: "image/png", data },
          ],
        }),
      /^images\[1\] is declared image\/png but/,
    );
    rejects(() => validateNewEntry({ ...entry, images: [{ mimeType: "image/png", data }] }), detected);
  }
  rejects(
    () => validateNewEntry({ ...entry, images: [{ mimeType: "image/svg+xml", data: hostile[0]![1] }] }),
    /images\[0\]\.mime_type "image\/svg\+xml" is not a stored image type; use one of image\/png, image\/jpeg, image\/gif, image\/webp/,
  );
  rejects(
    () =>
      validateEntryChange(
        {
          id: "0190c2a4",
          expectedVersion: undefined,
          text: undefined,
          metadata: undefined,
          tags: undefined,
          images: [{ mimeType: "image/jpeg", data: hostile[0]![1] }],
          visibility: undefined,
          generated: undefined,
        },
        "updates[3]",
      ),
    /^updates\[3\]\.images\[0\] is declared image\/jpeg but its bytes are SVG/,
  );
});

test("tags over the limits are refused", () => {
  rejects(
    () =>
      normaliseTags(
        Array.from({ length: 51 }, (_, index) => String(index)),
        "tags",
      ),
    /at most 50/,
  );
  rejects(() => normaliseTags(["a".repeat(101)], "tags"), /tags\[0\] is 101 characters/);
});

test("generated output must fit the text it was made for", () => {
  const generated = {
    embeddingModel: "m",
    embeddingDimension: 2,
    summary: "",
    nodeSummaries: [],
    chunks: [{ ordinal: 0, span: { start: 0, end: 9 }, vector: [1, 2] }],
    textHash: "",
  };
  assert.equal(validateGenerated(generated, "Some text").chunks.length, 1);
  rejects(() => validateGenerated(generated, "Short"), /span \[0, 9\) does not lie inside the text \(length 5\)/);
  rejects(
    () =>
      validateGenerated(
        { ...generated, chunks: [{ ordinal: 0, span: { start: 0, end: 2 }, vector: [1, Infinity] }] },
        "Some text",
      ),
    /not a finite number/,
  );
  assert.equal(
    validateGenerated({ ...generated, embeddingModel: "", embeddingDimension: 0, chunks: [] }, "x").chunks.length,
    0,
    "no chunks, no model needed",
  );
});

test("generated.text_hash, when given, must be the hash of the text being written", () => {
  const generated = {
    embeddingModel: "",
    embeddingDimension: 0,
    summary: "",
    nodeSummaries: [],
    chunks: [],
    textHash: contentHash("Some text"),
  };
  assert.equal(validateGenerated(generated, "Some text").chunks.length, 0);
  rejects(
    () => validateGenerated(generated, "Other text"),
    /generated\.text_hash does not match the text: the output was generated for other text/,
  );
  rejects(
    () => validateGenerated({ ...generated, textHash: "" }, "Some text", "updates[1].generated", true),
    /updates\[1\]\.generated\.text_hash is required/,
  );
});

test("an update item: absent fields stay, a new text needs its own generation output, generation output needs a text", () => {
  const update: EntryUpdateInput = {
    id: "0190c2a4",
    expectedVersion: undefined,
    text: undefined,
    metadata: undefined,
    tags: undefined,
    images: undefined,
    visibility: undefined,
    generated: undefined,
  };
  const plain = validateEntryChange(update, "updates[0]");
  assert.deepEqual(
    [plain.text, plain.metadata, plain.tags, plain.images, plain.visibility, plain.generated],
    [undefined, undefined, undefined, undefined, undefined, undefined],
  );
  assert.deepEqual(validateEntryChange({ ...update, tags: [" A ", "a"] }, "updates[0]").tags, ["a"]);
  assert.deepEqual(
    validateEntryChange({ ...update, images: [] }, "updates[0]").images,
    [],
    "an empty image list removes the images",
  );
  const generated = {
    embeddingModel: "",
    embeddingDimension: 0,
    summary: "s",
    nodeSummaries: [],
    chunks: [],
    textHash: contentHash("new"),
  };
  assert.equal(validateEntryChange({ ...update, text: "new", generated }, "updates[0]").generated?.summary, "s");
  rejects(
    () => validateEntryChange({ ...update, generated }, "updates[2]"),
    /updates\[2\]\.generated is only accepted together with a new text/,
  );
  rejects(
    () => validateEntryChange({ ...update, text: "other", generated }, "updates[2]"),
    /updates\[2\]\.generated\.text_hash does not match/,
  );
  rejects(() => validateEntryChange({ ...update, text: " " }, "updates[2]"), /updates\[2\]\.text must not be empty/);
  rejects(
    () => validateEntryChange({ ...update, expectedVersion: 0 }, "updates[2]"),
    /updates\[2\]\.expected_version must be at least 1/,
  );
  rejects(
    () => validateEntryChange({ ...update, id: "xyz" }, "updates[2]"),
    /updates\[2\]\.id "xyz" is not an entry id/,
  );
});

test("a listing page defaults to 20 and is bounded", () => {
  assert.deepEqual(validatePage(0, 0), { limit: 20, offset: 0 });
  assert.deepEqual(validatePage(100, 10_000), { limit: 100, offset: 10_000 });
  rejects(() => validatePage(101, 0), /limit must be 1 to 100/);
  rejects(() => validatePage(10, 10_001), /offset must be at most 10000/);
});

test("a valid-time interval must run forwards; either end may be open", () => {
  const entry = {
    threadId: "t",
    source: "user" as const,
    text: "x",
    metadata: undefined,
    tags: [],
    images: [],
    visibility: undefined,
  };
  const from = new Date("2026-01-01T00:00:00Z");
  const to = new Date("2026-02-01T00:00:00Z");
  assert.deepEqual(validateNewEntry({ ...entry, validFrom: from, validTo: to }).validity, {
    validFrom: from,
    validTo: to,
  });
  assert.deepEqual(validateNewEntry({ ...entry, validFrom: from }).validity, { validFrom: from, validTo: undefined });
  assert.deepEqual(validateNewEntry(entry).validity, { validFrom: undefined, validTo: undefined });
  rejects(
    () => validateNewEntry({ ...entry, validFrom: to, validTo: from }),
    /valid_from \(2026-02-01T00:00:00\.000Z\) must be before valid_to/,
  );
  rejects(
    () => validateNewEntry({ ...entry, validFrom: from, validTo: from }),
    /valid_from .* must be before valid_to/,
  );
  rejects(() => validateNewEntry({ ...entry, validTo: new Date(Number.NaN) }), /valid_to is not a valid time/);
  const update = {
    id: "0190a4f8-7b1c-7e3a-9c4d-5e6f7a8b9c0d",
    expectedVersion: undefined,
    text: undefined,
    metadata: undefined,
    tags: undefined,
    images: undefined,
    visibility: undefined,
    generated: undefined,
  };
  rejects(
    () => validateEntryChange({ ...update, validity: { validFrom: to, validTo: from } }, "updates[1]"),
    /updates\[1\]\.validity\.valid_from .* must be before updates\[1\]\.validity\.valid_to/,
  );
  assert.deepEqual(
    validateEntryChange({ ...update, validity: { validFrom: undefined, validTo: to } }, "updates[1]").validity,
    { validFrom: undefined, validTo: to },
  );
});

/** `{"k":{"k":…1…}}`, `levels` objects deep, built without recursion. */
function nested(levels: number): Record<string, never> {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = { k: value };
  return value as Record<string, never>;
}

test("metadata deeper than 32 levels is refused by name, at any depth, without exhausting the stack", () => {
  assert.deepEqual(validateNewEntry({ ...entry, metadata: nested(32) }).metadata, nested(32));
  rejects(
    () => validateNewEntry({ ...entry, metadata: nested(33) }),
    /^metadata nests objects and arrays deeper than 32 levels/,
  );
  rejects(
    () => validateNewEntry({ ...entry, metadata: { list: [[[nested(30)]]] } }),
    /^metadata nests .* deeper than 32 levels/,
  );
  rejects(() => validateNewEntry({ ...entry, metadata: nested(200_000) }), /^metadata nests .* deeper than 32 levels/);
  const update: EntryUpdateInput = {
    id: "0190c2a4",
    expectedVersion: undefined,
    text: undefined,
    metadata: nested(50),
    tags: undefined,
    images: undefined,
    visibility: undefined,
    generated: undefined,
  };
  rejects(() => validateEntryChange(update, "updates[0]"), /^updates\[0\]\.metadata nests .* deeper than 32 levels/);
});

test("metadata keys that reach a JavaScript prototype are refused", () => {
  rejects(
    () => validateNewEntry({ ...entry, metadata: JSON.parse('{"a":{"__proto__":{"x":1}}}') as never }),
    /^metadata must not use the key "__proto__"/,
  );
  rejects(
    () => validateNewEntry({ ...entry, metadata: { constructor: null } }),
    /^metadata must not use the key "constructor"/,
  );
});
