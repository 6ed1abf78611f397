/**
 * The memory service: values stored under a caller-chosen (namespace, key),
 * upserted, compared-and-set, kept as revisions and deleted to a tombstone.
 *
 * Each owner has their own keys in a namespace; a caller writes their own
 * memory unless they name another owner, whose memory they may then change
 * only if it exists and a write grant reaches it. A memory nobody may see
 * and one that does not exist get one and the same answer. Every put and
 * delete is audited in its own transaction. No SQL or transport here.
 *
 * Every put's value, kind and tags pass the entries' write-time screen
 * before its transaction opens; a revision with findings is stored
 * quarantined (`value:<rule>`, …) and reads hold it back as entries' reads
 * do: `get_memory` refuses it and `list_memories` leaves it out, unless
 * `include_quarantined`. The next clean put of the key ends it, or a
 * reviewer's approval through its mirror (review/review.ts), which makes it
 * `verified`; a rejected value is held back as a quarantined one.
 *
 * Every live memory has one mirror entry (kind `memory`, in the namespace,
 * with the memory's owner, visibility, tags, trust and value), through
 * which the search tools find it: a put inserts or updates it and a delete
 * deletes it, through the entry write scope of the same transaction, so the
 * memory and its mirror commit together or not at all. The put carries what
 * the gateway generated for the value (chunks, embeddings, summary), and is
 * refused without it.
 */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { DenialRecorder } from "../audit/audit.js";
import { createIdempotentRunner, type IdempotencyExpiry, type Outcome } from "../idempotency/idempotency.js";
import { isAdmin, requirePrincipal, type Principal } from "../model/principal.js";
import { validateGenerated } from "../entries/entry-validation.js";
import type { GeneratedWrite } from "../model/entry-model.js";
import { screenParts } from "../screen/part-screen.js";
import type { WriteScreen } from "../screen/write-screen.js";
import type { MemoryRepository, MemoryWrite, MemoryWriteScope, StoredMemory } from "./memory-repository.js";
import {
  describeName,
  isWithheld,
  memoryHash,
  memoryLimits,
  memoryNotFound,
  memoryVersionConflict,
  memoryWithheld,
  namespaceOf,
  screenedPartsOf,
  revisionFor,
  validateMemoryPage,
  validateName,
  validatePut,
  validateReason,
  type DeleteMemoryRequest,
  type DeleteMemoryResult,
  type GetMemoryRequest,
  type ListMemoriesRequest,
  type MemoryHistory,
  type MemoryHistoryRequest,
  type MemoryName,
  type MemoryPage,
  type MemoryRecord,
  type PutMemoryRequest,
  type PutMemoryResult,
  type ScreenedPut,
} from "./memory-model.js";
import { decodeCursor, encodeCursor } from "./memory-cursor.js";
import { mirrorIn, unmirrorIn } from "./memory-mirroring.js";

export interface MemoryService {
  put(principal: Principal | undefined, request: PutMemoryRequest): Promise<Outcome<PutMemoryResult>>;
  get(principal: Principal | undefined, request: GetMemoryRequest): Promise<MemoryRecord>;
  list(principal: Principal | undefined, request: ListMemoriesRequest): Promise<MemoryPage>;
  history(principal: Principal | undefined, request: MemoryHistoryRequest): Promise<MemoryHistory>;
  delete(principal: Principal | undefined, request: DeleteMemoryRequest): Promise<Outcome<DeleteMemoryResult>>;
}

/** How many owners an ambiguous name lists. */
const ownersShown = 10;

/** The locked memory a write may change, or the error that says why not (hidden and missing alike). */
async function writableMemory(
  scope: MemoryWriteScope,
  caller: Principal,
  name: MemoryName,
): Promise<StoredMemory | undefined> {
  const memory = await scope.lockNamed(caller, name);
  if (memory === undefined) return undefined;
  if (!memory.writable) {
    throw new ContextHubError(
      "PERMISSION_DENIED",
      `you may read memory ${describeName(name, caller.subject)} but not change it`,
      { remedy: "ask its owner for a write grant on the namespace" },
    );
  }
  return memory;
}

function checkExpected(
  name: MemoryName,
  caller: Principal,
  expected: number | undefined,
  memory: StoredMemory | undefined,
): void {
  if (expected === undefined) return;
  const actual = memory === undefined || memory.deletedAt !== undefined ? undefined : memory.version;
  if ((actual ?? 0) !== expected) throw memoryVersionConflict(name, caller.subject, expected, actual);
}

function writeOf(put: ScreenedPut, visibility: MemoryWrite["visibility"]): MemoryWrite {
  return {
    visibility,
    kind: put.kind,
    tags: put.tags,
    valueType: put.valueType,
    value: put.value,
    contentHash: memoryHash(put.value),
    trust: put.trust,
  };
}

