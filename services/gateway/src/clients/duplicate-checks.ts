import {
  ContextHubError,
  isContextHubError,
  isErrorCode,
  isUnimplementedCall,
  runWithRequestContext,
} from "@context-hub/common";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { storeV1 } from "@context-hub/proto";
import { joinCalls } from "./joined-calls.js";
import type { EntriesServiceClient } from "./peers.js";

export type DuplicateCheck = MessageInitShape<typeof storeV1.DuplicateCheckSchema>;

/** One check's answer as the store gives it: the duplicate's id ("" when there is none), or why it refused the check. */
interface DuplicateCheckResult {
  entryId: string;
  error?: { code: string; message: string } | undefined;
}

/** How long after a store refused FindDuplicates (it did not have it) the gateway asks check by check before trying again. */
export const batchRetryMs = 60_000;

/**
 * The dedup pre-checks of writes arriving together, joined into one
 * FindDuplicates call per turn of the event loop (see joinCalls); each
 * check carries its own caller's principal and request id, and the store
 * answers each as its own caller.
 *
 * Each caller gets its own check's answer: the duplicate's id, or "" when
 * there is none; a check the store refused (no write scope, say) rejects
 * with the store's error, failing that caller's write only.
 *
 * A store older than the gateway, as during a rolling upgrade, answers
 * FindDuplicates with UNIMPLEMENTED. The checks are then sent one
 * FindDuplicate call each, under their own request ids, and the batch is
 * tried again after `batchRetryMs`.
 */
export function createDuplicateChecks(
  store: EntriesServiceClient,
  now: () => number = () => performance.now(),
): (check: DuplicateCheck) => Promise<string> {
  let batchRefusedAt = Number.NEGATIVE_INFINITY;

  const checkAlone = (check: DuplicateCheck): Promise<DuplicateCheckResult> => {
    const ask = async () => {
      try {
        const reply = await store.findDuplicate({
          principal: check.principal,
          threadId: check.threadId,
          source: check.source,
          contentHash: check.contentHash,
        });
        return { entryId: reply.entryId };
      } catch (error) {
        // As FindDuplicates reports a refused check: in its result, failing its own write only.
        if (!isContextHubError(error) || error.code === "INTERNAL") throw error;
        return { entryId: "", error: { code: error.code, message: error.message } };
      }
    };
    // Under the check's own request id, as FindDuplicates would audit it.
    return check.requestId ? runWithRequestContext({ requestId: check.requestId }, ask) : ask();
  };

  const joined = joinCalls<DuplicateCheck, DuplicateCheckResult>(
    async (checks) => {
      if (now() - batchRefusedAt >= batchRetryMs) {
        try {
          const reply = await store.findDuplicates({ checks });
          if (reply.results.length !== checks.length)
            throw new Error(`the store returned ${reply.results.length} results for ${checks.length} duplicate checks`);
          return reply.results;
        } catch (error) {
          if (!isUnimplementedCall(error)) throw error;
          batchRefusedAt = now();
        }
      }
      return Promise.all(checks.map(checkAlone));
    },
    { maxItems: 100, maxWeight: Number.POSITIVE_INFINITY },
    () => 1,
  );

  return async (check) => {
    const [result] = await joined([check]);
    const error = result?.error;
    if (error !== undefined && error.code !== "")
      throw new ContextHubError(isErrorCode(error.code) ? error.code : "INTERNAL", error.message);
    return result?.entryId ?? "";
  };
}
