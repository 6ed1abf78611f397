/** Trust states between the store's enum and the names MCP callers read. */
import { storeV1 } from "@context-hub/proto";

export const trustStates = ["unverified", "verified", "quarantined", "rejected"] as const;
export type TrustStateName = (typeof trustStates)[number];

/**
 * A trust state as callers read it. An entry read through a path that does
 * not report its state yet shows `unverified`, the state that promises
 * nothing.
 */
export function fromProtoTrustState(state: storeV1.TrustState): TrustStateName {
  switch (state) {
    case storeV1.TrustState.VERIFIED:
      return "verified";
    case storeV1.TrustState.QUARANTINED:
      return "quarantined";
    case storeV1.TrustState.REJECTED:
      return "rejected";
    case storeV1.TrustState.UNVERIFIED:
    case storeV1.TrustState.UNSPECIFIED:
    // A state newer than this gateway knows promises nothing either.
    default:
      return "unverified";
  }
}

export function toProtoTrustState(state: TrustStateName): storeV1.TrustState {
  switch (state) {
    case "unverified":
      return storeV1.TrustState.UNVERIFIED;
    case "verified":
      return storeV1.TrustState.VERIFIED;
    case "quarantined":
      return storeV1.TrustState.QUARANTINED;
    case "rejected":
      return storeV1.TrustState.REJECTED;
  }
}

/** The trust fields every entry view carries. */
export function toTrustFields(entry: Pick<storeV1.Entry, "trustState" | "trustReasons">) {
  return { trust_state: fromProtoTrustState(entry.trustState), trust_reasons: entry.trustReasons };
}
