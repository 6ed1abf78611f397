/** Input and output schemas of the handoff tools; the store holds handoffs to the same limits (services/store/src/handoffs/handoff-model.ts). */
import { z } from "zod";
import { idempotencyKeySchema, limits as inputLimits } from "./input-schemas.js";
import { workflowTrustFields } from "./workflow-trust-schemas.js";

export const handoffToolLimits = {
  nameChars: 256,
  titleChars: 200,
  summaryChars: 20_000,
  items: 50,
  itemChars: 2_000,
  links: 50,
  linkTypeChars: 32,
  linkRefChars: 512,
  noteChars: 5_000,
  pageSize: 100,
} as const;

const noNul = (value: string) => !value.includes("\u0000");

const text = (field: string, max: number) =>
  z
    .string()
    .max(max, `${field} must be at most ${max} characters`)
    .refine(noNul, `${field} must not contain NUL characters`);

const required = (field: string, max: number) =>
  text(field, max).refine((value) => value.trim() !== "", `${field} must not be empty`);

const items = (field: string) =>
  z
    .array(required(`each of ${field}`, handoffToolLimits.itemChars))
    .max(handoffToolLimits.items, `${field}: at most ${handoffToolLimits.items} items`);

const handoffId = z
  .string()
  .min(1, "handoff_id must not be empty")
  .max(64, "handoff_id is not a handoff id")
  .describe("The handoff's id, as create_handoff or list_handoffs gave it.");

const expectedVersion = z
  .number()
  .int("expected_version must be a whole number")
  .min(1, "expected_version must be 1 or more")
  .max(2_147_483_647, "expected_version is too large")
  .describe(
    "Compare-and-set: change the handoff only if it is still at this version (the version you last read). A mismatch is refused with the current version.",
  );

const recipientKind = z.enum(["subject", "group", "namespace"]);
const priority = z.enum(["low", "normal", "high", "urgent"]);
const status = z.enum(["open", "accepted", "completed", "cancelled"]);

const link = z
  .object({
    type: z
      .string()
      .min(1, "link type must not be empty")
      .max(handoffToolLimits.linkTypeChars, `link type must be at most ${handoffToolLimits.linkTypeChars} characters`)
      .regex(/^[a-z][a-z0-9_-]*$/, "link type must be a lowercase word such as 'entry', 'memory' or 'artifact'")
      .describe(
        "What the reference points at: 'entry' (a context id), 'memory' ('namespace/key'), 'artifact' (a content hash), …",
      ),
    ref: required("link ref", handoffToolLimits.linkRefChars).describe("The id, name or hash of what is linked."),
  })
  .strict();

export const createHandoffInput = z
  .object({
    to_subject: text("to_subject", handoffToolLimits.nameChars)
      .optional()
      .describe("Hand off to this principal (a subject, as whoami shows it)."),
    to_group: text("to_group", handoffToolLimits.nameChars)
      .optional()
      .describe("Hand off to any member of this group; one of them accepts it."),
    to_namespace: text("to_namespace", inputLimits.threadIdChars)
      .optional()
      .describe(
        "Hand off to any agent in this namespace: you, and whoever you shared the namespace with (share_context with thread_id = the namespace).",
      ),
    title: required("title", handoffToolLimits.titleChars).describe("One line: what is handed off."),
    summary: required("summary", handoffToolLimits.summaryChars).describe(
      "Where the work stands: what was done, what was decided, what the next agent must know.",
    ),
    next_steps: items("next_steps").optional().describe("What to do next, in order."),
    open_questions: items("open_questions").optional().describe("What is still undecided or unknown."),
    links: z
      .array(link)
      .max(handoffToolLimits.links, `links: at most ${handoffToolLimits.links}`)
      .optional()
      .describe("Typed references to what the work needs: entries, memories, artifacts."),
    priority: priority.optional().describe("'low', 'normal' (the default), 'high' or 'urgent'."),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict()
  .refine(
    (args) => [args.to_subject, args.to_group, args.to_namespace].filter((to) => to !== undefined).length === 1,
    "give exactly one of to_subject, to_group or to_namespace",
  );

export const getHandoffInput = z.object({ handoff_id: handoffId }).strict();

export const listHandoffsInput = z
  .object({
    role: z
      .enum(["to_me", "from_me"])
      .optional()
      .describe("'to_me': handoffs addressed to you; 'from_me': those you created; omitted: both."),
    status: status.optional().describe("Only handoffs in this state."),
    order: z.enum(["oldest", "newest"]).optional().describe("'oldest' first (the default) or 'newest' first."),
    limit: z
      .number()
      .int()
      .min(1, "limit must be 1 to 100")
      .max(handoffToolLimits.pageSize, "limit must be 1 to 100")
      .optional()
      .describe("Handoffs per page, 1-100 (default 20)."),
    cursor: z
      .string()
      .max(4_096, "cursor is not one list_handoffs gave")
      .optional()
      .describe("next_cursor of the previous page, with the same order; omitted for the first page."),
  })
  .strict();

export const acceptHandoffInput = z
  .object({ handoff_id: handoffId, expected_version: expectedVersion.optional() })
  .strict();

export const completeHandoffInput = z
  .object({
    handoff_id: handoffId,
    outcome: required("outcome", handoffToolLimits.noteChars).describe(
      "What was done and what is left, for the handoff's creator.",
    ),
    expected_version: expectedVersion.optional(),
  })
  .strict();

export const cancelHandoffInput = z
  .object({
    handoff_id: handoffId,
    reason: text("reason", handoffToolLimits.noteChars).optional().describe("Why it is cancelled."),
    expected_version: expectedVersion.optional(),
  })
  .strict();

export const handoffOutput = z.object({
  id: z.string(),
  creator: z.string(),
  recipient: z.object({ kind: recipientKind, name: z.string() }),
  title: z.string(),
  summary: z.string(),
  next_steps: z.array(z.string()),
  open_questions: z.array(z.string()),
  links: z.array(z.object({ type: z.string(), ref: z.string() })),
  priority,
  status,
  holder: z.string().nullable().describe("Who accepted it; null while nobody has."),
  outcome: z.string().describe("The holder's note on completing it."),
  reason: z.string().describe("The creator's reason for cancelling it."),
  version: z.number().describe("1 at creation, one more at each change: pass it as expected_version."),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  updated_by: z.string(),
  ...workflowTrustFields,
});

export const handoffResultOutput = z.object({
  success: z.boolean(),
  handoff: handoffOutput,
  message: z.string(),
});

export const getHandoffOutput = z.object({ handoff: handoffOutput });

export const listHandoffsOutput = z.object({
  handoffs: z.array(handoffOutput),
  count: z.number(),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
