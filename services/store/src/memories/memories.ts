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
import { requirePrincipal, type Principal } from "../model/principal.js";
import { validateGenerated } from "../entries/entry-validation.js";
import type { GeneratedWrite } from "../model/entry-model.js";
import { screenParts } from "../screen/part-screen.js";
import type { WriteScreen } from "../screen/write-screen.js";
import type { MemoryRepository, MemoryWrite, MemoryWriteScope, StoredMemory } from "./memory-repository.js";
import {
  describeName,
  memoryHash,
  memoryNotFound,
  memoryVersionConflict,
  screenedPartsOf,
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
import { mirrorIn, unmirrorIn } from "./memory-mirroring.js";
import { getMemory, listMemories, memoryHistory } from "./memory-reads.js";

export interface MemoryService {
  put(principal: Principal | undefined, request: PutMemoryRequest): Promise<Outcome<PutMemoryResult>>;
  get(principal: Principal | undefined, request: GetMemoryRequest): Promise<MemoryRecord>;
  list(principal: Principal | undefined, request: ListMemoriesRequest): Promise<MemoryPage>;
  history(principal: Principal | undefined, request: MemoryHistoryRequest): Promise<MemoryHistory>;
  delete(principal: Principal | undefined, request: DeleteMemoryRequest): Promise<Outcome<DeleteMemoryResult>>;
}

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

    get: (principal, request) => getMemory(repository, principal, request),
    list: (principal, request) => listMemories(repository, principal, request),
    history: (principal, request) => memoryHistory(repository, principal, request),
  };
}
