import { test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { validateApiKey, type ApiKeyInput } from "./api-keys.js";

const key: ApiKeyInput = {
  hint: "chk_abcdef",
  tenant: "acme",
  subject: "ci-bot",
  groups: ["ops", "ops"],
  scopes: ["context:read", "context:read"],
  description: "",
  expiresAt: undefined,
};

function rejects(input: ApiKeyInput, message: RegExp): void {
  assert.throws(
    () => validateApiKey(input, new Date("2030-01-01T00:00:00Z")),
    (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT" && message.test(error.message),
  );
}

test("a valid key is normalised: duplicate groups and scopes dropped", () => {
  const valid = validateApiKey(key);
  assert.deepEqual([valid.groups, valid.scopes], [["ops"], ["context:read"]]);
});

test("every bad field is refused naming it", () => {
  rejects({ ...key, tenant: "" }, /key\.tenant must be 1 to 256 characters \(got 0\)/);
  rejects({ ...key, subject: "s".repeat(257) }, /key\.subject must be 1 to 256 characters \(got 257\)/);
  rejects(
    { ...key, scopes: [] },
    /key\.scopes must name at least one of context:read, context:write, context:review, context:admin/,
  );
  rejects({ ...key, scopes: ["context:read", "root"] }, /key\.scopes\[1\] "root" is not a scope/);
  rejects({ ...key, groups: [""] }, /key\.groups\[0\] must be 1 to 256 characters/);
  rejects({ ...key, hint: "" }, /key\.hint must be 1 to 64 characters/);
  rejects({ ...key, description: "d".repeat(1001) }, /key\.description is 1001 characters; the limit is 1000/);
  rejects({ ...key, expiresAt: new Date("2029-12-31T23:59:59Z") }, /key\.expires_at must be in the future/);
});

test("the audit log's operator name cannot be a key's subject", () => {
  rejects(
    { ...key, subject: "operator" },
    /key\.subject "operator" is reserved: the audit log records operator actions under that name/,
  );
  rejects({ ...key, subject: "Operator" }, /key\.subject "Operator" is reserved/);
});
