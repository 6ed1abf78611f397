/** Handoffs as the tools ask for them, over HandoffsService: proto built and read here, answers in the tools' snake_case. */
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { storeV1 } from "@context-hub/proto";
import type { Idempotency } from "../idempotency.js";
import type { Principal } from "../principal.js";
import type { HandoffsServiceClient } from "./peers.js";
import { toWorkflowTrustFields } from "./proto-enums.js";

const iso = (timestamp: Timestamp | undefined) =>
  timestamp === undefined ? null : timestampDate(timestamp).toISOString();

export type RecipientKindName = "subject" | "group" | "namespace";
export type HandoffPriorityName = "low" | "normal" | "high" | "urgent";
export type HandoffStatusName = "open" | "accepted" | "completed" | "cancelled";

export interface CreateHandoffInput {
  recipient: { kind: RecipientKindName; name: string };
  title: string;
  summary: string;
  nextSteps: string[];
  openQuestions: string[];
  links: { type: string; ref: string }[];
  priority: HandoffPriorityName | "";
  idempotency: Idempotency | undefined;
}

export interface ListHandoffsInput {
  role: "to_me" | "from_me" | "";
  status: HandoffStatusName | "";
  order: "oldest" | "newest" | "";
  limit: number;
  cursor: string;
}

/**
 * A handoff as a tool returns it. Its `title`, `summary`, `next_steps`,
 * `open_questions`, `outcome` and `reason` are the text people and agents
 * wrote: the untrusted-data fence wraps them as it wraps an entry's text.
 */
function toHandoffView(handoff: storeV1.Handoff) {
  return {
    id: handoff.id,
    creator: handoff.creator,
    recipient: {
      kind: (handoff.recipient?.kind ?? "subject") as RecipientKindName,
      name: handoff.recipient?.name ?? "",
    },
    title: handoff.title,
    summary: handoff.summary,
    next_steps: handoff.nextSteps,
    open_questions: handoff.openQuestions,
    links: handoff.links.map((link) => ({ type: link.type, ref: link.ref })),
    priority: handoff.priority as HandoffPriorityName,
    status: handoff.status as HandoffStatusName,
    holder: handoff.holder === "" ? null : handoff.holder,
    outcome: handoff.outcome,
    reason: handoff.cancelReason,
    version: handoff.version,
    created_at: iso(handoff.createdAt),
    updated_at: iso(handoff.updatedAt),
    updated_by: handoff.updatedBy,
    ...toWorkflowTrustFields(handoff),
  };
}

export type HandoffView = ReturnType<typeof toHandoffView>;

/** A state change's arguments: the handoff, an optional compare-and-set version, and the outcome or reason it records. */
export interface HandoffChangeInput {
  id: string;
  expectedVersion: number | undefined;
  note: string;
}

const versionOf = (expected: number | undefined) => (expected === undefined ? {} : { expectedVersion: expected });

/** The handoffs client over a HandoffsService connection. */
export function createHandoffsClient(store: HandoffsServiceClient) {
  return {
    /** Creates an open handoff. */
    async create(principal: Principal, input: CreateHandoffInput) {
      const reply = await store.createHandoff({
        principal,
        recipient: input.recipient,
        title: input.title,
        summary: input.summary,
        nextSteps: input.nextSteps,
        openQuestions: input.openQuestions,
        links: input.links,
        priority: input.priority,
        ...(input.idempotency === undefined ? {} : { idempotency: input.idempotency }),
      });
      return toHandoffView(reply.handoff!);
    },

    /** One handoff the caller created or that is addressed to it. */
    async get(principal: Principal, id: string) {
      return toHandoffView((await store.getHandoff({ principal, id })).handoff!);
    },

    /** One page of the handoffs the caller can see. */
    async list(principal: Principal, input: ListHandoffsInput) {
      const reply = await store.listHandoffs({ principal, ...input });
      return { handoffs: reply.handoffs.map(toHandoffView), nextCursor: reply.nextCursor };
    },

    /** Claims an open handoff for the caller. */
    async accept(principal: Principal, input: HandoffChangeInput) {
      const reply = await store.acceptHandoff({ principal, id: input.id, ...versionOf(input.expectedVersion) });
      return toHandoffView(reply.handoff!);
    },

    /** Completes the caller's accepted handoff with its outcome. */
    async complete(principal: Principal, input: HandoffChangeInput) {
      const reply = await store.completeHandoff({
        principal,
        id: input.id,
        outcome: input.note,
        ...versionOf(input.expectedVersion),
      });
      return toHandoffView(reply.handoff!);
    },

    /** Cancels a handoff the caller created. */
    async cancel(principal: Principal, input: HandoffChangeInput) {
      const reply = await store.cancelHandoff({
        principal,
        id: input.id,
        reason: input.note,
        ...versionOf(input.expectedVersion),
      });
      return toHandoffView(reply.handoff!);
    },
  };
}

export type HandoffsClient = ReturnType<typeof createHandoffsClient>;
