/**
 * The entry repository as the entry services use it: what a write
 * transaction offers (EntryWriteScope) and what reads return. Declared on the
 * domain side; entry-repository.ts implements it in SQL.
 */
import type { AuditStatements } from "../audit/audit-repository.js";
import type { PromptArgument } from "../model/prompt-arguments.js";
import type {
  DuplicateKey,
  EntryAck,
  LockedEntry,
  EntryFilter,
  EntryStatistics,
  EntryWrite,
  GeneratedWrite,
  ImageWrite,
  JsonObject,
  ListEntriesResult,
  StoredEntry,
  TextWrite,
  ThreadPage,
  Validity,
  Visibility,
} from "../model/entry-model.js";
import type { IdQuery } from "../model/id-query.js";
import type { IdempotencyStatements, RecordedCall } from "../idempotency/idempotency.js";
import type { SavepointScope } from "../model/items.js";
import type { Principal } from "../model/principal.js";
import type { ReviewStatements } from "../model/review-ports.js";
import type { GrantStatements } from "../model/sharing-model.js";
import type { Trust, TrustState } from "../model/trust.js";

/** How a new version came to be, recorded with it. */
export interface VersionMeta {
  trust: Trust;
  changeKind: "update" | "restore";
  /** The version a restore restored. */
  restoredFrom: number | undefined;
}

/** What a fold did: its acknowledgement, and whether it made a new version (tags, metadata or images changed). */
export interface FoldResult {
  ack: EntryAck;
  versionChanged: boolean;
}

/** What an update writes: only the fields that differ from the stored row. */
export interface EntryChangeWrite {
  /** A new text with the generation output made for it (chunks, vectors, summary and node summaries are replaced). */
  text: (TextWrite & { generated: GeneratedWrite }) | undefined;
  metadata: JsonObject | undefined;
  tags: string[] | undefined;
  images: ImageWrite[] | undefined;
  visibility: Visibility | undefined;
  /** A new valid-time interval (replacing both ends). */
  validity: Validity | undefined;
  kind: string | undefined;
  /** A new title; null removes it. */
  title: string | null | undefined;
  /** New prompt arguments; empty removes them. */
  promptArguments: PromptArgument[] | undefined;
  /** New linked artifacts; empty removes them. */
  artifacts?: string[] | undefined;
  /** A new prompt name; null removes it. */
  promptName?: string | null | undefined;
}

/** The statements a write runs inside its one transaction. Each read composes the access predicate. */
export interface EntryWriteScope extends SavepointScope {
  idempotency: IdempotencyStatements;
  grants: GrantStatements;
  /** Audit records of this transaction; appended when it commits (and dropped with it, or with a savepoint that rolls back). */
  audit: AuditStatements;
  review: ReviewStatements;
  /** Holds the write locks of the threads (in the caller's tenant) until the transaction ends, taken in one global order. */
  lockThreads(principal: Principal, threadIds: readonly string[]): Promise<void>;
  findDuplicate(principal: Principal, key: DuplicateKey): Promise<string | undefined>;
  /**
   * Folds a retransmit into entry `id`: new tags, metadata and images, a
   * fresh updated_at, the trust `decideTrust` gives from the stored one, and
   * version + 1 only if anything changed (the replaced version is kept in
   * the history). Matches only while the row still has the write's content
   * hash and the caller's ownership; undefined when it no longer does.
   */
  fold(
    principal: Principal,
    id: string,
    write: EntryWrite,
    decideTrust: (current: Trust) => Trust,
  ): Promise<FoldResult | undefined>;
  /**
   * Inserts the entry with its trust, chunks with vectors and node summaries
   * in one statement, then its images. An unspecified visibility becomes
   * `shared` when the caller has shared the thread (a thread grant of theirs
   * exists), else `private`. The acknowledgement's `previouslyDeleted` says
   * whether a deleted entry of the thread had this content hash and the
   * caller could see it (the access predicate over the tombstone: owner,
   * tenant visibility, a thread grant, admin) or deleted it.
   */
  insert(principal: Principal, write: EntryWrite, generated: GeneratedWrite, trust: Trust): Promise<EntryAck>;
  /** Inserts the mirror entry of `memory`, owned by the memory's owner, as `insert` inserts an entry (the memory's put alone calls it). */
  insertMirror(
    principal: Principal,
    memory: { id: string; owner: string },
    write: EntryWrite,
    generated: GeneratedWrite,
    trust: Trust,
  ): Promise<EntryAck>;
  /**
   * `findDuplicate` and `insert` in one statement: inserts as `insert` does
   * unless the caller has a duplicate of the write (the rule of
   * `findDuplicate`, on the same snapshot), in which case it writes nothing
   * and names the duplicate.
   */
  insertUnlessDuplicate(
    principal: Principal,
    write: EntryWrite,
    generated: GeneratedWrite,
    trust: Trust,
  ): Promise<{ inserted: EntryAck } | { duplicateOf: string }>;
  /** Kept version `version` of entry `id` (which the caller has locked), if it is kept. */
  keptVersion(id: string, version: number): Promise<KeptVersion | undefined>;
  /** The current text of entry `id`, which the caller has locked. */
  storedText(id: string): Promise<string>;
  /** For each query, up to `maxMatches` ids of visible entries in its range, in id order. */
  resolveIds(principal: Principal, queries: readonly IdQuery[], maxMatches: number): Promise<string[][]>;
  /** Locks the visible entries among `ids` in id order (so concurrent multi-entry changes queue instead of deadlocking). */
  lockEntries(principal: Principal, ids: readonly string[]): Promise<void>;
  /**
   * Locks entry `id` if the caller may see it, and reads it as it is once
   * locked; undefined if it is gone or invisible. Refuses a memory's mirror
   * entry (PERMISSION_DENIED naming the memory): every entry-side change
   * locks its entry here, and only the memory's put and delete change a mirror.
   */
  lockEntry(principal: Principal, id: string): Promise<LockedEntry | undefined>;
  /** Locks the mirror entry of memory `memoryId` if the caller may see it (for the memory's put and delete); undefined if it has none. */
  lockMirror(principal: Principal, memoryId: string): Promise<LockedEntry | undefined>;
  /**
   * Writes `change` to the locked entry with version + 1, as a compare-and-set
   * on its locked version that re-checks the write predicate; keeps the
   * replaced version in `entry_versions`; replaces chunks, vectors, summary
   * and node summaries with a new text, and images when given; records
   * `meta` (trust, how the version came to be). Undefined when the row no
   * longer matches.
   */
  update(
    principal: Principal,
    entry: LockedEntry,
    change: EntryChangeWrite,
    meta: VersionMeta,
  ): Promise<EntryAck | undefined>;
  /**
   * Deletes entry `id` (with its images, chunks, node summaries and grants)
   * if the caller may change it, in one statement that also keeps its last
   * version in the history and leaves its tombstone with `reason`.
   */
  delete(principal: Principal, id: string, reason: string): Promise<boolean>;
  /** Deletes every entry of the thread the caller may change, as `delete` does; returns their ids (in id order) and content hashes. */
  deleteThread(principal: Principal, threadId: string, reason: string): Promise<{ id: string; contentHash: string }[]>;
}

