/**
 * `completion/complete`: suggestions for the arguments of the URI templates
 * `resources/templates/list` gives, and for prompts' arguments. An entry id
 * completes from the newest entries the caller may read; a version, image
 * position or linked file completes from the entry the request's
 * `context.arguments.id` names, as the caller may read it. A prompt's
 * arguments are free text its owner declared with no set of values, so
 * they complete to nothing, but the prompt and the argument must exist for
 * the caller. Every read goes through the store's ordinary listing, fetch
 * and history, so an entry the caller may not read completes exactly as one
 * that never existed: to nothing. SDK-neutral: both server generations
 * register these handlers.
 */
import { isContextHubError, parseResourceUri, type Logger } from "@context-hub/common";
import { gatewayClientsFor, type GatewayClients } from "../clients/gateway-clients.js";
import type { Peers } from "../clients/peers.js";
import type { Principal } from "../principal.js";
import { entryIdPattern } from "./entry-listing.js";
import { findPrompt, unknownPrompt } from "./prompts.js";
import { invalidParams, McpRequestError, toRequestError } from "./request-errors.js";
import { publishedTemplates } from "./published-resources.js";
import { resourceTemplates } from "./resources.js";

/** The scope a caller needs for completions: the read scope, as for prompts and resources. */
export const completionScope = "context:read";

/** The most values one completion returns (the MCP limit). */
const maxValues = 100;

/** What a completion request names: a prompt, or a resource template by its URI template. */
export type CompletionRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

/** The result of completion/complete (a type: the SDKs' result types carry an index signature). */
export type CompletionResult = { completion: { values: string[]; hasMore?: boolean } };

/** The completion handler bound to one caller. */
export interface CompletionHandlers {
  complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context: Record<string, string> | undefined,
  ): Promise<CompletionResult>;
}

const none: CompletionResult = { completion: { values: [] } };

/** The values that start with `prefix`, at most the MCP limit, saying whether more were left out. */
function startingWith(values: readonly string[], prefix: string, more = false): CompletionResult {
  const matching = values.filter((value) => value.startsWith(prefix));
  const page = matching.slice(0, maxValues);
  return { completion: { values: page, hasMore: more || matching.length > maxValues } };
}

/** A prompt's argument: none to suggest, once the prompt and the argument are known to exist for the caller. */
async function completePromptArgument(clients: GatewayClients, principal: Principal, name: string, argument: string) {
  const prompt = await findPrompt(clients, principal, name, false);
  if (prompt === undefined) throw unknownPrompt(name);
  if (!prompt.prompt_arguments.some((declared) => declared.name === argument))
    throw new McpRequestError(
      invalidParams,
      `prompt ${name} declares no argument ${JSON.stringify(argument.slice(0, 100))}; it declares ${prompt.prompt_arguments.map((declared) => declared.name).join(", ") || "none"}`,
    );
  return none;
}

/** Entry ids starting with `prefix` among the newest entries the caller may read; only those with files for `artifacts`. */
async function completeEntryId(clients: GatewayClients, principal: Principal, prefix: string, withFiles: boolean) {
  if (!/^[0-9a-f-]{0,36}$/.test(prefix)) return none;
  const page = await clients.entries.list(principal, {}, { limit: maxValues, offset: 0 });
  const ids = page.results.filter((entry) => !withFiles || entry.artifacts.length > 0).map((entry) => entry.id);
  return startingWith(ids, prefix, page.hasMore);
}

/** Versions, image positions or linked files of the entry `id`, as the caller may read them. */
async function completeOfEntry(
  clients: GatewayClients,
  principal: Principal,
  id: string | undefined,
  argument: "version" | "ordinal" | "sha256",
  prefix: string,
) {
  if (id === undefined || !entryIdPattern.test(id)) return none;
  const found = await clients.entries.get(principal, { ids: [id], includeImages: false, includeQuarantined: false });
  const [entry] = found.entries;
  if (entry === undefined) return none;
  if (argument === "ordinal")
    return startingWith(
      entry.images.map((image) => String(image.ordinal)),
      prefix,
    );
  if (argument === "sha256") return startingWith(entry.artifacts, prefix);
  const history = await clients.history.history(principal, { id, version: undefined, limit: maxValues, offset: 0 });
  const readable = history.versions.filter((version) => !version.redacted && version.trust_state !== "quarantined");
  return startingWith(
    readable.map((version) => String(version.version)),
    prefix,
    history.latestVersion > maxValues,
  );
}

/** A resource template's argument. */
async function completeTemplateArgument(
  clients: GatewayClients,
  principal: Principal,
  uri: string,
  argument: { name: string; value: string },
  context: Record<string, string> | undefined,
) {
  const template = resourceTemplates.find((candidate) => candidate.uriTemplate === uri);
  const published =
    template === undefined && (await publishedTemplates({ principal, clients })).some((own) => own.uriTemplate === uri);
  if (template === undefined && !published)
    throw new McpRequestError(
      invalidParams,
      `no resource template ${JSON.stringify(uri.slice(0, 200))}: resources/templates/list gives them`,
    );
  const variables =
    template === undefined
      ? parseResourceUri(uri).variables
      : [...template.uriTemplate.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  if (!variables.includes(argument.name))
    throw new McpRequestError(
      invalidParams,
      `resource template ${uri} has no argument ${JSON.stringify(argument.name.slice(0, 100))}; it has ${variables.join(", ")}`,
    );
  // A template the caller published: its values are free text, as a prompt's arguments are.
  if (template === undefined) return none;
  if (argument.name === "id")
    return completeEntryId(clients, principal, argument.value.toLowerCase(), template.name === "entry-artifact");
  return completeOfEntry(
    clients,
    principal,
    context?.id,
    argument.name as "version" | "ordinal" | "sha256",
    argument.value,
  );
}

/**
 * The completion handler for `principal`, or undefined when its scopes do
 * not include reading (then the server declares no completions capability).
 */
export function completionHandlersFor(
  principal: Principal,
  peers: Peers,
  logger: Logger,
): CompletionHandlers | undefined {
  if (!principal.scopes.includes(completionScope)) return undefined;
  const clients = gatewayClientsFor(peers);
  return {
    async complete(ref, argument, context) {
      try {
        return ref.type === "ref/prompt"
          ? await completePromptArgument(clients, principal, ref.name, argument.name)
          : await completeTemplateArgument(clients, principal, ref.uri, argument, context);
      } catch (error) {
        // A store error on an id the caller may not read is the same as one that never existed: nothing to complete.
        if (isContextHubError(error) && error.code === "ENTRY_NOT_FOUND") return none;
        throw toRequestError(error, logger, "completion/complete");
      }
    },
  };
}
