/**
 * Human review: reviewers (scope `context:review`) see the entries of their
 * tenant that wait for a person — quarantined ones and those a reviewer
 * rejected, whoever wrote them, and the unverified ones they may read — and
 * approve (verified) or reject (rejected) them with a note. Any other entry
 * is, to review, exactly a missing id (the access predicate's review mode).
 * A review judges one version: it is refused when the entry changed since
 * the reviewer read it, and nobody approves what they wrote.
 *
 * A named memory's quarantined (or rejected) value waits in the same queue
 * as its mirror entry (kind `memory`), under the same access predicate; a
 * review of that mirror judges the memory's current revision: the revision
 * and the mirror take the verdict together, in one transaction, under the
 * same rules (the mirror's version is the one reviewed, and the memory's
 * owner or the revision's writer may not approve it).
 *
 * Quarantined (or rejected) handoffs and session events wait in the same
 * queue, in the same order, for any reviewer of their tenant whoever they
 * are addressed to; a review names one by the handoff's id, or by a
 * session's id and an event's sequence (workflow-review.ts). No transport or
 * SQL here.
 */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { DenialRecorder } from "../audit/audit.js";
import { ambiguousCandidatesShown, ambiguousPrefix, entryNotFound } from "../entries/entry-changes.js";
import type { EntryRepository, EntryWriteScope } from "../entries/entry-ports.js";
import { validateThreadId } from "../model/field-validation.js";
import type { QueueItem, ReviewRepository } from "../model/review-ports.js";
import { toIdQuery } from "../model/id-query.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { reviewedState, type ReviewDecision, type TrustState } from "../model/trust.js";
import { reviewWorkflowIn, type WorkflowReviewOutcome, type WorkflowTarget } from "./workflow-review.js";
import type { WorkflowReviewRepository } from "./workflow-review-repository.js";

export interface ReviewOutcome {
  id: string;
  version: number;
  previousState: TrustState;
  state: TrustState;
  reviewedBy: string;
  reviewedAt: Date;
  /** Set when the entry is a memory's mirror: the memory whose current revision the review judged. */
  memory?: { id: string; namespace: string; key: string; owner: string; version: number } | undefined;
  /** Set when a handoff was reviewed (`id` is then the handoff's). */
  handoff?: WorkflowReviewOutcome["handoff"];
  /** Set when a session event was reviewed (`id` is then its session's). */
  sessionEvent?: WorkflowReviewOutcome["sessionEvent"];
}

/** What a review names: an entry by `id` (or a unique prefix), a handoff by `handoffId`, an event by `sessionId` and `sequence`. */
export interface ReviewRequest {
  id: string;
  handoffId: string;
  sessionId: string;
  sequence: number;
  decision: ReviewDecision | undefined;
  note: string;
  expectedVersion: number;
}

export interface ReviewService {
  /** The review queue of the reviewer's tenant (context:review). */
  listQueue(
    principal: Principal | undefined,
    request: { states: readonly (TrustState | undefined)[]; threadId: string; limit: number; offset: number },
  ): Promise<{ items: QueueItem[]; hasMore: boolean }>;
  /** Approves or rejects one entry, handoff or session event of the reviewer's tenant (context:review), audited with the note. */
  review(principal: Principal | undefined, request: ReviewRequest): Promise<ReviewOutcome>;
}

export const reviewLimits = { noteLength: 2000, defaultPage: 20, maxPage: 50, maxOffset: 10_000 } as const;

const queueStates: readonly TrustState[] = ["quarantined", "unverified"];

/**
 * What a queue may list. Verified entries are not waiting for anyone, and
 * listing them would let the review scope read every entry of the tenant.
 */
const reviewableStates: readonly TrustState[] = ["quarantined", "unverified", "rejected"];

