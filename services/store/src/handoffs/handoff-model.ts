/**
 * Handoffs as every layer of the store speaks of them: their records, the
 * requests of the handoff service and the checks of those requests. Pure
 * rules, no SQL and no transport.
 */
import { createHash } from "node:crypto";
import { ContextHubError, invalidArgument } from "@context-hub/common";
import { hasNul, validateThreadId } from "../model/field-validation.js";
import type { IdempotencyRequest } from "../model/idempotency-request.js";
import type { Trust } from "../model/trust.js";
import type { ScreenedPart } from "../screen/part-screen.js";

export type RecipientKind = "subject" | "group" | "namespace";
export type HandoffPriority = "low" | "normal" | "high" | "urgent";
export type HandoffStatus = "open" | "accepted" | "completed" | "cancelled";

export const recipientKinds: readonly RecipientKind[] = ["subject", "group", "namespace"];
export const handoffPriorities: readonly HandoffPriority[] = ["low", "normal", "high", "urgent"];
export const handoffStatuses: readonly HandoffStatus[] = ["open", "accepted", "completed", "cancelled"];

/** A handoff's limits; the gateway's schemas hold callers to the same numbers. */
export const handoffLimits = {
  nameChars: 256,
  titleChars: 200,
  summaryChars: 20_000,
  items: 50,
  itemChars: 2_000,
  links: 50,
  linkTypeChars: 32,
  linkRefChars: 512,
  noteChars: 5_000,
  defaultPage: 20,
  maxPage: 100,
} as const;

export interface HandoffRecipient {
  kind: RecipientKind;
  name: string;
}

/** A typed reference; the type is open ("entry", "memory", "artifact", …) so new kinds of things can be linked. */
export interface HandoffLink {
  type: string;
  ref: string;
}

/** A handoff's content as its creator wrote it. */
export interface HandoffContent {
  recipient: HandoffRecipient;
  title: string;
  summary: string;
  nextSteps: string[];
  openQuestions: string[];
  links: HandoffLink[];
  priority: HandoffPriority;
}

/** A handoff and its current state. */
export interface HandoffRecord extends HandoffContent {
  id: string;
  creator: string;
  status: HandoffStatus;
  /** Who accepted it; empty while open (and when cancelled before anyone did). */
  holder: string;
  outcome: string;
  cancelReason: string;
  /** SHA-256 of the content, hex: what audit records name it by. */
  contentHash: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  updatedBy: string;
  /**
   * Quarantined when the write-time screen found instruction-shaped content in its title, summary, next steps or
   * open questions (or a stored note); verified or rejected once a reviewer approved or rejected it.
   */
  trust: Trust;
}

/** What the write-time screen reads of a handoff: the text its recipients' agents read. */
export function screenedPartsOf(content: HandoffContent): Record<string, ScreenedPart> {
  return {
    title: { text: content.title },
    summary: { text: content.summary },
    next_steps: { strings: content.nextSteps },
    open_questions: { strings: content.openQuestions },
  };
}

export interface CreateHandoffRequest {
  /** Its kind is checked against the recipient kinds. */
  recipient: { kind: string; name: string } | undefined;
  title: string;
  summary: string;
  nextSteps: string[];
  openQuestions: string[];
  links: HandoffLink[];
  /** Empty means normal. */
  priority: string;
  idempotency?: IdempotencyRequest<HandoffRecord> | undefined;
}

/** Whose handoffs a listing shows: addressed to the caller, created by the caller, or both. */
export type HandoffRole = "to_me" | "from_me" | "";

export interface ListHandoffsRequest {
  role: string;
  status: string;
  /** "oldest" (default) or "newest". */
  order: string;
  limit: number;
  cursor: string;
}

export interface HandoffPage {
  handoffs: HandoffRecord[];
  nextCursor: string;
}

/** A state change: accept, complete (with an outcome) or cancel (with a reason). */
export interface HandoffTransitionRequest {
  id: string;
  note: string;
  expectedVersion: number | undefined;
}

function checkText(value: string, field: string, max: number, required: boolean): string {
  if (required && value.trim() === "") throw invalidArgument(`${field} must not be empty`);
  if (value.length > max) throw invalidArgument(`${field} must be at most ${max} characters (got ${value.length})`);
  if (hasNul(value)) throw invalidArgument(`${field} must not contain NUL characters`);
  return value;
}

function checkItems(items: readonly string[], field: string): string[] {
  if (items.length > handoffLimits.items)
    throw invalidArgument(`${field}: at most ${handoffLimits.items} items (got ${items.length})`);
  return items.map((item, index) => checkText(item, `${field}[${index}]`, handoffLimits.itemChars, true));
}

const linkTypePattern = /^[a-z][a-z0-9_-]*$/;

