import { test } from "node:test";
import assert from "node:assert/strict";
import { commonV1, storeV1 } from "@context-hub/proto";
import { isContextHubError } from "./errors.js";
import {
  granteeKindFromProto,
  granteeKindToProto,
  permissionFromProto,
  permissionToProto,
  reviewDecisionFromProto,
  reviewDecisionToProto,
  sourceFromProto,
  sourceToProto,
  trustStateFromProto,
  trustStateToProto,
  visibilityFromProto,
  visibilityToProto,
} from "./proto-enums.js";

/** Every converter pair with the names it knows and the generated enum it mirrors. */
const pairs = [
  { kind: "source", names: ["user", "agent"], from: sourceFromProto, to: sourceToProto, generated: commonV1.Source },
  {
    kind: "visibility",
    names: ["private", "shared", "tenant"],
    from: visibilityFromProto,
    to: visibilityToProto,
    generated: commonV1.Visibility,
  },
  {
    kind: "trust state",
    names: ["unverified", "verified", "quarantined", "rejected"],
    from: trustStateFromProto,
    to: trustStateToProto,
    generated: storeV1.TrustState,
  },
  {
    kind: "permission",
    names: ["read", "write"],
    from: permissionFromProto,
    to: permissionToProto,
    generated: storeV1.Permission,
  },
  {
    kind: "grantee kind",
    names: ["subject", "group"],
    from: granteeKindFromProto,
    to: granteeKindToProto,
    generated: storeV1.GranteeKind,
  },
  {
    kind: "review decision",
    names: ["approve", "reject"],
    from: reviewDecisionFromProto,
    to: reviewDecisionToProto,
    generated: storeV1.ReviewDecision,
  },
] as const;

for (const pair of pairs) {
  const from = pair.from as (value: number, field: string) => string | undefined;
  const to = pair.to as (name: string | undefined) => number;

  test(`every ${pair.kind} name goes to proto and back unchanged, and covers every value the contract defines`, () => {
    const values = pair.names.map((name) => to(name));
    assert.deepEqual(
      pair.names.map((name) => from(to(name), "field")),
      pair.names,
    );
    const defined = Object.values(pair.generated).filter(
      (value): value is number => typeof value === "number" && value !== 0,
    );
    assert.deepEqual([...values].sort(), [...defined].sort(), "a value added to the contract needs a name here");
  });

  test(`an unspecified ${pair.kind} reads as undefined and undefined writes as unspecified`, () => {
    assert.equal(from(0, "field"), undefined);
    assert.equal(to(undefined), 0);
  });

  test(`an unknown ${pair.kind} value is INVALID_ARGUMENT naming the field and the value`, () => {
    assert.throws(
      () => from(99, "items[2].field"),
      (error: unknown) =>
        isContextHubError(error) &&
        error.code === "INVALID_ARGUMENT" &&
        error.message === `items[2].field 99 is not a known ${pair.kind}`,
    );
  });
}