/** What a request names besides an entry, checked: exactly one of an entry, a handoff or a session event. */
function workflowTargetOf(request: ReviewRequest): WorkflowTarget | undefined {
  const named = [request.id !== "", request.handoffId !== "", request.sessionId !== ""].filter(Boolean).length;
  if (named !== 1)
    throw invalidArgument(
      "name exactly one thing to review: an entry (context_id), a handoff (handoff_id) or a session event (session_id and sequence)",
    );
  if (request.sessionId === "" && request.sequence !== 0)
    throw invalidArgument("sequence names a session event: give session_id with it");
  if (request.handoffId !== "") return { type: "handoff", id: request.handoffId };
  if (request.sessionId === "") return undefined;
  if (request.sequence < 1)
    throw invalidArgument("sequence is required with session_id: the event's sequence (from 1)");
  return { type: "session_event", sessionId: request.sessionId, seq: request.sequence };
}

/**
 * The review service over the entry repository (whose transactions carry the review statements and the audit log),
 * the workflow review repository (handoffs' and session events' reviews) and the queue listing.
 */
export function createReviewService(
  entries: EntryRepository,
  queue: ReviewRepository,
  workflow: WorkflowReviewRepository,
  denials: DenialRecorder,
): ReviewService {
  return {
    async listQueue(principal, request) {
      const caller = await denials.guard(principal, "review.read", [], async () =>
        requirePrincipal(principal, "context:review"),
      );
      const states = request.states.map((state, index) => {
        if (state === undefined || !reviewableStates.includes(state))
          throw invalidArgument(`states[${index}] must be quarantined, unverified or rejected`);
        return state;
      });
      if (request.limit > reviewLimits.maxPage)
        throw invalidArgument(`limit must be at most ${reviewLimits.maxPage} (got ${request.limit})`);
      if (request.offset > reviewLimits.maxOffset)
        throw invalidArgument(`offset must be at most ${reviewLimits.maxOffset} (got ${request.offset})`);
      return queue.listQueue(caller, {
        states: states.length === 0 ? queueStates : [...new Set(states)],
        threadId: request.threadId === "" ? undefined : validateThreadId(request.threadId, "thread_id"),
        limit: request.limit === 0 ? reviewLimits.defaultPage : request.limit,
        offset: request.offset,
      });
    },

    async review(principal, request) {
      // A denial is recorded under what the request names; the request is checked after the caller. An entry that
      // resolves, under the review predicate, to a memory's mirror is the memory's review: a refusal raised after
      // that (its owner or writer approving it) is recorded as `memory.review` naming both, as an approval would be.
      // A refusal before it (no context:review), and an id that does not resolve (ENTRY_NOT_FOUND, never recorded),
      // stay `entry.review` under the id as sent, so the record tells nothing of an entry the caller cannot see.
      const [action, targetIds] =
        request.handoffId !== ""
          ? (["handoff.review", [request.handoffId]] as const)
          : request.sessionId !== ""
            ? (["session_event.review", [request.sessionId]] as const)
            : (["entry.review", [request.id]] as const);
      let mirror: { memoryId: string; entryId: string } | undefined;
      const deniedAction = () => (mirror === undefined ? action : "memory.review");
      const deniedTargets = () => (mirror === undefined ? targetIds : [mirror.memoryId, mirror.entryId]);
      return denials.guard(principal, deniedAction, deniedTargets, async () => {
        const caller = requirePrincipal(principal, "context:review");
        const target = workflowTargetOf(request);
        const query = target === undefined ? toIdQuery(request.id, "id") : undefined;
        const { decision } = request;
        if (decision === undefined) throw invalidArgument("decision must be approve or reject");
        if (request.note.length > reviewLimits.noteLength || request.note.includes("\u0000")) {
          throw invalidArgument(
            `note must be at most ${reviewLimits.noteLength} characters without NUL (got ${request.note.length})`,
          );
        }
        if (request.expectedVersion < 1)
          throw invalidArgument("expected_version is required: the version you reviewed (versions start at 1)");
        if (query !== undefined)
          return entries.transaction((tx: EntryWriteScope) => {
            mirror = undefined; // each attempt of the transaction resolves the id afresh
            return reviewIn(tx, caller, query, decision, request.note, request.expectedVersion, (found) => {
              mirror = found;
            });
          });
        const reviewed = await workflow.transaction((scope) =>
          reviewWorkflowIn(scope, caller, target!, decision, request.note, request.expectedVersion),
        );
        return {
          id: reviewed.handoff?.id ?? reviewed.sessionEvent?.sessionId ?? "",
          version: reviewed.version,
          previousState: reviewed.previousState,
          state: reviewed.state,
          reviewedBy: caller.subject,
          reviewedAt: reviewed.reviewedAt,
          handoff: reviewed.handoff,
          sessionEvent: reviewed.sessionEvent,
        };
      });
    },
  };
}

