/** The commit of one entry inside a write transaction: a fold into the caller's duplicate, or an insert, with its audit record. */
import { ContextHubError } from "@context-hub/common";
import type { EntryAck, EntryWrite } from "../model/entry-model.js";
import type { Principal } from "../model/principal.js";
import { initialTrust, trustAfterChange } from "../model/trust.js";
import { allFindings } from "../screen/write-screen.js";
import type { EntryWriteScope } from "./entry-ports.js";
import type { ValidCommit } from "./entry-screening.js";

/**
 * The commit of one entry inside `scope`'s transaction: take the thread's
 * lock (so two identical writes racing each other cannot both miss each
 * other), fold into the caller's duplicate if there is one, else insert.
 */
export async function commitIn(
  scope: EntryWriteScope,
  caller: Principal,
  { write, generated, screens }: ValidCommit,
): Promise<EntryAck> {
  await scope.lockThreads(caller, [write.threadId]);
  const findings = allFindings(screens);
  const key = { threadId: write.threadId, source: write.source, contentHash: write.contentHash };
  let duplicateId: string | undefined;
  if (generated === undefined) {
    duplicateId = await scope.findDuplicate(caller, key);
  } else {
    // The usual case, a new entry, takes one statement: the duplicate lookup and the insert together.
    const outcome = await scope.insertUnlessDuplicate(
      caller,
      write,
      generated,
      initialTrust(write.source, caller, findings),
    );
    if ("inserted" in outcome) return recordCreated(scope, caller, write, outcome.inserted);
    duplicateId = outcome.duplicateOf;
  }
  if (duplicateId !== undefined) {
    // The text is the stored one; only the metadata, tags and title it brings are screened anew.
    const rescreened = {
      metadata: findings.filter((finding) => finding.field === "metadata"),
      tags: findings.filter((finding) => finding.field === "tags"),
      title: findings.filter((finding) => finding.field === "title"),
    };
    // The update re-asserts the hash it saw; if the text changed meanwhile it matches nothing and this becomes an insert.
    const folded = await scope.fold(caller, duplicateId, write, (current) =>
      trustAfterChange(current, write.source, caller, rescreened, false),
    );
    if (folded !== undefined) {
      scope.audit.record(caller.tenant, {
        actor: caller.subject,
        action: "entry.fold",
        outcome: "ok",
        targetIds: [folded.ack.id],
        beforeHashes: [folded.ack.contentHash],
        afterHashes: [folded.ack.contentHash],
        details: {
          thread_id: write.threadId,
          version: folded.ack.version,
          version_changed: folded.versionChanged,
          trust_state: folded.ack.trust.state,
        },
      });
      return folded.ack;
    }
  }
  if (generated === undefined) {
    throw new ContextHubError(
      "DUPLICATE_VANISHED",
      "the entry this write was to fold into is gone or has changed; nothing was stored",
      {
        remedy: "generate embeddings and summaries for the entry and commit it again",
      },
    );
  }
  return recordCreated(
    scope,
    caller,
    write,
    await scope.insert(caller, write, generated, initialTrust(write.source, caller, findings)),
  );
}

/** Queues the audit record of a new entry in its transaction, and passes its acknowledgement on. */
function recordCreated(scope: EntryWriteScope, caller: Principal, write: EntryWrite, inserted: EntryAck): EntryAck {
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "entry.create",
    outcome: "ok",
    targetIds: [inserted.id],
    beforeHashes: [],
    afterHashes: [inserted.contentHash],
    details: {
      thread_id: write.threadId,
      source: write.source,
      trust_state: inserted.trust.state,
      trust_reasons: inserted.trust.reasons,
      previously_deleted: inserted.previouslyDeleted,
    },
  });
  return inserted;
}
