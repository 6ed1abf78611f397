import { createHash } from "node:crypto";
import { readFileSync, watch, type FSWatcher } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { hashApiKey, isApiKeyShaped, isReservedSubject } from "@context-hub/common";
import { scopes, type Principal } from "../principal.js";

/** What a key is bound to. */
export interface ApiKeyRecord {
  principal: Principal;
  /** Absent: never expires. */
  expiresAt: Date | undefined;
}

/** A key the store knows as revoked: refused whatever another source says. */
export const revokedKey = "revoked";

/** What a directory knows of a key hash: its record, that it was revoked, or nothing. */
export type KeyLookup = ApiKeyRecord | typeof revokedKey | undefined;

/** Finds the record of a key by the key's hash. */
export interface KeyDirectory {
  lookup(keyHash: string): Promise<KeyLookup>;
}

const nameSchema = z
  .string()
  .min(1)
  .max(256)
  .refine((value) => !value.includes("\u0000"), "must not contain NUL");

const keysFileEntry = z
  .object({
    key: z
      .string()
      .refine(
        isApiKeyShaped,
        "key must look like chk_ followed by 43 base64url characters (create one with `context-hub keys create`)",
      )
      .optional(),
    key_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "key_sha256 must be 64 lowercase hex characters")
      .optional(),
    tenant: nameSchema,
    subject: nameSchema.refine(
      (subject) => !isReservedSubject(subject),
      "subject is reserved: the audit log records operator actions under that name; choose another subject",
    ),
    groups: z.array(nameSchema).max(100).default([]),
    scopes: z.array(z.enum(scopes)).min(1, "give at least one scope"),
    expires_at: z.iso.datetime({ offset: true }).optional(),
  })
  .strict()
  .refine(
    (entry) => (entry.key === undefined) !== (entry.key_sha256 === undefined),
    "give exactly one of key and key_sha256",
  );

const keysFile = z.object({ keys: z.array(keysFileEntry) }).strict();

/** Reads and checks a keys file: its records by key hash, or an error naming the file and every problem. */
export function readKeysFile(path: string): Map<string, ApiKeyRecord> {
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
  return byHash;
}

/**
 * Keys provisioned from a JSON file (for example a mounted Kubernetes
 * Secret): `{ "keys": [{ "key" | "key_sha256", "tenant", "subject",
 * "groups", "scopes", "expires_at"? }] }`. Plain keys are hashed on load and
 * not kept. Read once; see {@link watchKeysFile} for a file that changes.
 */
export function loadKeysFile(path: string): KeyDirectory {
  const byHash = readKeysFile(path);
  return { lookup: async (keyHash) => byHash.get(keyHash) };
}

/** A keys file kept current: {@link KeyDirectory} over its latest valid contents. */
export interface WatchedKeysFile extends KeyDirectory {
  /** Reads the file again now (SIGHUP); true when its contents changed and were taken. */
  reload(): boolean;
  /** Stops watching. */
  close(): void;
}

/** Where a watched keys file reports what happened to it. */
export interface KeysFileLog {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * A keys file that is read again whenever it changes: on a change event of
 * its directory (a Kubernetes Secret volume swaps a symlink beside the file,
 * so the directory is what is watched), every `pollMs` in case events are
 * not delivered (network file systems, some container runtimes), and on
 * {@link WatchedKeysFile.reload}. A change is taken only when the new file
 * is valid; an invalid one is logged and the keys already loaded stay in
 * force, so a half-written file cannot lock every key out. The first read
 * must succeed: the gateway does not start on an invalid file.
 */
export function watchKeysFile(path: string, options: { pollMs: number; log: KeysFileLog }): WatchedKeysFile {
  const fingerprint = () => createHash("sha256").update(readFileSync(path)).digest("hex");
  let byHash = readKeysFile(path);
  let seen = fingerprint();
  let rejected: string | undefined;

  const reload = (): boolean => {
    let current: string;
    try {
      current = fingerprint();
    } catch (error) {
      options.log.error({ err: error, path }, "cannot read the API keys file; the keys loaded before stay in force");
      return false;
    }
    if (current === seen || current === rejected) return false;
    try {
      byHash = readKeysFile(path);
      seen = current;
      rejected = undefined;
      options.log.info({ path, keys: byHash.size }, "API keys file reloaded");
      return true;
    } catch (error) {
      rejected = current;
      options.log.error(
        { err: error, path },
        "the API keys file changed but is invalid; the keys loaded before stay in force",
      );
      return false;
    }
  };

  let pending: NodeJS.Timeout | undefined;
  const soon = () => {
    // Writers often truncate then write: wait for the burst of events to settle.
    clearTimeout(pending);
    pending = setTimeout(reload, 50);
    pending.unref();
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(path), { persistent: false }, soon);
    watcher.on("error", () => watcher?.close());
  } catch {
    watcher = undefined;
  }
  const poll = setInterval(reload, options.pollMs);
  poll.unref();

  return {
    lookup: async (keyHash) => byHash.get(keyHash),
    reload,
    close() {
      watcher?.close();
      clearInterval(poll);
      clearTimeout(pending);
    },
  };
}

/**
 * The API keys of a gateway: those of the file (when there is one) and those
 * of the store. A revocation in the store wins: a key the store knows as
 * revoked is refused even while the file still lists it. Otherwise the
 * file's record is used when it has one, and the store's when not. If the
 * store cannot be asked, a file key still works (its revocation cannot be
 * checked until the store answers again); a store key does not.
 */
export function layerDirectories(file: KeyDirectory | undefined, store: KeyDirectory): KeyDirectory {
  if (file === undefined) return store;
  return {
    async lookup(keyHash) {
      const fromFile = await file.lookup(keyHash);
      let fromStore: KeyLookup;
      try {
        fromStore = await store.lookup(keyHash);
      } catch (error) {
        if (fromFile !== undefined) return fromFile;
        throw error;
      }
      if (fromStore === revokedKey) return revokedKey;
      return fromFile ?? fromStore;
    },
  };
}

/**
 * Caches lookups (hits, misses and revocations) for `ttlMs`, so a busy
 * gateway does not ask the store on every request; a revocation reaches
 * every replica within that time. At `maxEntries` the least recently used
 * entry makes room, so a flood of made-up keys cannot flush the keys in use.
 */
export function cacheDirectory(
  directory: KeyDirectory,
  ttlMs: number,
  maxEntries = 10_000,
  now: () => number = Date.now,
): KeyDirectory {
  const cache = new Map<string, { record: KeyLookup; until: number }>();
  return {
    async lookup(keyHash) {
      const at = now();
      const cached = cache.get(keyHash);
      if (cached !== undefined && cached.until > at) {
        // Re-inserting keeps the map in least-recently-used order.
        cache.delete(keyHash);
        cache.set(keyHash, cached);
        return cached.record;
      }
      const record = await directory.lookup(keyHash);
      cache.delete(keyHash);
      while (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
      cache.set(keyHash, { record, until: at + ttlMs });
      return record;
    },
  };
}
