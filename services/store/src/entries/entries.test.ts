import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createLogger, isContextHubError } from "@context-hub/common";
import { openDatabase } from "../db/open-database.js";
import type { SqlDatabase } from "../db/sql-database.js";
import { createEntryRepository } from "./entry-repository.js";
import { type EntryRepository } from "./entry-ports.js";
import { createEntryService, type EntryService } from "./entries.js";
import { type EntryAck, type GeneratedInput, type NewEntryInput } from "../model/entry-model.js";
import { createAuditRepository } from "../audit/audit-repository.js";
import { createDenialRecorder, type DenialRecorder } from "../audit/audit.js";
import type { Principal } from "../model/principal.js";
import { createWriteScreen } from "../screen/write-screen.js";

const screen = createWriteScreen({ workers: 1, budgetMs: 60_000 });

let db: SqlDatabase;
let repository: EntryRepository;
let denials: DenialRecorder;

before(async () => {
  db = await openDatabase({ url: "", dataDir: "memory://", poolMax: 1 }, createLogger("store-test", "silent"));
  repository = createEntryRepository(db);
  denials = createDenialRecorder(createAuditRepository(db));
});

after(async () => {
  await db.close();
  await screen.close();
});

const a1: Principal = { tenant: "t", subject: "a1", groups: [], scopes: ["context:read", "context:write"] };
const a2: Principal = { ...a1, subject: "a2" };

function entry(text: string, tags: string[] = []): NewEntryInput {
  return { threadId: "thread", source: "user", text, metadata: undefined, tags, images: [], visibility: "tenant" };
}

function generated(text: string): GeneratedInput {
  return {
    embeddingModel: "m",
    embeddingDimension: 2,
    chunks: [{ ordinal: 0, span: { start: 0, end: text.length }, vector: [1, 0] }],
    summary: "",
    nodeSummaries: [],
    textHash: "",
  };
}

/** A repository whose duplicate check reports `id`, as if the row had been seen just before a concurrent change. */
function seeingDuplicate(id: string): EntryRepository {
  return {
    ...repository,
    transaction: (fn) => repository.transaction((scope) => fn({ ...scope, findDuplicate: async () => id })),
  };
}

/** Commits without an idempotency key, so the outcome is always fresh. */
async function commit(
  service: EntryService,
  principal: Principal,
  newEntry: NewEntryInput,
  generatedInput: GeneratedInput | undefined,
): Promise<EntryAck> {
  const outcome = await service.commit(principal, { entry: newEntry, generated: generatedInput });
  assert.equal(outcome.replayed, false);
  if (outcome.replayed) throw new Error("unreachable");
  return outcome.result;
}

test("the fold re-asserts the hash it saw: a row whose text changed is not folded into", async () => {
  const service = createEntryService(repository, denials, screen);
  const changed = await commit(
    service,
    a1,
    entry("the text after someone edited it", ["kept"]),
    generated("the text after someone edited it"),
  );
  const racing = createEntryService(seeingDuplicate(changed.id), denials, screen);

  await assert.rejects(
    commit(racing, a1, entry("the text as it was", ["new"]), undefined),
    (error: unknown) => isContextHubError(error) && error.code === "DUPLICATE_VANISHED",
  );
  const inserted = await commit(racing, a1, entry("the text as it was", ["new"]), generated("the text as it was"));
  assert.notEqual(inserted.id, changed.id);
  assert.equal(inserted.deduplicated, false);

  const [untouched] = await repository.getByIds(a1, [changed.id], false);
  assert.deepEqual([untouched?.version, untouched?.tags], [1, ["kept"]]);
});

test("the fold re-asserts ownership: another principal's identical row is never folded into", async () => {
  const service = createEntryService(repository, denials, screen);
  const theirs = await commit(service, a2, entry("identical words"), generated("identical words"));
  const racing = createEntryService(seeingDuplicate(theirs.id), denials, screen);

  const mine = await commit(racing, a1, entry("identical words", ["mine"]), generated("identical words"));
  assert.notEqual(mine.id, theirs.id);
  const [stored] = await repository.getByIds(a2, [theirs.id], false);
  assert.deepEqual([stored?.owner, stored?.version, stored?.tags], ["a2", 1, []]);
});
