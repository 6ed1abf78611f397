import { createHash } from "node:crypto";
import { ContextHubError } from "@context-hub/common";
import { checkIdempotency } from "./clients/idempotency-client.js";
import type { Peers } from "./clients/peers.js";
import type { Principal } from "./principal.js";

/** An idempotency key and the fingerprint of the arguments it was sent with. */
export interface Idempotency {
  key: string;
  fingerprint: string;
}

/** Canonical JSON: object keys sorted, so the same arguments always hash the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The fingerprint of a tool call: its name and its arguments, less the key itself. */
export function fingerprintOf(tool: string, args: Record<string, unknown>): string {
  const { idempotency_key: _key, ...rest } = args;
  return createHash("sha256")
    .update(`${tool}\n${canonical(rest)}`)
    .digest("hex");
}

/**
 * Looks the key up before any generation: a replay skips the work and lets
 * the store return the first result; a key reused with other arguments is
 * refused here with a clear error.
 */
export async function resolveIdempotency(
  peers: Peers,
  principal: Principal,
  tool: string,
  args: Record<string, unknown>,
): Promise<(Idempotency & { replay: boolean }) | undefined> {
  const key = args.idempotency_key;
  if (typeof key !== "string") return undefined;
  const idempotency = { key, fingerprint: fingerprintOf(tool, args) };
  const state = await checkIdempotency(peers.idempotency, principal, idempotency);
  if (state === "conflict") {
    throw new ContextHubError(
      "INVALID_ARGUMENT",
      `idempotency_key "${key}" was already used with different arguments`,
      {
        remedy: "use a new idempotency_key for a different request, or resend exactly the original arguments",
      },
    );
  }
  return { ...idempotency, replay: state === "replay" };
}
