// The store's gRPC transport for idempotency keys: the IdempotencyService handler.
import type { ServiceImplementation } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import type { EntryService } from "./entries/entries.js";
import type { IdempotencyState } from "./idempotency/idempotency.js";
import { toPrincipal } from "./messages.js";

const idempotencyStateOf: Record<IdempotencyState, storeV1.CheckIdempotencyResponse_State> = {
  new: storeV1.CheckIdempotencyResponse_State.NEW,
  replay: storeV1.CheckIdempotencyResponse_State.REPLAY,
  conflict: storeV1.CheckIdempotencyResponse_State.CONFLICT,
};

/**
 * The IdempotencyService implementation. A key is looked up through the
 * entries domain, which checks the caller may write and audits a refusal as
 * an entry write would be.
 */
export function createIdempotencyHandlers(
  entries: Pick<EntryService, "checkIdempotency">,
): ServiceImplementation<typeof storeV1.IdempotencyService> {
  return {
    async checkIdempotency(request) {
      const state = await entries.checkIdempotency(toPrincipal(request.principal), request.idempotency);
      return { state: idempotencyStateOf[state] };
    },
  };
}
