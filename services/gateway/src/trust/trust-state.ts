/** Trust states as MCP callers read them. */
import type { TrustStateName } from "@context-hub/common";

export type { TrustStateName } from "@context-hub/common";

export const trustStates = [
  "unverified",
  "verified",
  "quarantined",
  "rejected",
] as const satisfies readonly TrustStateName[];

// Temporary: the search tools still convert their replies themselves; this goes once they call a search client.
export { fromProtoTrustState } from "../clients/proto-enums.js";
