/**
 * The review of a quarantined (or rejected) handoff or session event, under
 * the entries' rules: `context:review`, nobody approves what they wrote (a
 * handoff's creator or last writer, an event's writer) nor an event of their
 * own session (its owner), only a record whose
 * trust waits for a reviewer is judged (any other the reviewer may see is
 * refused by name), a review of a version that has since changed is a
 * VERSION_CONFLICT (a handoff's version moves with each state change; a
 * session event, written once, is at version 1), and a record the reviewer
 * may not reach answers exactly as a missing one. The verdict, who gave it,
 * when and the note are stored with the record and audited in the tenant's
 * chain (`handoff.review`, `session_event.review`) in one transaction. No
 * transport or SQL here.
 */
import { ContextHubError } from "@context-hub/common";
import type { WorkflowReviewTarget } from "../model/review-ports.js";
import type { Principal } from "../model/principal.js";
import type { ReviewDecision, TrustState } from "../model/trust.js";
import type { WorkflowReviewScope } from "./workflow-review-repository.js";

/** What a review addresses besides an entry: a handoff by id, or one event of a session log. */
export type WorkflowTarget =
  | { type: "handoff"; id: string }
  | { type: "session_event"; sessionId: string; seq: number };

/** What a review of a handoff or a session event did. */
export interface WorkflowReviewOutcome {
  version: number;
  previousState: TrustState;
  state: TrustState;
  reviewedAt: Date;
  handoff?: { id: string; title: string } | undefined;
  sessionEvent?: { sessionId: string; seq: number; eventKind: string } | undefined;
}

/** How a workflow target is named in answers: as the reviewer wrote it. */
export function describeWorkflowTarget(target: WorkflowTarget): string {
  return target.type === "handoff"
    ? `handoff ${JSON.stringify(target.id)}`
    : `session event ${target.seq} of session ${JSON.stringify(target.sessionId)}`;
}

/** The answer for a missing record and a hidden one alike: it names only what the reviewer sent. */
export function workflowNotFound(target: WorkflowTarget): ContextHubError {
  return new ContextHubError("ENTRY_NOT_FOUND", `no ${describeWorkflowTarget(target)} that you can review`, {
    remedy: "list_review_queue lists what waits for a reviewer",
    details:
      target.type === "handoff" ? { handoff_id: target.id } : { session_id: target.sessionId, sequence: target.seq },
  });
}

function refuse(
  target: WorkflowTarget,
  found: WorkflowReviewTarget,
  expectedVersion: number,
  decision: ReviewDecision,
  caller: Principal,
) {
  const name = describeWorkflowTarget(target);
  if (!found.open)
    throw new ContextHubError(
      "PERMISSION_DENIED",
      `${name} is not waiting for a review: its trust state is ${found.trust.state}`,
      { remedy: "only quarantined or rejected handoffs and session events are reviewed" },
    );
  if (found.version !== expectedVersion)
    throw new ContextHubError(
      "VERSION_CONFLICT",
      `${name} is at version ${found.version}, not the expected ${expectedVersion}`,
      {
        remedy: `read version ${found.version} and review it (expected_version ${found.version})`,
        details: { current_version: found.version },
      },
    );
  if (decision === "approve" && found.writers.includes(caller.subject))
    throw new ContextHubError("PERMISSION_DENIED", `you may not approve ${name}: you wrote it`, {
      remedy: "ask another reviewer of your organisation to approve it",
    });
  if (decision === "approve" && found.sessionOwner === caller.subject)
    throw new ContextHubError("PERMISSION_DENIED", `you may not approve ${name}: it is in your own session`, {
      remedy: "ask another reviewer of your organisation to approve it",
    });
}

/** Judges one handoff or session event inside `scope`'s transaction, audited there. */
export async function reviewWorkflowIn(
  scope: WorkflowReviewScope,
  caller: Principal,
  target: WorkflowTarget,
  decision: ReviewDecision,
  note: string,
  expectedVersion: number,
): Promise<WorkflowReviewOutcome> {
  const found =
    target.type === "handoff"
      ? await scope.lockHandoff(caller, target.id)
      : await scope.lockSessionEvent(caller, target.sessionId, target.seq);
  if (found === undefined) throw workflowNotFound(target);
  refuse(target, found, expectedVersion, decision, caller);
  const state: TrustState = decision === "approve" ? "verified" : "rejected";
  const details = {
    decision,
    previous_state: found.trust.state,
    trust_state: state,
    trust_reasons: found.trust.reasons,
    version: found.version,
    note,
  };
  if (target.type === "handoff") {
    const reviewedAt = await scope.applyHandoff(caller, target.id, found.version, state, note);
    scope.audit.record(caller.tenant, {
      actor: caller.subject,
      action: "handoff.review",
      outcome: "ok",
      targetIds: [target.id],
      beforeHashes: [found.contentHash],
      afterHashes: [found.contentHash],
      details,
    });
    const title = "title" in found ? String(found.title) : "";
    return {
      version: found.version,
      previousState: found.trust.state,
      state,
      reviewedAt,
      handoff: { id: target.id, title },
    };
  }
  const reviewedAt = await scope.applySessionEvent(caller, target.sessionId, target.seq, state, note);
  const eventKind = "eventKind" in found ? String(found.eventKind) : "";
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "session_event.review",
    outcome: "ok",
    targetIds: [target.sessionId],
    beforeHashes: [found.contentHash],
    afterHashes: [found.contentHash],
    details: { ...details, sequence: target.seq, event_kind: eventKind },
  });
  return {
    version: found.version,
    previousState: found.trust.state,
    state,
    reviewedAt,
    sessionEvent: { sessionId: target.sessionId, seq: target.seq, eventKind },
  };
}
