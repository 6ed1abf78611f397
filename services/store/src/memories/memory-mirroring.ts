/**
 * A memory's mirror entry kept in step with it, inside the memory's own
 * transaction: written on every put (inserted, or updated as a new entry
 * version) and deleted with the memory, through the entry write scope.
 */
import { mirrorWriteOf } from "../entries/memory-mirror.js";
import type { GeneratedWrite } from "../model/entry-model.js";
import type { Principal } from "../model/principal.js";
import type { MemoryWriteScope } from "./memory-repository.js";
import type { MemoryRecord } from "./memory-model.js";

/**
 * Writes the mirror entry of a memory's new revision, in the memory's
 * transaction: inserted on the first put (and after a delete, or for a
 * memory stored before mirrors existed), else updated as a new entry
 * version (new text with its chunks when the value changed; the memory's
 * visibility, tags, trust and version always). `generated` is what was
 * generated for the value: a put without it is refused before this runs.
 */
export async function mirrorIn(
  scope: MemoryWriteScope,
  caller: Principal,
  memory: MemoryRecord,
  generated: GeneratedWrite,
): Promise<void> {
  const write = mirrorWriteOf(memory);
  const trust = { state: memory.trust.state, reasons: memory.trust.reasons };
  const mirror = await scope.entries.lockMirror(caller, memory.id);
  if (mirror === undefined) {
    await scope.entries.insertMirror(caller, memory, write, generated, trust);
    return;
  }
  const ack = await scope.entries.update(
    caller,
    mirror,
    {
      text: mirror.contentHash === write.contentHash ? undefined : { ...write, generated },
      metadata: write.metadata,
      tags: write.tags,
      images: undefined,
      visibility: write.visibility,
      validity: undefined,
      kind: undefined,
      title: undefined,
      promptArguments: undefined,
    },
    { trust, changeKind: "update", restoredFrom: undefined },
  );
  // The memory is locked and writable, and its mirror shares its access: no match means the two have drifted apart.
  if (ack === undefined)
    throw new Error(`the mirror entry ${mirror.id} of memory ${memory.id} refused its memory's put`);
}

/** Deletes the mirror entry of a memory being deleted, leaving its tombstone, in the delete's transaction. */
export async function unmirrorIn(
  scope: MemoryWriteScope,
  caller: Principal,
  memoryId: string,
  reason: string,
): Promise<void> {
  const mirror = await scope.entries.lockMirror(caller, memoryId);
  if (mirror !== undefined && !(await scope.entries.delete(caller, mirror.id, reason)))
    throw new Error(`the mirror entry ${mirror.id} of memory ${memoryId} refused its memory's delete`);
}