async function putIn(
  scope: MemoryWriteScope,
  caller: Principal,
  put: ScreenedPut & { generated: GeneratedWrite },
): Promise<PutMemoryResult> {
  const own = put.owner === caller.subject;
  // A first put of the caller's own key inserts; a concurrent first put of the same key makes this insert nothing, and the update below follows it.
  const inserted =
    own && (put.expectedVersion ?? 0) === 0
      ? await scope.insert(caller, put, writeOf(put, put.visibility ?? "shared"))
      : undefined;
  let result: PutMemoryResult;
  if (inserted !== undefined) {
    result = { memory: inserted, created: true };
  } else {
    const memory = await writableMemory(scope, caller, put);
    if (memory === undefined && !own) throw memoryNotFound(put, caller.subject);
    checkExpected(put, caller, put.expectedVersion, memory);
    if (memory === undefined) throw new Error("a caller's own memory vanished between its insert and its lock");
    if (
      put.visibility !== undefined &&
      put.visibility !== memory.visibility &&
      memory.owner !== caller.subject &&
      !caller.scopes.includes("context:admin")
    ) {
      throw new ContextHubError(
        "PERMISSION_DENIED",
        `only the owner of memory ${describeName(put, caller.subject)} may change its visibility`,
      );
    }
    const updated = await scope.update(caller, memory.id, writeOf(put, put.visibility ?? memory.visibility));
    result = { memory: updated, created: memory.deletedAt !== undefined };
  }
  await scope.keepRevision(result.memory, "put", "");
  await mirrorIn(scope, caller, result.memory, put.generated);
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "memory.put",
    outcome: "ok",
    targetIds: [result.memory.id],
    beforeHashes: [],
    afterHashes: [result.memory.contentHash],
    details: {
      namespace: put.namespace,
      key: put.key,
      owner: put.owner,
      version: result.memory.version,
      trust_state: put.trust.state,
      ...(put.trust.reasons.length === 0 ? {} : { trust_reasons: put.trust.reasons }),
    },
  });
  return result;
}

async function deleteIn(
  scope: MemoryWriteScope,
  caller: Principal,
  name: MemoryName,
  reason: string,
  expected: number | undefined,
): Promise<DeleteMemoryResult> {
  const memory = await writableMemory(scope, caller, name);
  if (memory === undefined || memory.deletedAt !== undefined) throw memoryNotFound(name, caller.subject);
  checkExpected(name, caller, expected, memory);
  const deleted = await scope.markDeleted(caller, memory.id, reason);
  await scope.keepRevision(deleted, "delete", reason);
  await unmirrorIn(scope, caller, memory.id, reason);
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "memory.delete",
    outcome: "ok",
    targetIds: [memory.id],
    beforeHashes: [memory.contentHash],
    afterHashes: [],
    details: { namespace: name.namespace, key: name.key, owner: name.owner, version: deleted.version, reason },
  });
  return { id: memory.id, namespace: name.namespace, key: name.key, owner: name.owner, version: deleted.version };
}

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

/**
 * The refusal of a put without generation output (its value is never empty:
 * validatePut refuses that first): its mirror would have no chunks, so
 * meaning-based search would never find the memory. The gateway generates
 * before every put; a gRPC caller that skips it must do the same.
 */
function refuseUngenerated(): never {
  throw invalidArgument(
    "generated is required for a non-empty value: the chunks and embeddings of the memory's mirror entry are generated before the put commits (the gateway always sends them), and a mirror without them is never found by semantic search",
    "generate embeddings for the value as stored (a JSON value's normalised text) and send them in generated, with its text_hash",
  );
}

/** The memory service over its repository. */
export function createMemoryService(
  repository: MemoryRepository,
  denials: DenialRecorder,
  screen: WriteScreen,
  expiry?: IdempotencyExpiry,
): MemoryService {
  const runner = createIdempotentRunner(repository, expiry);
  const inTransaction = <T>(scope: MemoryWriteScope | undefined, work: (scope: MemoryWriteScope) => Promise<T>) =>
    scope === undefined ? repository.transaction(work) : work(scope);
  return {
    put(principal, request) {
      return denials.guard(principal, "memory.put", [], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "PutMemory",
          request.idempotency,
          // Checked and screened before any transaction opens: bad input, or a screen over its budget, stores nothing.
          async () => {
            const put = validatePut(request, caller.subject);
            // Checked against the value as stored (a JSON value's normalised text), which the mirror entry holds.
            const generated =
              request.generated === undefined
                ? refuseUngenerated()
                : validateGenerated(request.generated, put.value, "generated", true);
            return { ...put, generated, trust: await screenParts(screen, screenedPartsOf(put)) };
          },
          (put, scope) => inTransaction(scope, (tx) => putIn(tx, caller, put)),
        );
      });
    },

    delete(principal, request) {
      return denials.guard(principal, "memory.delete", [], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "DeleteMemory",
          request.idempotency,
          () => ({ name: validateName(request, caller.subject), reason: validateReason(request.reason) }),
          ({ name, reason }, scope) =>
            inTransaction(scope, (tx) => deleteIn(tx, caller, name, reason, request.expectedVersion)),
        );
      });
    },

    async get(principal, request) {
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
      const revision =
        found === undefined ? undefined : revisionFor(found, memory.owner, caller.subject, isAdmin(caller));
      // A redacted revision has no value to give: it answers as one that does not exist.
      if (revision === undefined || revision.change === "delete" || revision.redacted) {
        const when =
          request.asOf === undefined ? `version ${request.version}` : `a value at ${request.asOf.toISOString()}`;
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
    },

    async list(principal, request) {
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
        nextCursor:
          rows.length > limit && last !== undefined ? encodeCursor([last.namespace, last.key, last.owner]) : "",
      };
    },

    async history(principal, request) {
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
    },
  };
}
