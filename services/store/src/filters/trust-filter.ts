/**
 * The trust filter every search and fetch composes beside the access
 * predicate: quarantined and rejected entries are left out unless the caller
 * asks for them (`include_quarantined`). Like the access predicate, it is
 * SQL in the query's WHERE, applied before any ORDER BY or LIMIT.
 */
import type { TrustState } from "../model/trust.js";

/** The states a search or fetch returns by default. */
export const defaultReadableTrustStates: readonly TrustState[] = ["unverified", "verified"];

const aliasPattern = /^[a-z_][a-z0-9_]{0,30}$/;

/**
 * A SQL boolean over the `entries` row aliased `alias` (or any row with a
 * `trust_state` column): true for unverified and verified entries, and for
 * every entry when `includeQuarantined` is set. Takes no parameters: the
 * states are constants of this module. `alias` must be a plain identifier.
 */
export function trustFilter(alias: string, includeQuarantined: boolean): string {
  if (!aliasPattern.test(alias))
    throw new Error(`trust filter alias ${JSON.stringify(alias)} is not a plain identifier`);
  if (includeQuarantined) return "TRUE";
  return `${alias}.trust_state IN (${defaultReadableTrustStates.map((state) => `'${state}'`).join(", ")})`;
}
