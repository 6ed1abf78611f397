// The gateway's store_context schema and the store's own validation hold a write to the same limits: each value at a limit passes both, one past it fails both.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { entryLimits, isContextHubError } from "@context-hub/common";
import { storeContextInput, toolInputLimits } from "@context-hub/gateway/testing";
import { storeWriteLimits, validateNewEntry } from "@context-hub/store/testing";

/** A write in the shape both sides take, with one field varied. */
interface Write {
  threadId: string;
  text: string;
  tags: string[];
  metadata: JsonObject;
  images: Uint8Array[];
  title?: string;
}

const plain: Write = { threadId: "t", text: "hello", tags: [], metadata: {}, images: [] };

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52];

/** `size` bytes that begin like a PNG file, which both sides check the declared type against. */
function png(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set(pngSignature.slice(0, size));
  return bytes;
}

function gatewayProblem(write: Write): string | undefined {
  const result = storeContextInput.safeParse({
    thread_id: write.threadId,
    source: "user",
    text: write.text,
    tags: write.tags,
    metadata: write.metadata,
    images: write.images.map((image) => ({ data: Buffer.from(image).toString("base64"), mime_type: "image/png" })),
    ...(write.title === undefined ? {} : { title: write.title }),
  });
  return result.success ? undefined : result.error.issues.map((issue) => issue.message).join("; ");
}

function storeProblem(write: Write): string | undefined {
  try {
    validateNewEntry({
      threadId: write.threadId,
      source: "user",
      text: write.text,
      tags: write.tags,
      metadata: write.metadata,
      images: write.images.map((data) => ({ mimeType: "image/png", data })),
      visibility: undefined,
      title: write.title,
    });
    return undefined;
  } catch (error) {
    if (isContextHubError(error) && error.code === "INVALID_ARGUMENT") return error.message;
    throw error;
  }
}

/** Metadata whose JSON is exactly `bytes` long: {"k":"xxx…"}. */
function metadataOfBytes(bytes: number): JsonObject {
  return { k: "x".repeat(bytes - '{"k":""}'.length) };
}

/** Metadata nested `depth` levels deep, the object itself being level 1. */
function metadataOfDepth(depth: number): JsonObject {
  let value: JsonObject = {};
  for (let level = 1; level < depth; level += 1) value = { a: value };
  return value;
}

interface Boundary {
  name: string;
  /** The write at the limit, and the write one past it. */
  at: Write;
  past: Write;
}

const boundaries: Boundary[] = [
  {
    name: "thread id length",
    at: { ...plain, threadId: "t".repeat(entryLimits.threadIdChars) },
    past: { ...plain, threadId: "t".repeat(entryLimits.threadIdChars + 1) },
  },
  {
    name: "text length",
    at: { ...plain, text: "x".repeat(entryLimits.textChars) },
    past: { ...plain, text: "x".repeat(entryLimits.textChars + 1) },
  },
  {
    name: "tags per entry",
    at: { ...plain, tags: Array.from({ length: entryLimits.tags }, (_, index) => `tag${index}`) },
    past: { ...plain, tags: Array.from({ length: entryLimits.tags + 1 }, (_, index) => `tag${index}`) },
  },
  {
    name: "tag length",
    at: { ...plain, tags: ["g".repeat(entryLimits.tagChars)] },
    past: { ...plain, tags: ["g".repeat(entryLimits.tagChars + 1)] },
  },
  {
    name: "metadata size",
    at: { ...plain, metadata: metadataOfBytes(entryLimits.metadataBytes) },
    past: { ...plain, metadata: metadataOfBytes(entryLimits.metadataBytes + 1) },
  },
  {
    name: "metadata depth",
    at: { ...plain, metadata: metadataOfDepth(entryLimits.metadataDepth) },
    past: { ...plain, metadata: metadataOfDepth(entryLimits.metadataDepth + 1) },
  },
  {
    name: "metadata key length",
    at: { ...plain, metadata: { ["k".repeat(entryLimits.metadataKeyChars)]: 1 } },
    past: { ...plain, metadata: { ["k".repeat(entryLimits.metadataKeyChars + 1)]: 1 } },
  },
  {
    name: "images per entry",
    at: { ...plain, images: Array.from({ length: entryLimits.images }, () => png(64)) },
    past: { ...plain, images: Array.from({ length: entryLimits.images + 1 }, () => png(64)) },
  },
  {
    name: "title length",
    at: { ...plain, title: "T".repeat(entryLimits.titleChars) },
    past: { ...plain, title: "T".repeat(entryLimits.titleChars + 1) },
  },
  {
    name: "image size",
    at: { ...plain, images: [png(entryLimits.imageBytes)] },
    past: { ...plain, images: [png(entryLimits.imageBytes + 1)] },
  },
];

describe("write limits: gateway and store agree", () => {
  test("both sides take their limits from the shared module", () => {
    assert.equal(toolInputLimits.metadataKeyChars, entryLimits.metadataKeyChars);
    assert.equal(storeWriteLimits.metadataKeyLength, entryLimits.metadataKeyChars);
    // The documented key length (docs/gateway.md): 128, on stored metadata and in metadata filters alike.
    assert.equal(entryLimits.metadataKeyChars, 128);
  });

  test("a plain write passes both", () => {
    assert.equal(gatewayProblem(plain), undefined);
    assert.equal(storeProblem(plain), undefined);
  });

  for (const boundary of boundaries) {
    test(`${boundary.name}: at the limit passes both, one past it fails both`, () => {
      assert.equal(gatewayProblem(boundary.at), undefined, `the gateway refuses the ${boundary.name} at the limit`);
      assert.equal(storeProblem(boundary.at), undefined, `the store refuses the ${boundary.name} at the limit`);
      assert.notEqual(
        gatewayProblem(boundary.past),
        undefined,
        `the gateway accepts the ${boundary.name} one past the limit`,
      );
      assert.notEqual(
        storeProblem(boundary.past),
        undefined,
        `the store accepts the ${boundary.name} one past the limit`,
      );
    });
  }

  test("an empty metadata key fails both", () => {
    const write = { ...plain, metadata: { "": 1 } };
    assert.match(gatewayProblem(write) ?? "", /metadata keys must be 1 to 128 characters/);
    assert.match(storeProblem(write) ?? "", /metadata keys must be 1 to 128 characters/);
  });

  test("the store names the limit a too-long metadata key breaks", () => {
    assert.equal(
      storeProblem({ ...plain, metadata: { ["k".repeat(129)]: 1 } }),
      "metadata keys must be 1 to 128 characters (got one of 129)",
    );
  });
});
