import { test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { requirePrincipal } from "./principal.js";

test("a principal carrying the operator's name is refused before any work, whatever its scopes", () => {
  assert.throws(
    () =>
      requirePrincipal(
        { tenant: "acme", subject: "operator", groups: [], scopes: ["context:read", "context:admin"] },
        "context:read",
      ),
    (error: unknown) =>
      isContextHubError(error) && error.code === "UNAUTHENTICATED" && /"operator" is reserved/.test(error.message),
  );
  assert.equal(
    requirePrincipal({ tenant: "acme", subject: "operators", groups: [], scopes: ["context:read"] }, "context:read")
      .subject,
    "operators",
  );
});
