/**
 * API keys: who a key speaks for (tenant, subject, groups, scopes) and its
 * life (expiry, revocation). The store keeps only the key's SHA-256; the key
 * itself never reaches it. These are operator operations: they carry no
 * principal, so the store's port must be reachable only by the gateway and
 * the CLI. No transport or SQL here.
 */
import { ContextHubError, invalidArgument, isReservedSubject, reservedSubjectMessage } from "@context-hub/common";
import { isUuid } from "../model/ids.js";
import type { Scope } from "../model/principal.js";

/** A key as an operator describes it (before validation). */
export interface ApiKeyInput {
  /** The key's non-secret start, for people to recognise it. */
  hint: string;
  tenant: string;
  subject: string;
  groups: readonly string[];
  scopes: readonly string[];
  description: string;
  expiresAt: Date | undefined;
}

/** A validated key ready to store. */
export interface ApiKeyWrite {
  hint: string;
  tenant: string;
  subject: string;
  groups: string[];
  scopes: Scope[];
  description: string;
  expiresAt: Date | undefined;
}

/** A stored key; never carries its hash out of the store. */
export interface ApiKeyRecord extends ApiKeyWrite {
  id: string;
  createdAt: Date;
  revokedAt: Date | undefined;
}

export interface ApiKeyRepository {
  /** Inserts the key, audited as `actor`'s; undefined when a key with this hash exists already. */
  insert(key: ApiKeyWrite, keyHash: string, actor: string): Promise<ApiKeyRecord | undefined>;
  /** Keys of one tenant (or all), newest first. */
  list(filter: { tenant: string | undefined; includeRevoked: boolean }): Promise<ApiKeyRecord[]>;
  /** Every key with this hint, newest first. */
  findByHint(hint: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked now, unless it already is, audited as `actor`'s; undefined when there is no such key. */
  revoke(id: string, actor: string): Promise<ApiKeyRecord | undefined>;
  /** The key with this hash if it is not revoked. */
  /** The key with this hash, revoked or not. */
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
}

export interface ApiKeyService {
  /**
   * Stores a new key under its hash, audited as `actor`'s (an administrator's
   * subject; "" for an operator); INVALID_ARGUMENT when anything is malformed
   * or the hash is taken.
   */
  create(key: ApiKeyInput | undefined, keyHash: string, actor: string): Promise<ApiKeyRecord>;
  /** Keys of one tenant (empty: every tenant), newest first; revoked ones only when asked. */
  list(request: { tenant: string; includeRevoked: boolean }): Promise<ApiKeyRecord[]>;
  /**
   * Revokes a key named by its id or its hint. Revoking a revoked key returns
   * it unchanged. ENTRY_NOT_FOUND when nothing matches; INVALID_ARGUMENT when
   * a hint matches several keys that are not revoked. Audited as `actor`'s,
   * as `create` is.
   */
  revoke(idOrHint: string, actor: string): Promise<ApiKeyRecord>;
  /**
   * The key with this hash, if it exists and is not revoked (expiry is the
   * caller's to check, from `expiresAt`), and whether the hash belongs to a
   * revoked key (a revocation outranks any other source of the key).
   */
  lookup(keyHash: string): Promise<{ key: ApiKeyRecord | undefined; revoked: boolean }>;
}

export const apiKeyScopes: readonly Scope[] = ["context:read", "context:write", "context:review", "context:admin"];

export const apiKeyLimits = { identifierLength: 256, groups: 1000, hintLength: 64, descriptionLength: 1000 } as const;

const keyHashPattern = /^[0-9a-f]{64}$/;

function isScope(value: string): value is Scope {
  return (apiKeyScopes as readonly string[]).includes(value);
}

function validateName(value: string, field: string, maxLength: number): string {
  if (value.length < 1 || value.length > maxLength)
    throw invalidArgument(`${field} must be 1 to ${maxLength} characters (got ${value.length})`);
  if (value.includes("\u0000")) throw invalidArgument(`${field} must not contain NUL characters`);
  return value;
}

function validateKeyHash(keyHash: string): string {
  if (!keyHashPattern.test(keyHash))
    throw invalidArgument("key_hash must be the lowercase hex SHA-256 of the key (64 characters)");
  return keyHash;
}

/** Checks a key an operator wants stored; throws INVALID_ARGUMENT naming the first problem. */
export function validateApiKey(key: ApiKeyInput, now: Date = new Date()): ApiKeyWrite {
  const tenant = validateName(key.tenant, "key.tenant", apiKeyLimits.identifierLength);
  const subject = validateName(key.subject, "key.subject", apiKeyLimits.identifierLength);
  if (isReservedSubject(subject)) throw invalidArgument(reservedSubjectMessage("key.subject", subject));
  if (key.groups.length > apiKeyLimits.groups)
    throw invalidArgument(`key.groups: at most ${apiKeyLimits.groups} (got ${key.groups.length})`);
  const groups = [
    ...new Set(
      key.groups.map((group, index) => validateName(group, `key.groups[${index}]`, apiKeyLimits.identifierLength)),
    ),
  ];
  if (key.scopes.length === 0) throw invalidArgument(`key.scopes must name at least one of ${apiKeyScopes.join(", ")}`);
  const scopes = key.scopes.map((scope, index) => {
    if (!isScope(scope))
      throw invalidArgument(
        `key.scopes[${index}] ${JSON.stringify(scope.slice(0, 64))} is not a scope: use ${apiKeyScopes.join(", ")}`,
      );
    return scope;
  });
  const hint = validateName(key.hint, "key.hint", apiKeyLimits.hintLength);
  if (key.description.length > apiKeyLimits.descriptionLength) {
    throw invalidArgument(
      `key.description is ${key.description.length} characters; the limit is ${apiKeyLimits.descriptionLength}`,
    );
  }
  if (key.description.includes("\u0000")) throw invalidArgument("key.description must not contain NUL characters");
  if (key.expiresAt !== undefined && !(key.expiresAt.getTime() > now.getTime()))
    throw invalidArgument("key.expires_at must be in the future");
  return {
    hint,
    tenant,
    subject,
    groups,
    scopes: [...new Set(scopes)],
    description: key.description,
    expiresAt: key.expiresAt,
  };
}

function noSuchKey(idOrHint: string): ContextHubError {
  return new ContextHubError("ENTRY_NOT_FOUND", `no such API key: ${JSON.stringify(idOrHint.slice(0, 100))}`, {
    remedy: "list the keys to find its id or hint",
  });
}

/** Who the audit record names: the administrator who asked, or `operator` for the CLI (no actor). */
function auditActor(actor: string): string {
  return actor === "" ? "operator" : validateName(actor, "actor", apiKeyLimits.identifierLength);
}

/** The API key service over a repository. */
export function createApiKeyService(repository: ApiKeyRepository): ApiKeyService {
  return {
    async create(key, keyHash, actor) {
      if (key === undefined) throw invalidArgument("key is required");
      const write = validateApiKey(key);
      const created = await repository.insert(write, validateKeyHash(keyHash), auditActor(actor));
      if (created === undefined)
        throw invalidArgument("an API key with this key_hash already exists", "generate a new key");
      return created;
    },

    async list(request) {
      const tenant =
        request.tenant === "" ? undefined : validateName(request.tenant, "tenant", apiKeyLimits.identifierLength);
      return repository.list({ tenant, includeRevoked: request.includeRevoked });
    },

    async revoke(idOrHint, actor) {
      if (idOrHint.trim() === "") throw invalidArgument("id must name the key to revoke, by its id or its hint");
      const id = idOrHint.trim().toLowerCase();
      if (isUuid(id)) {
        const revoked = await repository.revoke(id, auditActor(actor));
        if (revoked === undefined) throw noSuchKey(idOrHint);
        return revoked;
      }
      const matches = await repository.findByHint(idOrHint.trim());
      const active = matches.filter((key) => key.revokedAt === undefined);
      if (active.length > 1) {
        throw invalidArgument(
          `the hint ${JSON.stringify(idOrHint.trim())} matches ${active.length} API keys; revoke by id`,
          "list the keys to find the id",
        );
      }
      // A hint naming only revoked keys names the latest of them: revoking again changes nothing.
      const target = active[0] ?? matches[0];
      if (target === undefined) throw noSuchKey(idOrHint);
      const revoked = await repository.revoke(target.id, auditActor(actor));
      if (revoked === undefined) throw noSuchKey(idOrHint);
      return revoked;
    },

    async lookup(keyHash) {
      const found = await repository.findByHash(validateKeyHash(keyHash));
      return found?.revokedAt === undefined ? { key: found, revoked: false } : { key: undefined, revoked: true };
    },
  };
}
