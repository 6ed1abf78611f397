/**
 * The idempotency key a mutation's request carries, as the entry and sharing
 * models name it. Declared here, below both, so a request type does not tie
 * the model to idempotency/, which holds the rules (keys, replay, expiry).
 */

/** An idempotency key as a caller sends it. */
export interface IdempotencyInput {
  key: string;
  /** A hash of the call's canonical arguments, computed by the caller. */
  fingerprint: string;
}

/** Serialises a mutation's result as the response the transport will send, to be recorded with the key. */
export type ResponseEncoder<T> = (result: T) => Uint8Array;

/** An idempotency key with the transport's serialiser for the response recorded with it. */
export interface IdempotencyRequest<T> extends IdempotencyInput {
  encode: ResponseEncoder<T>;
}