function checkLinks(links: readonly HandoffLink[]): HandoffLink[] {
  if (links.length > handoffLimits.links)
    throw invalidArgument(`links: at most ${handoffLimits.links} links (got ${links.length})`);
  return links.map((link, index) => {
    if (link.type.length > handoffLimits.linkTypeChars || !linkTypePattern.test(link.type))
      throw invalidArgument(
        `links[${index}].type must be a lowercase word of at most ${handoffLimits.linkTypeChars} characters such as "entry", "memory" or "artifact" (got ${JSON.stringify(link.type.slice(0, 40))})`,
      );
    return { type: link.type, ref: checkText(link.ref, `links[${index}].ref`, handoffLimits.linkRefChars, true) };
  });
}

function checkRecipient(recipient: { kind: string; name: string } | undefined): HandoffRecipient {
  if (recipient === undefined) throw invalidArgument("recipient is required: a subject, a group or a namespace");
  if (!recipientKinds.includes(recipient.kind as RecipientKind))
    throw invalidArgument(
      `recipient kind must be "subject", "group" or "namespace" (got ${JSON.stringify(recipient.kind)})`,
    );
  const name =
    recipient.kind === "namespace"
      ? validateThreadId(recipient.name, "recipient namespace")
      : checkText(recipient.name, `recipient ${recipient.kind}`, handoffLimits.nameChars, true);
  return { kind: recipient.kind as RecipientKind, name };
}

/** Checks a new handoff before any transaction opens: bad input changes nothing. */
export function validateCreate(request: CreateHandoffRequest): HandoffContent {
  const priority = request.priority === "" ? "normal" : request.priority;
  if (!handoffPriorities.includes(priority as HandoffPriority))
    throw invalidArgument(
      `priority must be "low", "normal", "high" or "urgent" (got ${JSON.stringify(request.priority)})`,
    );
  return {
    recipient: checkRecipient(request.recipient),
    title: checkText(request.title, "title", handoffLimits.titleChars, true),
    summary: checkText(request.summary, "summary", handoffLimits.summaryChars, true),
    nextSteps: checkItems(request.nextSteps, "next_steps"),
    openQuestions: checkItems(request.openQuestions, "open_questions"),
    links: checkLinks(request.links),
    priority: priority as HandoffPriority,
  };
}

/** An outcome or cancel reason: at most 5,000 characters. */
export function validateNote(note: string, field: string): string {
  return checkText(note, field, handoffLimits.noteChars, false);
}

/** A listing's filters, checked. */
export function validateListing(request: ListHandoffsRequest): {
  role: HandoffRole;
  status: HandoffStatus | "";
  newestFirst: boolean;
  limit: number;
} {
  if (!["to_me", "from_me", ""].includes(request.role))
    throw invalidArgument(`role must be "to_me" or "from_me" (got ${JSON.stringify(request.role)})`);
  if (request.status !== "" && !handoffStatuses.includes(request.status as HandoffStatus))
    throw invalidArgument(
      `status must be "open", "accepted", "completed" or "cancelled" (got ${JSON.stringify(request.status)})`,
    );
  if (!["", "oldest", "newest"].includes(request.order))
    throw invalidArgument(`order must be "oldest" or "newest" (got ${JSON.stringify(request.order)})`);
  if (request.limit > handoffLimits.maxPage)
    throw invalidArgument(`limit must be 1 to ${handoffLimits.maxPage} (got ${request.limit})`);
  return {
    role: request.role as HandoffRole,
    status: request.status as HandoffStatus | "",
    newestFirst: request.order === "newest",
    limit: request.limit === 0 ? handoffLimits.defaultPage : request.limit,
  };
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A handoff id; anything not shaped like one is answered as a handoff that does not exist. */
export function isHandoffId(id: string): boolean {
  return uuidPattern.test(id);
}

/** SHA-256 of a handoff's content, hex. */
export function handoffHash(content: HandoffContent): string {
  return createHash("sha256").update(JSON.stringify(content), "utf8").digest("hex");
}

/**
 * The answer for a handoff that does not exist, or exists but the caller may
 * not see it: one message for both, so nobody learns what they cannot read.
 */
export function handoffNotFound(id: string): ContextHubError {
  return new ContextHubError("ENTRY_NOT_FOUND", `no handoff ${JSON.stringify(id)} that you can see`, {
    remedy: "list_handoffs shows the handoffs you created or that are addressed to you",
  });
}

/** The compare-and-set conflict: told only to callers who can see the handoff. */
export function handoffVersionConflict(id: string, expected: number, actual: number): ContextHubError {
  return new ContextHubError(
    "VERSION_CONFLICT",
    `handoff ${JSON.stringify(id)} is at version ${actual}, not at the expected version ${expected}`,
    {
      remedy: "read it with get_handoff and decide again on its current state",
      details: { expected_version: expected, current_version: actual },
    },
  );
}
