/**
 * The memory service's reads: one memory (now, at a version or as of a
 * time), a page of the memories the caller may see, and a memory's history.
 * A name the caller gives resolves to its own memory first, else to another
 * owner's when that is the only one the caller sees.
 */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import { isAdmin, requirePrincipal, type Principal } from "../model/principal.js";
import type { MemoryRepository, StoredMemory } from "./memory-repository.js";
import {
  describeName,
  isWithheld,
  memoryLimits,
  memoryNotFound,
  memoryWithheld,
  namespaceOf,
  revisionFor,
  validateMemoryPage,
  validateName,
  type GetMemoryRequest,
  type ListMemoriesRequest,
  type MemoryHistory,
  type MemoryHistoryRequest,
  type MemoryPage,
  type MemoryRecord,
} from "./memory-model.js";
import { decodeCursor, encodeCursor } from "./memory-cursor.js";

/** How many owners an ambiguous name lists. */
const ownersShown = 10;
/** The one memory a read names: the caller's own first; another owner's when it is the only one the caller sees. */
async function resolveNamed(
  repository: MemoryRepository,
  caller: Principal,
  request: { namespace: string; key: string; owner: string },
): Promise<StoredMemory> {
  const namespace = namespaceOf(request.namespace, caller.subject);
  const key = validateName({ namespace, key: request.key, owner: "" }, caller.subject).key;
  const owner = request.owner === "" ? undefined : validateName(request, caller.subject).owner;
  const found = await repository.findNamed(caller, namespace, key, owner, ownersShown + 1);
  const [first] = found;
  const name = { namespace, key, owner: owner ?? caller.subject };
  if (first === undefined) throw memoryNotFound(name, caller.subject);
  if (first.owner !== caller.subject && found.length > 1) {
    throw invalidArgument(
      `several memories named ${JSON.stringify(namespace)}/${JSON.stringify(key)} are visible to you (owners: ${found
        .slice(0, ownersShown)
        .map((memory) => memory.owner)
        .join(", ")}${found.length > ownersShown ? ", …" : ""}); none is yours`,
      "pass owner to choose one",
    );
  }
  return first;
}

/** The memory a get names, now or at the version or time it asks for; withheld values only when it includes them. */
export async function getMemory(
  repository: MemoryRepository,
  principal: Principal | undefined,
  request: GetMemoryRequest,
): Promise<MemoryRecord> {
  const caller = requirePrincipal(principal, "context:read");
  if (request.version !== 0 && request.asOf !== undefined) throw invalidArgument("give version or as_of, not both");
  const memory = await resolveNamed(repository, caller, request);
  const name = { namespace: memory.namespace, key: memory.key, owner: memory.owner };
  if (request.version === 0 && request.asOf === undefined) {
    if (memory.deletedAt !== undefined) throw memoryNotFound(name, caller.subject);
    if (isWithheld(memory.trust) && !request.includeQuarantined)
      throw memoryWithheld(name, caller.subject, memory.version, memory.trust);
    return memory;
  }
  const found = await repository.revision(
    memory.id,
    request.asOf === undefined ? { version: request.version } : { asOf: request.asOf },
  );
  const revision = found === undefined ? undefined : revisionFor(found, memory.owner, caller.subject, isAdmin(caller));
  // A redacted revision has no value to give: it answers as one that does not exist.
  if (revision === undefined || revision.change === "delete" || revision.redacted) {
    const when = request.asOf === undefined ? `version ${request.version}` : `a value at ${request.asOf.toISOString()}`;
    throw new ContextHubError("ENTRY_NOT_FOUND", `memory ${describeName(name, caller.subject)} has no ${when}`, {
      remedy: "get_memory_history lists its versions",
    });
  }
  if (isWithheld(revision.trust) && !request.includeQuarantined)
    throw memoryWithheld(name, caller.subject, revision.version, revision.trust);
  return {
    id: memory.id,
    namespace: memory.namespace,
    key: memory.key,
    owner: memory.owner,
    createdAt: memory.createdAt,
    version: revision.version,
    visibility: revision.visibility,
    kind: revision.kind,
    tags: revision.tags,
    valueType: revision.valueType,
    value: revision.value,
    contentHash: revision.contentHash,
    updatedAt: revision.writtenAt,
    updatedBy: revision.writtenBy,
    trust: revision.trust,
  };
}

/** One page of the memories the caller may see, by namespace, key and owner. */
export async function listMemories(
  repository: MemoryRepository,
  principal: Principal | undefined,
  request: ListMemoriesRequest,
): Promise<MemoryPage> {
  const caller = requirePrincipal(principal, "context:read");
  const limit = validateMemoryPage(request.limit);
  const filter = {
    namespace: request.namespace === "" ? "" : namespaceOf(request.namespace, caller.subject),
    keyPrefix: request.keyPrefix,
    kind: request.kind,
    tag: request.tag.trim().toLowerCase(),
    owner: request.owner,
    after: decodeCursor(request.cursor),
    includeQuarantined: request.includeQuarantined,
  };
  for (const [field, value] of [
    ["key_prefix", filter.keyPrefix],
    ["kind", filter.kind],
    ["tag", filter.tag],
    ["owner", filter.owner],
  ] as const) {
    if (value.length > memoryLimits.keyChars || value.includes("\u0000"))
      throw invalidArgument(`${field} must be at most ${memoryLimits.keyChars} characters without NUL`);
  }
  const rows = await repository.list(caller, filter, limit);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    memories: page,
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor([last.namespace, last.key, last.owner]) : "",
  };
}

/** A memory's revisions, newest first, from `request.offset`, with its tombstone when it is deleted. */
export async function memoryHistory(
  repository: MemoryRepository,
  principal: Principal | undefined,
  request: MemoryHistoryRequest,
): Promise<MemoryHistory> {
  const caller = requirePrincipal(principal, "context:read");
  const limit = validateMemoryPage(request.limit);
  if (request.offset > memoryLimits.maxHistoryOffset)
    throw invalidArgument(`offset must be at most ${memoryLimits.maxHistoryOffset} (got ${request.offset})`);
  const memory = await resolveNamed(repository, caller, request);
  const revisions = await repository.revisions(memory.id, limit, request.offset);
  return {
    id: memory.id,
    namespace: memory.namespace,
    key: memory.key,
    owner: memory.owner,
    latestVersion: memory.version,
    revisions: revisions
      .slice(0, limit)
      .map((revision) => revisionFor(revision, memory.owner, caller.subject, isAdmin(caller))),
    hasMore: revisions.length > limit,
    tombstone:
      memory.deletedAt === undefined
        ? undefined
        : { deletedBy: memory.updatedBy, deletedAt: memory.deletedAt, reason: memory.deleteReason },
  };
}
