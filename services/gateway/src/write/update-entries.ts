/** Updating entries under compare-and-set: regeneration only for texts that changed, as the write plan says. */
import { contentHash } from "@context-hub/common";
import type { CurrentText, PlannedChange } from "../clients/write-store-client.js";
import type { Principal } from "../principal.js";
import { timeStage } from "./stage-timing.js";
import type { WriteDeps } from "./write-steps.js";
import type { WritePlan } from "./write-decisions.js";
import type { EntryChange, ItemOutcome, ResolvedIdempotency, WriteAck } from "../write-types.js";

/** The current entry a change names by full id or unique prefix, among those read. */
function resolver(current: readonly CurrentText[]): (id: string) => CurrentText | undefined {
  return (id) =>
    current.find(
      (entry) => entry.id === id || entry.id.replaceAll("-", "").startsWith(id.replaceAll("-", "").toLowerCase()),
    );
}

/**
 * Applies changes under compare-and-set. Text changes are regenerated
 * before the commit; metadata-only changes generate nothing; an unchanged
 * text is not sent again. Without a caller-given expected version, the
 * version read here guards the write.
 */
export async function updateEntries(
  deps: WriteDeps,
  plan: WritePlan,
  principal: Principal,
  changes: EntryChange[],
  atomic: boolean,
  idempotency: ResolvedIdempotency | undefined,
): Promise<ItemOutcome<WriteAck>[]> {
  const textual = plan.generate === "changed-texts" ? changes.filter((change) => change.text !== undefined) : [];
  // Read the current rows (through the read predicate) to skip regeneration for unchanged text.
  const resolve = resolver(
    textual.length > 0
      ? await deps.store.currentTexts(
          principal,
          textual.map((change) => change.id),
        )
      : [],
  );
  const needsText = textual.filter((change) => resolve(change.id)?.contentHash !== contentHash(change.text!));
  const generated = await deps.generate(
    needsText.map((change) => ({
      text: change.text!,
      source: resolve(change.id)?.source === "user" ? "user" : "agent",
    })),
  );
  const generatedFor = new Map(needsText.map((change, index) => [change, generated[index]]));
  const planned = changes.map((change): PlannedChange => {
    const gen = generatedFor.get(change);
    // Identical text is not sent again, so nothing is regenerated or rewritten for it (a replay sends the change as it came).
    const unchangedText =
      change.text !== undefined &&
      gen === undefined &&
      plan.generate === "changed-texts" &&
      resolve(change.id) !== undefined;
    return { change, sendText: !unchangedText, generated: gen };
  });
  return timeStage("commit", () => deps.store.update(principal, planned, atomic, idempotency));
}