/** Every SQL statement on entries and what hangs off them. Each read composes the access predicate. */
export interface EntryRepository {
  findDuplicate(principal: Principal, key: DuplicateKey): Promise<string | undefined>;
  /** Runs `fn` in one transaction: everything it does through the scope commits together or not at all. */
  transaction<T>(fn: (scope: EntryWriteScope) => Promise<T>): Promise<T>;
  /** What the first use of an idempotency key recorded (unless before `notBefore`: expired), read outside any transaction. */
  findCall(principal: Principal, key: string, notBefore: Date): Promise<RecordedCall | undefined>;
  /**
   * `entry_search_vector(text)` in tsvector's text form, outside any
   * transaction (see `SearchVectors`): a long text's vector is parsed before
   * its write's transaction opens, since on PGlite a transaction holds the one
   * session from BEGIN to COMMIT and every other caller waits for it.
   */
  searchVectorOf(text: string): Promise<string>;
  /** For each query, up to `maxMatches` ids of visible entries in its range, in id order. */
  resolveIds(principal: Principal, queries: readonly IdQuery[], maxMatches: number): Promise<string[][]>;
  /**
   * The visible entries among `ids`, complete (text, images, node summaries,
   * chunk count), leaving out quarantined and rejected ones unless
   * `includeQuarantined`. Any order.
   */
  getByIds(
    principal: Principal,
    ids: readonly string[],
    includeImages: boolean,
    includeQuarantined?: boolean,
  ): Promise<StoredEntry[]>;
  /**
   * How many bytes each of the visible entries among `ids` (trust-filtered as
   * `getByIds` does) would add to a reply: text, summary, metadata, node
   * summaries and, with `includeImages`, image data. Read without reading
   * any text or image.
   */
  replySizes(
    principal: Principal,
    ids: readonly string[],
    includeImages: boolean,
    includeQuarantined?: boolean,
  ): Promise<Map<string, number>>;
  /** The visible entries among `ids` that the trust filter leaves out, with their states. */
  withheldStates(principal: Principal, ids: readonly string[]): Promise<{ id: string; state: TrustState }[]>;
  /** One page of the visible entries matching `filter`, newest first, without full text. */
  list(principal: Principal, filter: EntryFilter, page: { limit: number; offset: number }): Promise<ListEntriesResult>;
  /** One page of the threads holding visible entries, most recently active first, counting visible entries only. */
  listThreads(principal: Principal, page: { limit: number; offset: number }): Promise<ThreadPage>;
  /** Counts over the visible entries, of one thread or all. */
  /** Counts of the entries the caller may see (in one thread, or all), with `days` UTC days of daily activity. */
  statistics(principal: Principal, threadId: string | undefined, days: number): Promise<EntryStatistics>;
}

/** What a restore takes from a kept version besides its text: its content hash, valid time, kind, title, prompt arguments, links and prompt name. */
export interface KeptVersion {
  contentHash: string;
  validity: Validity;
  kind: string;
  title: string | undefined;
  promptArguments: PromptArgument[];
  artifacts: string[];
  promptName: string | undefined;
}
