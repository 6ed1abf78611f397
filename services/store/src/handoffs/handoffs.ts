/**
 * The handoff service: work one principal hands to a subject, a group or a
 * namespace's agents, which one recipient accepts and completes, or the
 * creator cancels.
 *
 * Only the creator and the recipients see a handoff; to anyone else it and a
 * handoff that does not exist get one and the same answer. Every state change
 * locks the row, checks who may make it from which state, and writes the next
 * version only if the row is still at the version it read (compare-and-set),
 * audited in the same transaction. No SQL or transport here.
 *
 * A new handoff's title, summary, next steps and open questions pass the
 * entries' write-time screen before its transaction opens; with findings it
 * is stored quarantined (`summary:<rule>`, …). So do a completion's outcome
 * and a cancellation's reason, before the transition's transaction opens:
 * with findings the handoff becomes quarantined (`outcome:<rule>`,
 * `reason:<rule>`, beside any earlier reasons). Every read shows its trust
 * state. A reviewer approves (verified) or rejects (rejected) a quarantined
 * handoff through the review queue (review/); the one-call start leaves a
 * quarantined or rejected one out of the open handoffs it lists.
 */
import { ContextHubError } from "@context-hub/common";
import type { AuditAction, DenialRecorder } from "../audit/audit.js";
import { createIdempotentRunner, type IdempotencyExpiry, type Outcome } from "../idempotency/idempotency.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import type { Trust } from "../model/trust.js";
import { screenParts, trustOfReasons, type PartTrust } from "../screen/part-screen.js";
import type { WriteScreen } from "../screen/write-screen.js";
import { decodeHandoffCursor, encodeHandoffCursor } from "./handoff-cursor.js";
import {
  handoffHash,
  handoffNotFound,
  handoffVersionConflict,
  isHandoffId,
  screenedPartsOf,
  validateCreate,
  validateListing,
  validateNote,
  type CreateHandoffRequest,
  type HandoffContent,
  type HandoffPage,
  type HandoffRecord,
  type HandoffTransitionRequest,
  type ListHandoffsRequest,
} from "./handoff-model.js";
import type { HandoffChange, HandoffRepository, HandoffWriteScope, StoredHandoff } from "./handoff-repository.js";

export interface HandoffService {
  create(principal: Principal | undefined, request: CreateHandoffRequest): Promise<Outcome<HandoffRecord>>;
  get(principal: Principal | undefined, id: string): Promise<HandoffRecord>;
  list(principal: Principal | undefined, request: ListHandoffsRequest): Promise<HandoffPage>;
  accept(principal: Principal | undefined, request: HandoffTransitionRequest): Promise<HandoffRecord>;
  complete(principal: Principal | undefined, request: HandoffTransitionRequest): Promise<HandoffRecord>;
  cancel(principal: Principal | undefined, request: HandoffTransitionRequest): Promise<HandoffRecord>;
}

type Transition = "accept" | "complete" | "cancel";

/** Why a handoff in its current state cannot take `transition`: told only to callers who can see it. */
function stateConflict(handoff: StoredHandoff, transition: Transition): ContextHubError {
  const label = `handoff ${JSON.stringify(handoff.id)}`;
  const details = { status: handoff.status, holder: handoff.holder, current_version: handoff.version };
  if (handoff.status === "accepted")
    return new ContextHubError(
      "VERSION_CONFLICT",
      `${label} is already accepted by ${JSON.stringify(handoff.holder)}`,
      {
        remedy:
          transition === "accept"
            ? "leave it to its holder, or ask its creator to hand the work off again"
            : "get_handoff shows its current state",
        details,
      },
    );
  if (handoff.status === "open")
    return new ContextHubError("VERSION_CONFLICT", `${label} is open: nobody has accepted it yet`, {
      remedy: "accept it with accept_handoff before completing it",
      details,
    });
  const by = handoff.status === "completed" ? ` by ${JSON.stringify(handoff.holder)}` : "";
  return new ContextHubError("VERSION_CONFLICT", `${label} is already ${handoff.status}${by}`, {
    remedy: "a completed or cancelled handoff does not change again; create a new one for further work",
    details,
  });
}

/** Who may make `transition`, and what it leaves; throws when the caller may not or the state does not allow it. */
function changeFor(
  handoff: StoredHandoff,
  transition: Transition,
  caller: Principal,
  note: string,
): Omit<HandoffChange, "trust"> {
  const label = `handoff ${JSON.stringify(handoff.id)}`;
  const unchanged = { status: handoff.status, holder: handoff.holder, outcome: handoff.outcome, cancelReason: "" };
  if (transition === "accept") {
    if (!handoff.isRecipient)
      throw new ContextHubError("PERMISSION_DENIED", `${label} is not addressed to you; only its recipients accept it`);
    if (handoff.status !== "open") throw stateConflict(handoff, transition);
    return { ...unchanged, status: "accepted", holder: caller.subject };
  }
  if (transition === "complete") {
    if (handoff.status === "accepted" && handoff.holder !== caller.subject)
      throw new ContextHubError(
        "PERMISSION_DENIED",
        `${label} is held by ${JSON.stringify(handoff.holder)}; only its holder completes it`,
      );
    if (handoff.status !== "accepted") throw stateConflict(handoff, transition);
    return { ...unchanged, status: "completed", outcome: note };
  }
  if (!handoff.isCreator)
    throw new ContextHubError(
      "PERMISSION_DENIED",
      `only the creator of ${label} (${JSON.stringify(handoff.creator)}) may cancel it`,
    );
  if (handoff.status !== "open" && handoff.status !== "accepted") throw stateConflict(handoff, transition);
  return { ...unchanged, status: "cancelled", cancelReason: note };
}

