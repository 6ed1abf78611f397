/**
 * What a write needs before its transaction opens: its validation, the
 * write-time screen of what it brings, a long text's full-text vector, and
 * item names in the errors of batched calls. Done outside the transaction so
 * that a screen's worker time never holds one open and bad input stores
 * nothing.
 */
import { ContextHubError, invalidArgument, isContextHubError } from "@context-hub/common";
import type {
  EntryChange,
  EntryWrite,
  GeneratedInput,
  GeneratedWrite,
  NewEntryInput,
  ScreenedChange,
  TextWrite,
} from "../model/entry-model.js";
import { isItemFailure, toItemError, type ItemResult } from "../model/items.js";
import type { FieldScreens, WriteScreen } from "../screen/write-screen.js";
import { validateGenerated, validateNewEntry } from "./entry-validation.js";

export interface ValidCommit {
  write: EntryWrite;
  generated: GeneratedWrite | undefined;
  /** The write-time screen of the entry's text, metadata, tags, title and prompt arguments, done before its transaction. */
  screens: FieldScreens;
}

/** Checks a commit's entry (its kind against the store's `kinds`) and what was generated for its text. */
export function validateCommit(
  entry: NewEntryInput | undefined,
  generated: GeneratedInput | undefined,
  kinds: readonly string[],
): Omit<ValidCommit, "screens"> {
  if (entry === undefined) throw invalidArgument("entry is required");
  const write = validateNewEntry(entry, kinds);
  return { write, generated: generated === undefined ? undefined : validateGenerated(generated, write.text) };
}

/**
 * Texts at least this long have their full-text vector computed before the
 * write's transaction (see `EntryRepository.searchVectorOf`); a shorter one
 * is parsed in the write's statement, which costs less than a round trip.
 */
const vectorBeforeTransactionChars = 16_384;

/** What a write needs before its transaction: the screen, and where a long text's full-text vector is computed. */
export interface BeforeTransaction {
  screen: WriteScreen;
  searchVectorOf(text: string): Promise<string>;
}

/** `write` with its full-text vector when the text is long enough to be worth computing before the transaction. */
async function withSearchVector<W extends TextWrite>(before: BeforeTransaction, write: W): Promise<W> {
  if (write.text.length < vectorBeforeTransactionChars) return write;
  return { ...write, searchVector: await before.searchVectorOf(write.text) };
}

/** A valid commit with its screen, which may take a worker's time: done before the transaction, so it never holds one open. */
export async function screenCommit(
  before: BeforeTransaction,
  commit: Omit<ValidCommit, "screens">,
): Promise<ValidCommit> {
  const { text, metadata, tags, title, promptArguments } = commit.write;
  const [screens, write] = await Promise.all([
    before.screen.screen({ text, metadata, tags, title: title ?? "", promptArguments }),
    withSearchVector(before, commit.write),
  ]);
  return { ...commit, write, screens };
}

/** A valid change with its screen of the fields it brings (see `screenCommit`). */
export async function screenChange(before: BeforeTransaction, change: EntryChange): Promise<ScreenedChange> {
  const [screens, text] = await Promise.all([
    before.screen.screen({
      ...(change.text === undefined ? {} : { text: change.text.text }),
      ...(change.metadata === undefined ? {} : { metadata: change.metadata }),
      ...(change.tags === undefined ? {} : { tags: change.tags }),
      // A removed title (null) is screened as empty: it leaves no findings, and clears the old title's.
      ...(change.title === undefined ? {} : { title: change.title ?? "" }),
      ...(change.promptArguments === undefined ? {} : { promptArguments: change.promptArguments }),
    }),
    change.text === undefined ? undefined : withSearchVector(before, change.text),
  ]);
  return { ...change, text, screens };
}

/**
 * Runs the asynchronous part of validation (the screen) on every valid item,
 * as `validateItems` runs the rest: atomic, the first failure fails the call
 * naming its item; non-atomic, it becomes that item's failure.
 */
export async function completeItems<V, W>(
  items: readonly ItemResult<V>[],
  atomic: boolean,
  itemName: (index: number) => string,
  complete: (value: V) => Promise<W>,
): Promise<ItemResult<W>[]> {
  const completed = await Promise.allSettled(
    items.map(
      async (item): Promise<ItemResult<W>> => (item.ok ? { ok: true, value: await complete(item.value) } : item),
    ),
  );
  return completed.map((outcome, index) => {
    if (outcome.status === "fulfilled") return outcome.value;
    const error = namingError(itemName(index), outcome.reason);
    if (atomic || !isItemFailure(error)) throw error;
    return { ok: false, error: toItemError(error) };
  });
}

/** Runs `validate`, naming `field` at the start of any error about the item it raises. */
export function naming<T>(field: string, validate: () => T): T {
  try {
    return validate();
  } catch (error) {
    throw namingError(field, error);
  }
}

/** `error` with `field` named at its start, when it is about the item (bad input, or input over its time budget). */
function namingError(field: string, error: unknown): unknown {
  if (isContextHubError(error) && (error.code === "INVALID_ARGUMENT" || error.code === "TEXT_BUDGET_EXCEEDED")) {
    return new ContextHubError(error.code, `${field}: ${error.message}`, {
      ...(error.remedy === undefined ? {} : { remedy: error.remedy }),
      details: error.details,
    });
  }
  return error;
}
