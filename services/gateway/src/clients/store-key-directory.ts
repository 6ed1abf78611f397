import { timestampDate } from "@bufbuild/protobuf/wkt";
import { scopes, type Scope } from "../principal.js";
import { revokedKey, type KeyDirectory } from "../auth/key-directory.js";
import type { ApiKeysServiceClient } from "./peers.js";

const isScope = (value: string): value is Scope => (scopes as readonly string[]).includes(value);

/** Keys created with `context-hub keys create`, kept (hashed) in the store so every replica sees a revocation. */
export function createStoreKeyDirectory(store: ApiKeysServiceClient): KeyDirectory {
  return {
    async lookup(keyHash) {
      const reply = await store.lookupApiKey({ keyHash });
      const key = reply.key;
      if (reply.revoked) return revokedKey;
      if (key === undefined) return undefined;
      return {
        principal: {
          tenant: key.tenant,
          subject: key.subject,
          groups: [...key.groups],
          scopes: key.scopes.filter(isScope),
        },
        expiresAt: key.expiresAt === undefined ? undefined : timestampDate(key.expiresAt),
      };
    },
  };
}
