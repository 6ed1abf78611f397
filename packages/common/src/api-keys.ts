import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Every API key starts with this, so secret scanners and people recognise one. */
export const apiKeyPrefix = "chk_";

const keyPattern = /^chk_[A-Za-z0-9_-]{43}$/;

/** A new high-entropy API key (256 random bits, base64url) with the recognisable prefix. */
export function generateApiKey(): string {
  return apiKeyPrefix + randomBytes(32).toString("base64url");
}

/** Whether a string has the shape of an API key (it may still be unknown or revoked). */
export function isApiKeyShaped(value: string): boolean {
  return keyPattern.test(value);
}

/**
 * The stored form of a key: hex SHA-256. Keys carry 256 random bits, so a
 * fast hash is enough; a slow password hash would only slow every request.
 */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Constant-time comparison of two hex hashes. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A short, non-secret handle shown in listings: the first characters after the prefix. */
export function apiKeyHint(key: string): string {
  return key.slice(0, apiKeyPrefix.length + 6);
}
