/**
 * The gateway's readings of the contracts' enums, on the shared converters of
 * @context-hub/common: what an unspecified value means to an MCP caller. An
 * unknown value (a store on a newer contract) is refused by the shared
 * converter rather than shown as a guess.
 */
import type { commonV1, storeV1 } from "@context-hub/proto";
import {
  sourceFromProto,
  sourceToProto,
  trustStateFromProto,
  visibilityFromProto,
  visibilityToProto,
  type SourceName as Source,
  type TrustStateName,
  type VisibilityName as Visibility,
} from "@context-hub/common";

/** A source as callers read it; an entry without one reads as written by an agent. */
export const fromProtoSource = (source: commonV1.Source): Source => sourceFromProto(source, "source") ?? "agent";

/** A visibility as callers read it; unspecified reads as private, the state that shows nothing to others. */
export const fromProtoVisibility = (visibility: commonV1.Visibility): Visibility =>
  visibilityFromProto(visibility, "visibility") ?? "private";

/**
 * A trust state as callers read it. An entry read through a path that does
 * not report its state yet shows `unverified`, the state that promises
 * nothing.
 */
export const fromProtoTrustState = (state: storeV1.TrustState): TrustStateName =>
  trustStateFromProto(state, "trust_state") ?? "unverified";

export const toProtoSource = (source: Source): commonV1.Source => sourceToProto(source);

/** Undefined lets the store choose (UNSPECIFIED). */
export const toProtoVisibility = (visibility: Visibility | undefined): commonV1.Visibility =>
  visibilityToProto(visibility);

/** The trust fields every entry view carries. */
export function toTrustFields(entry: Pick<storeV1.Entry, "trustState" | "trustReasons">) {
  return { trust_state: fromProtoTrustState(entry.trustState), trust_reasons: entry.trustReasons };
}

/** The trust fields of a memory's views: screened, and reviewed when quarantined, so any of the four states. */
export function toMemoryTrustFields(record: { trustState: storeV1.TrustState; trustReasons: string[] }) {
  return { trust_state: fromProtoTrustState(record.trustState), trust_reasons: record.trustReasons };
}

/** The trust fields of handoffs' and session events' views: screened, and reviewed when quarantined, as memories are. */
export const toWorkflowTrustFields = toMemoryTrustFields;