const auditActions: Record<Transition, AuditAction> = {
  accept: "handoff.accept",
  complete: "handoff.complete",
  cancel: "handoff.cancel",
};

/** A handoff's trust once a stored note's findings join it. */
function withNoteFindings(trust: Trust, noteReasons: readonly string[]): Trust {
  const merged = trustOfReasons([...trust.reasons, ...noteReasons]);
  return trust.state === "rejected" ? { state: "rejected", reasons: merged.reasons } : merged;
}

async function transitionIn(
  scope: HandoffWriteScope,
  caller: Principal,
  transition: Transition,
  request: HandoffTransitionRequest,
  note: string,
  noteTrust: PartTrust | undefined,
): Promise<HandoffRecord> {
  const handoff = isHandoffId(request.id) ? await scope.lock(caller, request.id) : undefined;
  if (handoff === undefined) throw handoffNotFound(request.id);
  if (request.expectedVersion !== undefined && request.expectedVersion !== handoff.version)
    throw handoffVersionConflict(handoff.id, request.expectedVersion, handoff.version);
  // A repeated accept by the holder answers as the first did: a retry after a lost reply is not a conflict.
  if (transition === "accept" && handoff.status === "accepted" && handoff.holder === caller.subject) return handoff;
  // A stored note's findings join the handoff's own: it stays quarantined for what it held before, too. A clean
  // note changes nothing (a reviewer's verdict stands), and a rejected handoff stays rejected whatever a note adds.
  const trust =
    noteTrust === undefined || noteTrust.reasons.length === 0
      ? handoff.trust
      : withNoteFindings(handoff.trust, noteTrust.reasons);
  const change = { ...changeFor(handoff, transition, caller, note), trust };
  const changed = await scope.transition(caller, handoff.id, handoff.version, change);
  if (changed === undefined) throw new Error("a locked handoff changed version under its lock");
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: auditActions[transition],
    outcome: "ok",
    targetIds: [handoff.id],
    beforeHashes: [handoff.contentHash],
    afterHashes: [changed.contentHash],
    details: {
      from: handoff.status,
      to: changed.status,
      holder: changed.holder,
      version: changed.version,
      ...(noteTrust === undefined || noteTrust.reasons.length === 0
        ? {}
        : { trust_state: trust.state, trust_reasons: noteTrust.reasons }),
    },
  });
  return changed;
}

async function createIn(
  scope: HandoffWriteScope,
  caller: Principal,
  { content, trust }: { content: HandoffContent; trust: PartTrust },
): Promise<HandoffRecord> {
  const created = await scope.insert(caller, content, handoffHash(content), trust);
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "handoff.create",
    outcome: "ok",
    targetIds: [created.id],
    beforeHashes: [],
    afterHashes: [created.contentHash],
    details: {
      recipient_kind: content.recipient.kind,
      recipient: content.recipient.name,
      priority: content.priority,
      version: 1,
      trust_state: trust.state,
      ...(trust.reasons.length === 0 ? {} : { trust_reasons: trust.reasons }),
    },
  });
  return created;
}

/** The handoff service over its repository. */
export function createHandoffService(
  repository: HandoffRepository,
  denials: DenialRecorder,
  screen: WriteScreen,
  expiry?: IdempotencyExpiry,
): HandoffService {
  const runner = createIdempotentRunner(repository, expiry);
  const transition = (
    principal: Principal | undefined,
    request: HandoffTransitionRequest,
    kind: Transition,
    field: string,
  ) =>
    denials.guard(principal, auditActions[kind], isHandoffId(request.id) ? [request.id] : [], async () => {
      const caller = requirePrincipal(principal, "context:write");
      const note = validateNote(request.note, field);
      if (kind === "complete" && note.trim() === "")
        throw new ContextHubError("INVALID_ARGUMENT", "outcome must not be empty", {
          remedy: "say what was done and what is left, for the handoff's creator",
        });
      // A note that is stored (an outcome, a cancel reason) is screened before any transaction opens, as a new handoff is.
      const noteTrust =
        kind !== "accept" && note.trim() !== "" ? await screenParts(screen, { [field]: { text: note } }) : undefined;
      return repository.transaction((scope) => transitionIn(scope, caller, kind, request, note, noteTrust));
    });
  return {
    create(principal, request) {
      return denials.guard(principal, "handoff.create", [], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "CreateHandoff",
          request.idempotency,
          // Checked and screened before any transaction opens: bad input, or a screen over its budget, stores nothing.
          async () => {
            const content = validateCreate(request);
            return { content, trust: await screenParts(screen, screenedPartsOf(content)) };
          },
          (screened, scope) =>
            scope === undefined
              ? repository.transaction((tx) => createIn(tx, caller, screened))
              : createIn(scope, caller, screened),
        );
      });
    },

    async get(principal, id) {
      const caller = requirePrincipal(principal, "context:read");
      const handoff = isHandoffId(id) ? await repository.find(caller, id) : undefined;
      if (handoff === undefined) throw handoffNotFound(id);
      return handoff;
    },

    async list(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      const listing = validateListing(request);
      const after = decodeHandoffCursor(request.cursor, listing.newestFirst);
      const rows = await repository.list(caller, { ...listing, after }, listing.limit);
      const page = rows.slice(0, listing.limit);
      const last = page.at(-1);
      return {
        handoffs: page,
        nextCursor:
          rows.length > listing.limit && last !== undefined ? encodeHandoffCursor(last.id, listing.newestFirst) : "",
      };
    },

    accept: (principal, request) => transition(principal, request, "accept", "note"),
    complete: (principal, request) => transition(principal, request, "complete", "outcome"),
    cancel: (principal, request) => transition(principal, request, "cancel", "reason"),
  };
}
