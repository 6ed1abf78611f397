/**
 * Prompt entries served as MCP prompts: `prompts/list` pages through the
 * prompt entries the caller may read, `prompts/get` renders one with the
 * caller's arguments. Both go through the store's ordinary reads (a listing
 * filtered by kind `prompt`, a fetch by id), so the access predicate and
 * trust states hold exactly as for every tool. SDK-neutral: both server
 * generations register these handlers.
 */
import { isContextHubError, renderPromptTemplate, currentRequestContext, type Logger } from "@context-hub/common";
import { gatewayClientsFor } from "../clients/gateway-clients.js";
import type { Peers } from "../clients/peers.js";
import type { Principal } from "../principal.js";

/** The scope a caller needs to see prompts: the read scope, as for the reading tools. */
export const promptScope = "context:read";

/** Prompts per `prompts/list` page. */
export const promptPageSize = 50;

/** The longest description a listed prompt gets when it is taken from the entry's text. */
const descriptionChars = 300;

/** JSON-RPC error codes the handlers answer with. */
const invalidParams = -32602;
const internalError = -32603;

/** A JSON-RPC error both SDK generations send as thrown (they read `code` and `message`). */
export class PromptRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface PromptArgumentView {
  name: string;
  description: string | null;
  required: boolean;
}

/** What prompts/list shows of one prompt. */
export type ListedPrompt = {
  name: string;
  title?: string;
  description?: string;
  arguments: { name: string; description?: string; required: boolean }[];
};

/** The result of prompts/get (a type, not an interface: the SDKs' result types carry an index signature). */
export type RenderedPrompt = {
  description?: string;
  messages: { role: "user"; content: { type: "text"; text: string } }[];
};

/** Where a listing resumes: the offset, and the newest creation time the first page saw, so new prompts cannot shift pages. */
interface PromptCursor {
  offset: number;
  before: string;
}

function encodeCursor(cursor: PromptCursor): string {
  return Buffer.from(JSON.stringify({ o: cursor.offset, b: cursor.before })).toString("base64url");
}

function decodeCursor(value: string): PromptCursor {
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as { o?: unknown; b?: unknown };
    if (
      typeof parsed.o === "number" &&
      Number.isSafeInteger(parsed.o) &&
      parsed.o > 0 &&
      typeof parsed.b === "string" &&
      !Number.isNaN(Date.parse(parsed.b))
    )
      return { offset: parsed.o, before: parsed.b };
  } catch {
    // Falls through to the one error every malformed cursor gets.
  }
  throw new PromptRequestError(invalidParams, "invalid cursor: pass a nextCursor exactly as prompts/list returned it");
}

/** The entry's summary, or else (a short text has none) the start of its text, cut to fit. */
function describePrompt(summary: string, text: string): string | undefined {
  const source = summary.trim() !== "" ? summary.trim() : text.trim();
  if (source === "") return undefined;
  return source.length > descriptionChars ? `${source.slice(0, descriptionChars - 1)}…` : source;
}

function toListedArguments(list: readonly PromptArgumentView[]) {
  return list.map((argument) => ({
    name: argument.name,
    ...(argument.description === null ? {} : { description: argument.description }),
    required: argument.required,
  }));
}

/** A full entry id, the only form a prompt name takes (prompts/get accepts no id prefixes). */
const entryIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The one answer for a name that is no prompt the caller may read: hidden and missing read the same (invariant I-2). */
function unknownPrompt(name: string): PromptRequestError {
  return new PromptRequestError(
    invalidParams,
    `unknown prompt ${JSON.stringify(name.slice(0, 100))}: no prompt you may read has this name (prompts/list gives the names)`,
  );
}

/**
 * The arguments a get gives, checked against the declared ones: every
 * required one present, none undeclared. Returns the values by name.
 */
function checkArguments(
  name: string,
  declared: readonly PromptArgumentView[],
  given: Record<string, unknown>,
): Map<string, string> {
  const names = new Set(declared.map((argument) => argument.name));
  const undeclared = Object.keys(given).filter((key) => !names.has(key));
  if (undeclared.length > 0)
    throw new PromptRequestError(
      invalidParams,
      `prompt ${name} declares no argument ${undeclared.map((key) => JSON.stringify(key.slice(0, 100))).join(", ")}; it declares ${declared.length === 0 ? "none" : declared.map((argument) => argument.name).join(", ")}`,
    );
  const missing = declared.filter((argument) => argument.required && typeof given[argument.name] !== "string");
  if (missing.length > 0)
    throw new PromptRequestError(
      invalidParams,
      `prompt ${name} needs the argument${missing.length > 1 ? "s" : ""} ${missing.map((argument) => argument.name).join(", ")}: give ${missing.length > 1 ? "them" : "it"} in arguments`,
    );
  const values = new Map<string, string>();
  for (const [key, value] of Object.entries(given)) {
    if (typeof value !== "string")
      throw new PromptRequestError(invalidParams, `argument ${key} of prompt ${name} must be a string`);
    values.set(key, value);
  }
  return values;
}

