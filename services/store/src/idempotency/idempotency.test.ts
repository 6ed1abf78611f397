import { test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { idempotencyStateOf, validateIdempotency } from "./idempotency.js";

const recorded = { rpc: "Commit", fingerprint: "f1", response: new Uint8Array([1]) };

test("a key is new, a replay (same fingerprint and RPC) or a conflict", () => {
  assert.equal(idempotencyStateOf(undefined, "f1", "Commit"), "new");
  assert.equal(idempotencyStateOf(recorded, "f1", "Commit"), "replay");
  assert.equal(idempotencyStateOf(recorded, "f2", "Commit"), "conflict");
  assert.equal(
    idempotencyStateOf(recorded, "f1", "UpdateEntries"),
    "conflict",
    "a key cannot be replayed into another RPC",
  );
  assert.equal(
    idempotencyStateOf(recorded, "f1", undefined),
    "replay",
    "CheckIdempotency knows no RPC and compares fingerprints",
  );
});

test("keys are 1 to 200 characters, fingerprints 1 to 256; absent means no key", () => {
  assert.equal(validateIdempotency(undefined, "Commit"), undefined);
  assert.deepEqual(validateIdempotency({ key: "k".repeat(200), fingerprint: "f" }, "Share"), {
    key: "k".repeat(200),
    fingerprint: "f",
    rpc: "Share",
  });
  const invalid = (key: string, fingerprint: string, message: RegExp) =>
    assert.throws(
      () => validateIdempotency({ key, fingerprint }, "Commit"),
      (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT" && message.test(error.message),
    );
  invalid("", "f", /idempotency\.key must be 1 to 200 characters \(got 0\)/);
  invalid("k".repeat(201), "f", /idempotency\.key must be 1 to 200 characters \(got 201\)/);
  invalid("k", "", /idempotency\.fingerprint must be 1 to 256 characters/);
  invalid("k\u0000", "f", /must not contain NUL/);
});
