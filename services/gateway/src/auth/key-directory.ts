import { readFileSync } from "node:fs";
import { z } from "zod";
import { hashApiKey, isApiKeyShaped } from "@context-hub/common";
import { scopes, type Principal } from "../principal.js";

/** What a key is bound to. */
export interface ApiKeyRecord {
  principal: Principal;
  /** Absent: never expires. */
  expiresAt: Date | undefined;
}

/** Finds the record of a key by the key's hash. */
export interface KeyDirectory {
  lookup(keyHash: string): Promise<ApiKeyRecord | undefined>;
}

const nameSchema = z
  .string()
  .min(1)
  .max(256)
  .refine((value) => !value.includes("\u0000"), "must not contain NUL");

const keysFileEntry = z
  .object({
    key: z.string().refine(isApiKeyShaped, "key must look like chk_ followed by 43 base64url characters (create one with `context-hub keys create`)").optional(),
    key_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "key_sha256 must be 64 lowercase hex characters")
      .optional(),
    tenant: nameSchema,
    subject: nameSchema,
    groups: z.array(nameSchema).max(100).default([]),
    scopes: z.array(z.enum(scopes)).min(1, "give at least one scope"),
    expires_at: z.iso.datetime({ offset: true }).optional(),
  })
  .strict()
  .refine((entry) => (entry.key === undefined) !== (entry.key_sha256 === undefined), "give exactly one of key and key_sha256");

const keysFile = z.object({ keys: z.array(keysFileEntry) }).strict();

/**
 * Keys provisioned from a JSON file (for example a mounted Kubernetes
 * Secret): `{ "keys": [{ "key" | "key_sha256", "tenant", "subject",
 * "groups", "scopes", "expires_at"? }] }`. Plain keys are hashed on load and
 * not kept.
 */
export function loadKeysFile(path: string): KeyDirectory {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`Cannot read the API keys file ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const result = keysFile.safeParse(parsed);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`).join("\n");
    throw new Error(`Invalid API keys file ${path}:\n${problems}`);
  }
  const byHash = new Map<string, ApiKeyRecord>();
  for (const entry of result.data.keys) {
    const hash = entry.key_sha256 ?? hashApiKey(entry.key!);
    byHash.set(hash, {
      principal: { tenant: entry.tenant, subject: entry.subject, groups: entry.groups, scopes: entry.scopes },
      expiresAt: entry.expires_at === undefined ? undefined : new Date(entry.expires_at),
    });
  }
  return { lookup: async (keyHash) => byHash.get(keyHash) };
}

/** Asks each directory in turn; the first that knows the key answers. */
export function chainDirectories(directories: KeyDirectory[]): KeyDirectory {
  return {
    async lookup(keyHash) {
      for (const directory of directories) {
        const record = await directory.lookup(keyHash);
        if (record !== undefined) return record;
      }
      return undefined;
    },
  };
}

/**
 * Caches lookups (hits and misses) for `ttlMs`, so a busy gateway does not
 * ask the store on every request; a revocation reaches every replica within
 * that time.
 */
export function cacheDirectory(directory: KeyDirectory, ttlMs: number, maxEntries = 10_000): KeyDirectory {
  const cache = new Map<string, { record: ApiKeyRecord | undefined; until: number }>();
  return {
    async lookup(keyHash) {
      const now = Date.now();
      const cached = cache.get(keyHash);
      if (cached !== undefined && cached.until > now) return cached.record;
      const record = await directory.lookup(keyHash);
      if (cache.size >= maxEntries) cache.clear();
      cache.set(keyHash, { record, until: now + ttlMs });
      return record;
    },
  };
}
