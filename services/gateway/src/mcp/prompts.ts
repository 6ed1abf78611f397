/**
 * Prompt entries served as MCP prompts: `prompts/list` pages through the
 * prompt entries the caller may read, `prompts/get` renders one with the
 * caller's arguments. Both go through the store's ordinary reads (a listing
 * filtered by kind `prompt`, a fetch by id), so the access predicate and
 * trust states hold exactly as for every tool. SDK-neutral: both server
 * generations register these handlers.
 *
 * A prompt is known by its entry id, and to its owner also by the name the
 * owner gave it (`prompt_name`, unique among the owner's prompts): names are
 * each owner's own, so one caller's listing never holds two prompts of one
 * name and no name says anything of prompts the caller cannot read. A
 * rendered prompt is its filled-in text, then its images, then the files it
 * links as embedded resources (entry-artifacts.ts).
 */
import { isContextHubError, promptNamePattern, renderPromptTemplate, type Logger } from "@context-hub/common";
import { gatewayClientsFor, type GatewayClients } from "../clients/gateway-clients.js";
import type { Peers } from "../clients/peers.js";
import type { Principal } from "../principal.js";
import {
  entryArtifactUri,
  mediaTypeOf,
  readLinkedArtifact,
  toArtifactContents,
  type ArtifactContents,
} from "./entry-artifacts.js";
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

/** One message of a rendered prompt: its text, one of its images, or a file it links. */
export type PromptContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "resource"; resource: ArtifactContents }
  | { type: "resource_link"; uri: string; name: string; mimeType: string; size: number };

/** The result of prompts/get (a type, not an interface: the SDKs' result types carry an index signature). */
export type RenderedPrompt = {
  description?: string;
  messages: { role: "user"; content: PromptContent }[];
};

/**
 * Whether a client's protocol revision knows `resource_link` content, which
 * 2025-06-18 introduced; an older client gets a text message naming the
 * file's URI instead, which it can read with resources/read all the same.
 */
export const knowsResourceLinks = (protocolVersion: string | undefined): boolean =>
  protocolVersion === undefined || protocolVersion >= "2025-06-18";

/** Bytes of linked files a rendered prompt embeds, each and in all; a larger file is linked instead (resource_link). */
const embeddedFileBytes = 1024 * 1024;
const embeddedBytesPerPrompt = 4 * 1024 * 1024;

function toListedArguments(list: readonly PromptArgumentView[]) {
  return list.map((argument) => ({
    name: argument.name,
    ...(argument.description === null ? {} : { description: argument.description }),
    required: argument.required,
  }));
}

/** The one answer for a name that is no prompt the caller may read: hidden and missing read the same (invariant I-2). */
export function unknownPrompt(name: string): McpRequestError {
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

/** A prompt entry as a by-id fetch gives it, images included. */
type PromptEntry = Awaited<ReturnType<GatewayClients["entries"]["get"]>>["entries"][number];

/**
 * The prompt `name` names for the caller: an entry id, or the name of one of
 * the caller's own prompts, with its images' bytes when `includeImages`.
 * Undefined when it names none the caller may read.
 */
export async function findPrompt(
  clients: GatewayClients,
  principal: Principal,
  name: string,
  includeImages: boolean,
): Promise<PromptEntry | undefined> {
  let id = name;
  if (!entryIdPattern.test(name)) {
    const named = await clients.entries.list(
      principal,
      { kind: "prompt", prompt_name: name, own_only: true },
      { limit: 1, offset: 0 },
    );
    const [listed] = named.results;
    if (listed === undefined) return undefined;
    id = listed.id;
  }
  const found = await clients.entries.get(principal, { ids: [id], includeImages, includeQuarantined: false });
  const [entry] = found.entries;
  return entry?.kind === "prompt" ? entry : undefined;
}

/**
 * The files a prompt links, as messages: each embedded whole while the
 * prompt's embedded bytes stay within bounds, else linked by its URI. A file
 * the caller may not read (its owner dropped it since) is left out, as any
 * file never stored.
 */
async function linkedFileMessages(
  clients: GatewayClients,
  principal: Principal,
  entry: PromptEntry,
  links: boolean,
): Promise<RenderedPrompt["messages"]> {
  const messages: RenderedPrompt["messages"] = [];
  let budget = embeddedBytesPerPrompt;
  for (const sha256 of entry.artifacts) {
    const uri = entryArtifactUri(entry.id, sha256);
    let linked;
    try {
      linked = await readLinkedArtifact(
        clients.artifacts,
        principal,
        entry,
        sha256,
        Math.min(embeddedFileBytes, budget),
      );
    } catch (error) {
      if (isContextHubError(error) && error.code === "ENTRY_NOT_FOUND") continue;
      throw error;
    }
    if (linked === undefined) continue;
    const { artifact, data } = linked;
    if (data === undefined) {
      const name = artifact.filename === "" ? sha256 : artifact.filename;
      const mimeType = mediaTypeOf(artifact);
      const content: PromptContent = links
        ? { type: "resource_link", uri, name, mimeType, size: artifact.size }
        : {
            type: "text",
            text: `Linked file ${name} (${mimeType}, ${artifact.size} bytes), too large to embed here: read it with resources/read at ${uri}`,
          };
      messages.push({ role: "user", content });
      continue;
    }
    budget -= data.byteLength;
    messages.push({ role: "user", content: { type: "resource", resource: toArtifactContents(uri, artifact, data) } });
  }
  return messages;
}

/** A prompt rendered with `values`: its text, its images, then the files it links (as resource links where `links`). */
async function renderPrompt(
  clients: GatewayClients,
  principal: Principal,
  entry: PromptEntry,
  values: ReadonlyMap<string, string>,
  links: boolean,
): Promise<RenderedPrompt> {
  const images = entry.images.flatMap((image) =>
    image.data === undefined
      ? []
      : [{ role: "user" as const, content: { type: "image" as const, data: image.data, mimeType: image.mime_type } }],
  );
  return {
    ...optional(
      "description",
      entry.title === null ? describeEntry(entry.summary, entry.text) : neutraliseMarkers(entry.title),
    ),
    messages: [
      { role: "user", content: { type: "text", text: renderPromptTemplate(entry.text, values) } },
      ...images,
      ...(await linkedFileMessages(clients, principal, entry, links)),
    ],
  };
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
export function promptHandlersFor(
  principal: Principal,
  peers: Peers,
  logger: Logger,
  protocolVersion?: string,
): PromptHandlers | undefined {
  if (!principal.scopes.includes(promptScope)) return undefined;
  const clients = gatewayClientsFor(peers);
  return {
    async list(cursor) {
      try {
        const page = await pageOfEntries(clients.entries, principal, { kind: "prompt" }, cursor, "prompts/list");
        const prompts = page.results.map((entry) => ({
          // Names are their owners' own: every other reader knows a prompt by its entry id.
          name: entry.prompt_name !== null && entry.owner === principal.subject ? entry.prompt_name : entry.id,
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
        const entry =
          promptNamePattern.test(name) || entryIdPattern.test(name)
            ? await findPrompt(clients, principal, name, true)
            : undefined;
        if (entry === undefined) throw unknownPrompt(name);
        const values = checkArguments(name, entry.prompt_arguments, args ?? {});
        return await renderPrompt(clients, principal, entry, values, knowsResourceLinks(protocolVersion));
      } catch (error) {
        throw toRequestError(error, logger, "prompts/get");
      }
    },
  };
}
