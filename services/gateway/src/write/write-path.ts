/**
 * Every write, the way the architecture requires (I-4): generation first —
 * embeddings of every chunk of every text in one batch, summaries and node
 * summaries in parallel — then one store call in one transaction. If a
 * mandatory leg (embedding; the summary when a summarizer is configured)
 * fails, nothing is stored and the error names the leg. How each write
 * proceeds is the decision table's (write-decisions.ts).
 */
import { createGenerationClient, type Generated } from "../clients/generation-client.js";
import type { Peers } from "../clients/peers.js";
import { createWriteStoreClient } from "../clients/write-store-client.js";
import type { Principal } from "../principal.js";
import { createGenerate } from "./generation.js";
import { storeBatch } from "./store-batch.js";
import { storeEntry } from "./store-entry.js";
import { updateEntries } from "./update-entries.js";
import { decideWrite, type WriteOperation } from "./write-decisions.js";
import type { WriteDeps } from "./write-steps.js";
import type { EntryChange, ItemOutcome, NewEntryInput, ResolvedIdempotency, WriteAck } from "../write-types.js";

export interface WritePathOptions {
  peers: Peers;
  /** Node summaries are best effort: a write waits for them at most this long. */
  sectionSummaryTimeoutMs: number;
  /** Whether a new entry's generation may start before its dedup pre-check answers (see clients/early-generation.ts). */
  earlyGeneration: () => boolean;
}

/** The write path over the gateway's peers. */
export function createWritePath(options: WritePathOptions) {
  const deps: WriteDeps = {
    store: createWriteStoreClient(options.peers.entries),
    // Writes that arrive together share their worker calls (see joinCalls); a batch store's texts travel together anyway.
    generate: createGenerate(
      createGenerationClient(options.peers, { sectionSummaryTimeoutMs: options.sectionSummaryTimeoutMs }),
    ),
  };
  const plan = (operation: WriteOperation, atomic: boolean, idempotency: ResolvedIdempotency | undefined) =>
    decideWrite({
      operation,
      replay: idempotency?.replay === true,
      keyed: idempotency !== undefined,
      atomic,
      earlyGeneration: options.earlyGeneration(),
    });

  return {
    /** Stores one entry (see store-entry.ts). */
    store(principal: Principal, entry: NewEntryInput, idempotency?: ResolvedIdempotency): Promise<WriteAck> {
      return storeEntry(deps, plan("store", true, idempotency), principal, entry, idempotency);
    },

    /** Stores many entries in one commit, all or none unless `atomic` is false (see store-batch.ts). */
    storeBatch(
      principal: Principal,
      entries: NewEntryInput[],
      atomic: boolean,
      idempotency?: ResolvedIdempotency,
    ): Promise<ItemOutcome<WriteAck>[]> {
      return storeBatch(deps, plan("storeBatch", atomic, idempotency), principal, entries, atomic, idempotency);
    },

    /**
     * Generates for one text that another store call will carry (a memory's
     * value, for its mirror entry): chunks with embeddings and the summary,
     * as for an entry's text, before anything is committed.
     */
    async generateFor(text: string): Promise<Generated> {
      const [generated] = await deps.generate([{ text, source: "agent" }]);
      return generated!;
    },

    /** Applies changes under compare-and-set (see update-entries.ts). */
    update(
      principal: Principal,
      changes: EntryChange[],
      atomic: boolean,
      idempotency?: ResolvedIdempotency,
    ): Promise<ItemOutcome<WriteAck>[]> {
      return updateEntries(deps, plan("update", atomic, idempotency), principal, changes, atomic, idempotency);
    },
  };
}

export type WritePath = ReturnType<typeof createWritePath>;
