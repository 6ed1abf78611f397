/** The store's idempotency record, as the gateway asks about it before any generation. */
import { storeV1 } from "@context-hub/proto";
import type { Principal } from "../principal.js";
import type { IdempotencyServiceClient } from "./peers.js";

/** What the store holds for a key: nothing yet, the first result of the same request, or a result of other arguments. */
export type IdempotencyState = "new" | "replay" | "conflict";

/** Looks up `key` with the fingerprint of the arguments it was sent with. */
export async function checkIdempotency(
  store: IdempotencyServiceClient,
  principal: Principal,
  idempotency: { key: string; fingerprint: string },
): Promise<IdempotencyState> {
  const { state } = await store.checkIdempotency({ principal, idempotency });
  if (state === storeV1.CheckIdempotencyResponse_State.CONFLICT) return "conflict";
  return state === storeV1.CheckIdempotencyResponse_State.REPLAY ? "replay" : "new";
}
