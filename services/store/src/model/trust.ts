/**
 * Trust states and their transitions: what state a write leaves an entry
 * in, and what a review may change. Pure: the screen's findings and the
 * writer come in, a state and its reasons go out. No transport or SQL here.
 *
 * - `verified`: source `user` written by a person (a principal that is not
 *   in the `agents` group), or approved by a reviewer;
 * - `unverified`: everything else that the screen passes;
 * - `quarantined`: the screen found instruction-shaped content;
 * - `rejected`: a reviewer rejected it. Only a reviewer's approval ends it.
 */
import { ContextHubError } from "@context-hub/common";
import { toReason, type ScreenField, type ScreenFinding } from "../screen/instruction-screen.js";
import type { Principal } from "./principal.js";

export type TrustState = "unverified" | "verified" | "quarantined" | "rejected";

export const trustStates: readonly TrustState[] = ["unverified", "verified", "quarantined", "rejected"];

/**
 * The states in which an entry waits for a reviewer, whoever owns it: the
 * screen quarantined it, or a reviewer rejected it (only a review ends that).
 * A reviewer may find, read and judge an entry in another state only when
 * they may read it anyway.
 */
export const reviewOpenStates: readonly TrustState[] = ["quarantined", "rejected"];

/** A principal in this group is an agent: its `user` writes are not taken as a person's own words. */
export const agentGroup = "agents";

/** Whether the principal is marked as an agent (member of the `agents` group). */
export function isAgentPrincipal(principal: Pick<Principal, "groups">): boolean {
  return principal.groups.includes(agentGroup);
}

/** An entry's trust: its state and the screen's findings (`<field>:<rule>`) behind it. */
export interface Trust {
  state: TrustState;
  reasons: string[];
}

/** The state an unflagged write earns: verified for a person's own words through a person's credential, else unverified. */
function earnedState(source: "user" | "agent", writer: Pick<Principal, "groups">): TrustState {
  return source === "user" && !isAgentPrincipal(writer) ? "verified" : "unverified";
}

/** The trust of a new entry: quarantined when the screen found anything, else what its source and writer earn. */
export function initialTrust(
  source: "user" | "agent",
  writer: Pick<Principal, "groups">,
  findings: readonly ScreenFinding[],
): Trust {
  const reasons = findings.map(toReason);
  return { state: reasons.length > 0 ? "quarantined" : earnedState(source, writer), reasons };
}

/** What a change re-screened: the findings for each field it replaced (fields it left alone are absent). */
export type RescreenedFields = Partial<Record<ScreenField, readonly ScreenFinding[]>>;

/**
 * The trust of an entry after a change by `writer`. The stored findings of
 * fields the change left alone are kept; those of replaced fields are
 * replaced by the new screen. Then:
 * - a rejected entry stays rejected (a review is undone only by a review);
 * - any finding quarantines it;
 * - a new text, or a quarantined entry whose findings are gone, gets the
 *   state the source and this writer earn (so an agent's edit of a verified
 *   note makes it unverified);
 * - otherwise (metadata or tags changed, nothing found) the state stays.
 */
export function trustAfterChange(
  current: Trust,
  source: "user" | "agent",
  writer: Pick<Principal, "groups">,
  rescreened: RescreenedFields,
  textChanged: boolean,
): Trust {
  const replaced = new Set(Object.keys(rescreened));
  const kept = current.reasons.filter((reason) => !replaced.has(reason.slice(0, reason.indexOf(":"))));
  const fresh = Object.values(rescreened).flatMap((findings) => (findings ?? []).map(toReason));
  const reasons = [...new Set([...kept, ...fresh])].sort();
  if (current.state === "rejected") return { state: "rejected", reasons };
  if (reasons.length > 0) return { state: "quarantined", reasons };
  if (textChanged || current.state === "quarantined") return { state: earnedState(source, writer), reasons };
  return { state: current.state, reasons };
}

export type ReviewDecision = "approve" | "reject";

/**
 * The state a review moves an entry to: approve → verified, reject →
 * rejected. Nobody approves an entry they own or whose current version they
 * wrote (PERMISSION_DENIED); rejecting one's own entry is allowed.
 */
export function reviewedState(
  entry: { id: string; owner: string; updatedBy: string },
  decision: ReviewDecision,
  reviewer: Pick<Principal, "subject">,
): TrustState {
  if (decision === "reject") return "rejected";
  if (entry.owner === reviewer.subject || entry.updatedBy === reviewer.subject) {
    throw new ContextHubError("PERMISSION_DENIED", `you may not approve entry ${entry.id}: you wrote it`, {
      remedy: "ask another reviewer of your organisation to approve it",
    });
  }
  return "verified";
}
