/**
 * API keys as a tenant's administrator manages them: created, listed and
 * revoked in the caller's own tenant only, over ApiKeysService (the store's
 * operator RPCs, which take no principal: the tenant is bounded here).
 */
import { timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { apiKeyHint, ContextHubError, generateApiKey, hashApiKey } from "@context-hub/common";
import type { storeV1 } from "@context-hub/proto";
import type { Principal, Scope } from "../principal.js";
import type { ApiKeysServiceClient } from "./peers.js";

const iso = (timestamp: Timestamp | undefined) =>
  timestamp === undefined ? null : timestampDate(timestamp).toISOString();

function toKeyView(key: storeV1.ApiKey | undefined) {
  if (key === undefined) throw new ContextHubError("INTERNAL", "the store returned no API key");
  return {
    id: key.id,
    hint: key.hint,
    subject: key.subject,
    groups: [...key.groups],
    scopes: [...key.scopes],
    description: key.description,
    expires_at: iso(key.expiresAt),
    created_at: iso(key.createdAt),
    revoked_at: iso(key.revokedAt),
  };
}

export interface NewApiKey {
  subject: string;
  groups: string[];
  scopes: Scope[];
  description: string;
  expiresAt: Date | undefined;
}

/** The API keys client over an ApiKeysService connection. */
export function createApiKeysClient(store: ApiKeysServiceClient) {
  const keyNotFound = (id: string) =>
    new ContextHubError("ENTRY_NOT_FOUND", `no API key of your tenant has id ${JSON.stringify(id)}`, {
      remedy: "list the keys to find the id",
    });

  return {
    /** Creates a key in the caller's tenant with at most the caller's own scopes; the key itself is shown only here. */
    async create(principal: Principal, request: NewApiKey) {
      const beyond = request.scopes.filter((scope) => !principal.scopes.includes(scope));
      if (beyond.length > 0) {
        throw new ContextHubError(
          "PERMISSION_DENIED",
          `a key cannot grant scopes you do not hold: ${beyond.join(", ")}`,
          {
            remedy: "ask for scopes within your own",
          },
        );
      }
      if (request.expiresAt !== undefined && request.expiresAt.getTime() <= Date.now())
        throw new ContextHubError("INVALID_ARGUMENT", "expires_at must be in the future");
      const key = generateApiKey();
      const reply = await store.createApiKey({
        actor: principal.subject,
        keyHash: hashApiKey(key),
        key: {
          hint: apiKeyHint(key),
          tenant: principal.tenant,
          subject: request.subject,
          groups: request.groups,
          scopes: request.scopes,
          description: request.description,
          ...(request.expiresAt === undefined ? {} : { expiresAt: timestampFromDate(request.expiresAt) }),
        },
      });
      return { key, ...toKeyView(reply.key) };
    },

    /** The keys of the caller's tenant, oldest first; revoked ones only when asked. */
    async list(principal: Principal, includeRevoked: boolean) {
      const reply = await store.listApiKeys({ tenant: principal.tenant, includeRevoked });
      return reply.keys.map(toKeyView);
    },

    /** Revokes a key of the caller's tenant by id; a key of another tenant is as unknown as a missing one. */
    async revoke(principal: Principal, id: string) {
      const { keys } = await store.listApiKeys({ tenant: principal.tenant, includeRevoked: true });
      const key = keys.find((candidate) => candidate.id === id);
      if (key === undefined) throw keyNotFound(id);
      return toKeyView((await store.revokeApiKey({ id: key.id, actor: principal.subject })).key);
    },
  };
}

export type ApiKeysClient = ReturnType<typeof createApiKeysClient>;
