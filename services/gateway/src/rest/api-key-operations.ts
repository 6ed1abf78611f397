/**
 * A tenant administrator's API keys over REST. They take the shape of tool
 * definitions (schemas, scope, handler) so the REST layer runs, validates
 * and documents them like every other operation; they are not MCP tools.
 */
import { z } from "zod";
import { scopes } from "../principal.js";
import { isoInstant } from "../mcp/input-schemas.js";
import { additiveTool, defineTool, destructiveTool, readOnlyTool } from "../mcp/tool-definition.js";

const name = (field: string) =>
  z
    .string()
    .min(1, `${field} must not be empty`)
    .max(256, `${field} must be at most 256 characters`)
    .refine((value) => !value.includes("\u0000"), `${field} must not contain NUL characters`);

const apiKeyOutput = z.object({
  id: z.string(),
  hint: z.string().describe("The key's non-secret start, to recognise it."),
  subject: z.string(),
  groups: z.array(z.string()),
  scopes: z.array(z.string()),
  description: z.string(),
  expires_at: z.string().nullable(),
  created_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

export const createApiKeyOperation = defineTool({
  name: "create_api_key",
  title: "Create an API key",
  description:
    "Create an API key in your tenant for a subject, with at most your own scopes. The key is in this reply only; the store keeps its hash.",
  inputSchema: z
    .object({
      subject: name("subject").describe("Who the key authenticates as."),
      groups: z.array(name("a group")).max(50, "at most 50 groups").optional(),
      scopes: z
        .array(z.enum(scopes))
        .min(1, "give at least one scope")
        .optional()
        .describe("Default context:read and context:write."),
      description: z.string().max(1000, "description must be at most 1000 characters").optional(),
      expires_at: isoInstant("expires_at").optional().describe("When the key stops working; default never."),
    })
    .strict(),
  outputSchema: apiKeyOutput.extend({ key: z.string().describe("The key itself; shown only in this reply.") }),
  annotations: additiveTool,
  scope: "context:admin",
  async handler(args, { principal, clients }) {
    return clients.apiKeys.create(principal, {
      subject: args.subject,
      groups: args.groups ?? [],
      scopes: args.scopes ?? ["context:read", "context:write"],
      description: args.description ?? "",
      expiresAt: args.expires_at === undefined ? undefined : new Date(args.expires_at),
    });
  },
});

export const listApiKeysOperation = defineTool({
  name: "list_api_keys",
  title: "List API keys",
  description: "List your tenant's API keys (never the keys themselves); revoked ones with include_revoked.",
  inputSchema: z.object({ include_revoked: z.boolean().optional().describe("Default false.") }).strict(),
  outputSchema: z.object({ keys: z.array(apiKeyOutput), count: z.number() }),
  annotations: readOnlyTool,
  scope: "context:admin",
  async handler(args, { principal, clients }) {
    const keys = await clients.apiKeys.list(principal, args.include_revoked ?? false);
    return { keys, count: keys.length };
  },
});

export const revokeApiKeyOperation = defineTool({
  name: "revoke_api_key",
  title: "Revoke an API key",
  description: "Revoke one of your tenant's API keys; every gateway refuses it within its key cache time.",
  inputSchema: z.object({ id: name("id") }).strict(),
  outputSchema: apiKeyOutput,
  annotations: destructiveTool,
  scope: "context:admin",
  async handler(args, { principal, clients }) {
    return clients.apiKeys.revoke(principal, args.id);
  },
});