/**
 * A failure as a JSON-RPC error: request errors as they are, the store's
 * refusals with their message, anything unexpected logged and shown as a
 * request id only.
 */
function toRequestError(error: unknown, logger: Logger): PromptRequestError {
  if (error instanceof PromptRequestError) return error;
  const requestId = currentRequestContext()?.requestId ?? "unknown";
  if (isContextHubError(error) && error.code !== "INTERNAL") {
    if (error.cause !== undefined)
      logger.warn({ err: error.cause, code: error.code }, "prompt request: a peer call failed");
    return new PromptRequestError(
      error.code === "INVALID_ARGUMENT" ? invalidParams : internalError,
      `${error.code}: ${error.message}`,
    );
  }
  logger.error({ err: error }, "prompt request failed unexpectedly");
  return new PromptRequestError(internalError, `Internal error. Quote request id ${requestId} when reporting it.`);
}

/** The prompt handlers bound to one caller. */
export interface PromptHandlers {
  list(cursor: string | undefined): Promise<{ prompts: ListedPrompt[]; nextCursor?: string }>;
  get(name: string, args: Record<string, unknown> | undefined): Promise<RenderedPrompt>;
}

/**
 * The prompt handlers for `principal`, or undefined when its scopes do not
 * include reading (then the server declares no prompts capability at all,
 * as it lists no reading tools).
 */
export function promptHandlersFor(principal: Principal, peers: Peers, logger: Logger): PromptHandlers | undefined {
  if (!principal.scopes.includes(promptScope)) return undefined;
  const entries = gatewayClientsFor(peers).entries;
  return {
    async list(cursor) {
      try {
        const at = cursor === undefined ? undefined : decodeCursor(cursor);
        const page = await entries.list(
          principal,
          { kind: "prompt", ...(at === undefined ? {} : { end_date: at.before }) },
          { limit: promptPageSize, offset: at?.offset ?? 0 },
        );
        const prompts = page.results.map((entry) => ({
          name: entry.id,
          ...(entry.title === null ? {} : { title: entry.title }),
          ...optional("description", describePrompt(entry.summary, entry.preview)),
          arguments: toListedArguments(entry.prompt_arguments),
        }));
        const before = at?.before ?? snapshotAfter(page.results.map((entry) => entry.created_at));
        const offset = (at?.offset ?? 0) + page.results.length;
        return page.hasMore && before !== undefined
          ? { prompts, nextCursor: encodeCursor({ offset, before }) }
          : { prompts };
      } catch (error) {
        throw toRequestError(error, logger);
      }
    },

    async get(name, args) {
      try {
        if (!entryIdPattern.test(name)) throw unknownPrompt(name);
        const found = await entries.get(principal, { ids: [name], includeImages: false, includeQuarantined: false });
        const [entry] = found.entries;
        if (entry === undefined || entry.kind !== "prompt") throw unknownPrompt(name);
        const values = checkArguments(name, entry.prompt_arguments, args ?? {});
        return {
          ...optional("description", entry.title ?? describePrompt(entry.summary, entry.text)),
          messages: [{ role: "user", content: { type: "text", text: renderPromptTemplate(entry.text, values) } }],
        };
      } catch (error) {
        throw toRequestError(error, logger);
      }
    },
  };
}

/** `{ [key]: value }` when value is defined, else nothing (the SDK's types want absent, not undefined). */
function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

/**
 * The bound later pages are read under: just after the newest creation time
 * of the first page (the listing is newest first), in the store's own clock,
 * so a prompt written while the caller pages does not shift the pages.
 */
function snapshotAfter(createdAt: readonly (string | null)[]): string | undefined {
  const newest = createdAt.reduce<number | undefined>((max, iso) => {
    const time = iso === null ? Number.NaN : Date.parse(iso);
    return Number.isNaN(time) ? max : Math.max(max ?? time, time);
  }, undefined);
  return newest === undefined ? undefined : new Date(newest + 1).toISOString();
}
