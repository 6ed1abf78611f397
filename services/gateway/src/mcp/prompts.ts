/**
 * Prompt entries served as MCP prompts: `prompts/list` pages through the
 * prompt entries the caller may read, `prompts/get` renders one with the
 * caller's arguments. Both go through the store's ordinary reads (a listing
 * filtered by kind `prompt`, a fetch by id), so the access predicate and
 * trust states hold exactly as for every tool. SDK-neutral: both server
 * generations register these handlers.
 */
import { renderPromptTemplate, type Logger } from "@context-hub/common";
import { gatewayClientsFor } from "../clients/gateway-clients.js";
import type { Peers } from "../clients/peers.js";
import type { Principal } from "../principal.js";
import { describeEntry, entryIdPattern, optional, pageOfEntries } from "./entry-listing.js";
import { invalidParams, McpRequestError, toRequestError } from "./request-errors.js";
import { neutraliseMarkers } from "./untrusted-text.js";

/** The scope a caller needs to see prompts: the read scope, as for the reading tools. */
export const promptScope = "context:read";

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

function toListedArguments(list: readonly PromptArgumentView[]) {
  return list.map((argument) => ({
    name: argument.name,
    ...(argument.description === null ? {} : { description: argument.description }),
    required: argument.required,
  }));
}

/** The one answer for a name that is no prompt the caller may read: hidden and missing read the same (invariant I-2). */
function unknownPrompt(name: string): McpRequestError {
  return new McpRequestError(
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
    throw new McpRequestError(
      invalidParams,
      `prompt ${name} declares no argument ${undeclared.map((key) => JSON.stringify(key.slice(0, 100))).join(", ")}; it declares ${declared.length === 0 ? "none" : declared.map((argument) => argument.name).join(", ")}`,
    );
  const missing = declared.filter((argument) => argument.required && typeof given[argument.name] !== "string");
  if (missing.length > 0)
    throw new McpRequestError(
      invalidParams,
      `prompt ${name} needs the argument${missing.length > 1 ? "s" : ""} ${missing.map((argument) => argument.name).join(", ")}: give ${missing.length > 1 ? "them" : "it"} in arguments`,
    );
  const values = new Map<string, string>();
  for (const [key, value] of Object.entries(given)) {
    if (typeof value !== "string")
      throw new McpRequestError(invalidParams, `argument ${key} of prompt ${name} must be a string`);
    values.set(key, value);
  }
  return values;
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
        const page = await pageOfEntries(entries, principal, { kind: "prompt" }, cursor, "prompts/list");
        const prompts = page.results.map((entry) => ({
          name: entry.id,
          ...(entry.title === null ? {} : { title: neutraliseMarkers(entry.title) }),
          ...optional("description", describeEntry(entry.summary, entry.preview)),
          arguments: toListedArguments(entry.prompt_arguments),
        }));
        return page.nextCursor === undefined ? { prompts } : { prompts, nextCursor: page.nextCursor };
      } catch (error) {
        throw toRequestError(error, logger, "prompts/list");
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
          ...optional(
            "description",
            entry.title === null ? describeEntry(entry.summary, entry.text) : neutraliseMarkers(entry.title),
          ),
          messages: [{ role: "user", content: { type: "text", text: renderPromptTemplate(entry.text, values) } }],
        };
      } catch (error) {
        throw toRequestError(error, logger, "prompts/get");
      }
    },
  };
}