async function reviewIn(
  tx: EntryWriteScope,
  caller: Principal,
  query: ReturnType<typeof toIdQuery>,
  decision: ReviewDecision,
  note: string,
  expectedVersion: number,
  onMirror: (mirror: { memoryId: string; entryId: string }) => void,
): Promise<ReviewOutcome> {
  const matches = await tx.review.resolve(caller, query, ambiguousCandidatesShown);
  if (matches.length > 1) throw ambiguousPrefix(query, matches);
  const target = matches[0] === undefined ? undefined : await tx.review.lock(caller, matches[0]);
  if (target === undefined) throw entryNotFound(query.input);
  // Locked, so the reviewer may see it: a refusal from here on may name the memory.
  if (target.memory !== undefined) onMirror({ memoryId: target.memory.id, entryId: target.id });
  if (target.version !== expectedVersion) {
    // Named as the reviewer wrote it: a prefix is not widened into a full id.
    throw new ContextHubError(
      "VERSION_CONFLICT",
      `entry ${query.input} is at version ${target.version}, not the expected ${expectedVersion}`,
      {
        remedy: `read version ${target.version} and review it (expected_version ${target.version})`,
        details: { id: query.input, current_version: target.version },
      },
    );
  }
  const { memory } = target;
  // A memory's revision is judged by its owner and its writer, whom the mirror names too.
  const state = reviewedState(
    memory === undefined ? target : { id: target.id, owner: memory.owner, updatedBy: memory.updatedBy },
    decision,
    caller,
  );
  const reviewedAt = await tx.review.apply(caller, target.id, target.version, state, note);
  if (reviewedAt === undefined) throw new ContextHubError("INTERNAL", "a locked entry did not match its own version");
  if (memory !== undefined && !(await tx.review.applyMemory(caller, memory, state, note, reviewedAt)))
    throw new ContextHubError("INTERNAL", "a locked memory did not match its own version");
  const details = { decision, previous_state: target.state, trust_state: state, note };
  tx.audit.record(
    caller.tenant,
    memory === undefined
      ? {
          actor: caller.subject,
          action: "entry.review",
          outcome: "ok",
          targetIds: [target.id],
          beforeHashes: [target.contentHash],
          afterHashes: [target.contentHash],
          details: { ...details, version: target.version },
        }
      : {
          actor: caller.subject,
          action: "memory.review",
          outcome: "ok",
          targetIds: [memory.id, target.id],
          beforeHashes: [memory.contentHash],
          afterHashes: [memory.contentHash],
          details: {
            ...details,
            namespace: memory.namespace,
            key: memory.key,
            owner: memory.owner,
            version: memory.version,
            entry_version: target.version,
          },
        },
  );
  return {
    id: target.id,
    version: target.version,
    previousState: target.state,
    state,
    reviewedBy: caller.subject,
    reviewedAt,
    memory:
      memory === undefined
        ? undefined
        : { id: memory.id, namespace: memory.namespace, key: memory.key, owner: memory.owner, version: memory.version },
  };
}
