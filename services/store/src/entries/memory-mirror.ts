/**
 * The mirror entry of a named memory: the one entry (kind `memory`) through
 * which every search mode finds a live memory under the entries' access
 * predicate. Its owner, thread (the memory's namespace), visibility, tags,
 * text (the value) and trust are the memory's, so thread grants on the
 * namespace reach exactly the callers the memory's own grants reach. Only
 * the memory's put and delete write it, in the memory's transaction, and a
 * review of a quarantined or rejected value, in the review's (which judges
 * the memory through it); every other entry-side change of a mirror is
 * refused here, by the locks that every such change takes.
 */
import { ContextHubError, contentHash, entryLimits } from "@context-hub/common";
import type { EntryWrite, JsonObject, Visibility } from "../model/entry-model.js";
import { memoryMirrorKind } from "../model/entry-kinds.js";
import { toPreview } from "../model/preview.js";

/** The memory revision a mirror shows. */
export interface MirroredMemory {
  id: string;
  namespace: string;
  key: string;
  owner: string;
  visibility: Visibility;
  kind: string;
  tags: string[];
  /** The value as stored (a JSON value as its JSON text). */
  value: string;
  version: number;
}

/** A key as a title: one line, trimmed, cut to the title limit; undefined when nothing is left. */
function titleOf(key: string): string | undefined {
  const title = key
    .replace(/[\r\n\u2028\u2029]+/g, " ")
    .trim()
    .slice(0, entryLimits.titleChars)
    .trim();
  return title === "" ? undefined : title;
}

/** The metadata that names a mirror's memory. */
export function mirrorMetadata(memory: MirroredMemory): JsonObject {
  return {
    memory_namespace: memory.namespace,
    memory_key: memory.key,
    memory_owner: memory.owner,
    memory_kind: memory.kind,
    memory_version: memory.version,
  };
}

/** The entry a memory's revision is mirrored as: in its namespace, with its value as the text. */
export function mirrorWriteOf(memory: MirroredMemory): EntryWrite {
  return {
    threadId: memory.namespace,
    source: "agent",
    text: memory.value,
    textLength: memory.value.length,
    preview: toPreview(memory.value),
    contentHash: contentHash(memory.value),
    metadata: mirrorMetadata(memory),
    tags: memory.tags,
    images: [],
    visibility: memory.visibility,
    contentType: "text",
    validity: { validFrom: undefined, validTo: undefined },
    kind: memoryMirrorKind,
    title: titleOf(memory.key),
    promptArguments: [],
    artifacts: [],
    promptName: undefined,
  };
}

/** A mirror's memory as messages name it: "namespace"/"key" of "owner". */
function memoryLabel(metadata: JsonObject): string {
  const name = `${JSON.stringify(metadata["memory_namespace"] ?? "")}/${JSON.stringify(metadata["memory_key"] ?? "")}`;
  return typeof metadata["memory_owner"] === "string" ? `${name} of ${JSON.stringify(metadata["memory_owner"])}` : name;
}

/**
 * The refusal of a review of a mirror whose memory's value waits for no
 * reviewer (unverified or verified): a review judges only a quarantined or
 * rejected memory value. Told only to callers who may review the entry.
 */
export function memoryNotReviewable(entryId: string, metadata: JsonObject, state: string): ContextHubError {
  return new ContextHubError(
    "PERMISSION_DENIED",
    `entry ${entryId} mirrors memory ${memoryLabel(metadata)}, whose value is ${state}: only a quarantined or rejected memory value is reviewed`,
    {
      remedy: "change the memory with put_memory or delete_memory",
      details: { trust_state: state, memory_namespace: metadata["memory_namespace"] ?? null },
    },
  );
}

/**
 * The refusal of an entry-side change of a mirror: nothing is changed, and
 * the answer names the memory and the tools that change it. Told only to
 * callers who can see the entry (the locks that raise it apply the access
 * predicate first).
 */
export function memoryMirrorRefused(entryId: string, metadata: JsonObject): ContextHubError {
  return new ContextHubError(
    "PERMISSION_DENIED",
    `entry ${entryId} mirrors memory ${memoryLabel(metadata)}; change it with put_memory or delete_memory`,
    {
      remedy: "put a new value with put_memory, or delete the memory with delete_memory; its mirror entry follows",
      details: {
        memory_namespace: metadata["memory_namespace"] ?? null,
        memory_key: metadata["memory_key"] ?? null,
        memory_owner: metadata["memory_owner"] ?? null,
      },
    },
  );
}
