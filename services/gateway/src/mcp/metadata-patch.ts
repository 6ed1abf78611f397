/**
 * update_context's metadata_patch: an RFC 7396 JSON merge patch applied to
 * the entry's current metadata inside the compare-and-set. The gateway reads
 * the entry's metadata and version, merges, and updates with that version as
 * expected; if another writer got there first, it reads again and retries,
 * so no concurrent change is lost.
 */
import { ContextHubError } from "@context-hub/common";
import type { JsonObject, JsonValue } from "../clients/json-value.js";

/** Attempts before a patch gives up on an entry that keeps changing. */
export const maxPatchAttempts = 8;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * RFC 7396: a patch that is not an object replaces the target; an object
 * merges key by key, a null deleting the key, an object merging
 * recursively, anything else (arrays included) replacing the value.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const merged = new Map(Object.entries(isObject(target) ? target : {}));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else merged.set(key, mergePatch(merged.get(key), value));
  }
  // fromEntries defines own properties, so a key such as "__proto__" never reaches a prototype.
  return Object.fromEntries(merged);
}

export interface PatchTarget<T> {
  /** The entry's current metadata and version, read fresh. */
  read(): Promise<{ metadata: JsonObject; version: number }>;
  /** The update with the merged metadata, applied only if the entry is still at `version`. */
  write(metadata: JsonObject, version: number): Promise<T>;
}

const isConflict = (error: unknown) => error instanceof ContextHubError && error.code === "VERSION_CONFLICT";

/**
 * Applies `patch` under compare-and-set. With `expectedVersion` the caller
 * pinned the version it read: a conflict is theirs to resolve and is
 * returned at once. Without it, a conflict means another writer changed the
 * entry between the read and the write; the patch is merged again onto what
 * that writer left, at most `maxPatchAttempts` times.
 */
export async function applyMetadataPatch<T>(
  target: PatchTarget<T>,
  patch: JsonObject,
  expectedVersion: number | undefined,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const current = await target.read();
    if (expectedVersion !== undefined && current.version !== expectedVersion) {
      throw new ContextHubError(
        "VERSION_CONFLICT",
        `the entry is at version ${current.version}, not the expected ${expectedVersion}`,
        {
          remedy:
            "fetch the entry again, then retry with its current version (or leave expected_version out to merge onto whatever is current)",
        },
      );
    }
    try {
      return await target.write(mergePatch(current.metadata, patch) as { [key: string]: JsonValue }, current.version);
    } catch (error) {
      if (!isConflict(error) || expectedVersion !== undefined || attempt >= maxPatchAttempts) throw error;
    }
  }
}
