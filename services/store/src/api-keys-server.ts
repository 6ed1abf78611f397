// The store's gRPC transport for API keys: ApiKeysService handlers (operator RPCs) translating proto messages to key domain calls and back.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImplementation } from "@context-hub/common";
import type { storeV1 } from "@context-hub/proto";
import type { ApiKeyInput, ApiKeyRecord, ApiKeyService } from "./keys/api-keys.js";
import { fromDate, toDate } from "./messages.js";

export function toApiKeyInput(key: storeV1.ApiKey | undefined): ApiKeyInput | undefined {
  if (key === undefined) return undefined;
  // id, created_at and revoked_at are the store's to set; whatever the request holds there is ignored.
  return {
    hint: key.hint,
    tenant: key.tenant,
    subject: key.subject,
    groups: key.groups,
    scopes: key.scopes,
    description: key.description,
    expiresAt: toDate(key.expiresAt),
  };
}

export function toApiKeyMessage(key: ApiKeyRecord): MessageInitShape<typeof storeV1.ApiKeySchema> {
  return {
    id: key.id,
    hint: key.hint,
    tenant: key.tenant,
    subject: key.subject,
    groups: key.groups,
    scopes: key.scopes,
    description: key.description,
    expiresAt: fromDate(key.expiresAt),
    createdAt: timestampFromDate(key.createdAt),
    revokedAt: fromDate(key.revokedAt),
  };
}

/** The ApiKeysService implementation over the keys domain. */
export function createApiKeysHandlers(apiKeys: ApiKeyService): ServiceImplementation<typeof storeV1.ApiKeysService> {
  return {
    async createApiKey(request) {
      return { key: toApiKeyMessage(await apiKeys.create(toApiKeyInput(request.key), request.keyHash, request.actor)) };
    },

    async listApiKeys(request) {
      const keys = await apiKeys.list({ tenant: request.tenant, includeRevoked: request.includeRevoked });
      return { keys: keys.map(toApiKeyMessage) };
    },

    async revokeApiKey(request) {
      return { key: toApiKeyMessage(await apiKeys.revoke(request.id, request.actor)) };
    },

    async lookupApiKey(request) {
      const { key, revoked } = await apiKeys.lookup(request.keyHash);
      return key === undefined ? { revoked } : { key: toApiKeyMessage(key), revoked };
    },
  };
}
