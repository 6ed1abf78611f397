/**
 * The one set of conversions between the contracts' protobuf enums and the
 * names every service uses for them. Each service used to carry its own, and
 * they disagreed on values they did not know; now they all behave alike:
 *
 * - `…FromProto` maps the `UNSPECIFIED` value (0, also what an unset field
 *   reads as) to `undefined`, so the caller decides what "not said" means;
 * - a value this build does not know (a peer on a newer contract) is an
 *   INVALID_ARGUMENT naming the field, never silently read as some default:
 *   a guessed trust state or visibility could show or hide the wrong entries.
 * - `…ToProto` is total over the names.
 */
import { commonV1, storeV1 } from "@context-hub/proto";
import { invalidArgument } from "./errors.js";

export type SourceName = "user" | "agent";
export type VisibilityName = "private" | "shared" | "tenant";
export type TrustStateName = "unverified" | "verified" | "quarantined" | "rejected";
export type PermissionName = "read" | "write";
export type GranteeKindName = "subject" | "group";
export type ReviewDecisionName = "approve" | "reject";

const sourceValues: Record<SourceName, commonV1.Source> = { user: commonV1.Source.USER, agent: commonV1.Source.AGENT };
const visibilityValues: Record<VisibilityName, commonV1.Visibility> = {
  private: commonV1.Visibility.PRIVATE,
  shared: commonV1.Visibility.SHARED,
  tenant: commonV1.Visibility.TENANT,
};
const trustStateValues: Record<TrustStateName, storeV1.TrustState> = {
  unverified: storeV1.TrustState.UNVERIFIED,
  verified: storeV1.TrustState.VERIFIED,
  quarantined: storeV1.TrustState.QUARANTINED,
  rejected: storeV1.TrustState.REJECTED,
};
const permissionValues: Record<PermissionName, storeV1.Permission> = {
  read: storeV1.Permission.READ,
  write: storeV1.Permission.WRITE,
};
const granteeKindValues: Record<GranteeKindName, storeV1.GranteeKind> = {
  subject: storeV1.GranteeKind.SUBJECT,
  group: storeV1.GranteeKind.GROUP,
};
const reviewDecisionValues: Record<ReviewDecisionName, storeV1.ReviewDecision> = {
  approve: storeV1.ReviewDecision.APPROVE,
  reject: storeV1.ReviewDecision.REJECT,
};

/** The reverse of a name → value table, built once. */
function invert<N extends string, V extends number>(values: Record<N, V>): ReadonlyMap<number, N> {
  return new Map(Object.entries(values).map(([name, value]) => [value as number, name as N]));
}

/** A reader for one enum: 0 is "not said" (undefined); an unknown value is refused, naming the field. */
function reader<N extends string, V extends number>(
  values: Record<N, V>,
  kind: string,
): (value: V, field: string) => N | undefined {
  const names = invert(values);
  return (value, field) => {
    if (value === 0) return undefined;
    const name = names.get(value);
    if (name === undefined)
      throw invalidArgument(
        `${field} ${String(value)} is not a known ${kind}`,
        `send one of ${Object.keys(values).join(", ")} (or leave it unspecified)`,
      );
    return name;
  };
}

/** A source's name; undefined when unspecified; an unknown value is INVALID_ARGUMENT naming `field`. */
export const sourceFromProto = reader<SourceName, commonV1.Source>(sourceValues, "source");
/** A visibility's name; undefined when unspecified; an unknown value is INVALID_ARGUMENT naming `field`. */
export const visibilityFromProto = reader<VisibilityName, commonV1.Visibility>(visibilityValues, "visibility");
/** A trust state's name; undefined when unspecified; an unknown value is INVALID_ARGUMENT naming `field`. */
export const trustStateFromProto = reader<TrustStateName, storeV1.TrustState>(trustStateValues, "trust state");
/** A permission's name; undefined when unspecified; an unknown value is INVALID_ARGUMENT naming `field`. */
export const permissionFromProto = reader<PermissionName, storeV1.Permission>(permissionValues, "permission");
/** A grantee kind's name; undefined when unspecified; an unknown value is INVALID_ARGUMENT naming `field`. */
export const granteeKindFromProto = reader<GranteeKindName, storeV1.GranteeKind>(granteeKindValues, "grantee kind");
/** A review decision's name; undefined when unspecified; an unknown value is INVALID_ARGUMENT naming `field`. */
export const reviewDecisionFromProto = reader<ReviewDecisionName, storeV1.ReviewDecision>(
  reviewDecisionValues,
  "review decision",
);

/** The proto value of a source; undefined (let the receiver choose) is UNSPECIFIED. */
export const sourceToProto = (name: SourceName | undefined): commonV1.Source =>
  name === undefined ? commonV1.Source.UNSPECIFIED : sourceValues[name];
/** The proto value of a visibility; undefined (let the receiver choose) is UNSPECIFIED. */
export const visibilityToProto = (name: VisibilityName | undefined): commonV1.Visibility =>
  name === undefined ? commonV1.Visibility.UNSPECIFIED : visibilityValues[name];
/** The proto value of a trust state; undefined is UNSPECIFIED. */
export const trustStateToProto = (name: TrustStateName | undefined): storeV1.TrustState =>
  name === undefined ? storeV1.TrustState.UNSPECIFIED : trustStateValues[name];
/** The proto value of a permission; undefined is UNSPECIFIED. */
export const permissionToProto = (name: PermissionName | undefined): storeV1.Permission =>
  name === undefined ? storeV1.Permission.UNSPECIFIED : permissionValues[name];
/** The proto value of a grantee kind; undefined is UNSPECIFIED. */
export const granteeKindToProto = (name: GranteeKindName | undefined): storeV1.GranteeKind =>
  name === undefined ? storeV1.GranteeKind.UNSPECIFIED : granteeKindValues[name];
/** The proto value of a review decision; undefined is UNSPECIFIED. */
export const reviewDecisionToProto = (name: ReviewDecisionName | undefined): storeV1.ReviewDecision =>
  name === undefined ? storeV1.ReviewDecision.UNSPECIFIED : reviewDecisionValues[name];
