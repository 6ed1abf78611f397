/** Building blocks of the store's integration tests: principals, entries, a started store and direct SQL. */
import { randomBytes } from "node:crypto";
import assert from "node:assert/strict";
import {
  contentHash,
  createLogger,
  isContextHubError,
  type ErrorCode,
  type RunningService,
  vectorToBytes,
} from "@context-hub/common";
import { commonV1, type storeV1 } from "@context-hub/proto";
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { loadStoreConfig, openDatabase, startStore, type DatabaseOptions, type SqlDatabase } from "@context-hub/store";
import { createStoreClient, type StoreClient } from "../support/store-client.js";
import {
  createPgliteConnection,
  createPostgresConnection,
  createUuidV7,
  type SqlConnection,
  type SqlExecutor,
  type VectorType,
} from "@context-hub/store/testing";

export const logger = createLogger("store-test", "silent");

export type { StoreClient };

export type PrincipalInit = MessageInitShape<typeof commonV1.PrincipalSchema>;

/** A NewEntry as plain data (assignable to the message's init shape, and spreadable). */
export interface NewEntryInit {
  threadId: string;
  source?: commonV1.Source;
  text: string;
  metadata?: JsonObject;
  tags?: string[];
  images?: { mimeType: string; data: Uint8Array }[];
  visibility?: commonV1.Visibility;
  /** When the stated fact holds (valid time); an absent end is open. */
  validFrom?: Timestamp;
  validTo?: Timestamp;
  kind?: string;
  title?: string;
  promptArguments?: { name: string; description?: string; required?: boolean }[];
  /** SHA-256s of the artifacts the entry links. */
  artifacts?: string[];
  promptName?: string;
}

interface SpanInit {
  start: number;
  end: number;
}

/** A Generated as plain data. */
export interface GeneratedInit {
  embeddingModel: string;
  embeddingDimension: number;
  chunks: { ordinal: number; span?: SpanInit; vector: Uint8Array }[];
  summary: string;
  nodeSummaries: { nodeId: string; heading: string; level: number; span?: SpanInit; summary: string }[];
  textHash?: string;
}

/** A database the suite can run against, and how to get a fresh one. */
export interface StoreTarget {
  name: string;
  /** Whether a database outlives its connection (so it can be reopened). */
  persistent: boolean;
  /** Options of a fresh, empty database and how to get rid of it afterwards. */
  createDatabase(): Promise<{ options: DatabaseOptions; dispose(): Promise<void> }>;
  /** How this target's schema should store vectors. */
  expectedVectorType(options: DatabaseOptions): Promise<VectorType>;
}

/** A tenant name no other test uses. */
export function newTenant(label: string): string {
  return `${label}-${randomBytes(5).toString("hex")}`;
}

export const readWrite = ["context:read", "context:write"];

export function principal(
  tenant: string,
  subject: string,
  options: { groups?: string[]; scopes?: string[] } = {},
): PrincipalInit {
  return { tenant, subject, groups: options.groups ?? [], scopes: options.scopes ?? readWrite };
}

export const dimension = 4;

/** Generation output for `text` (its text_hash set): one chunk per half (or one for short text) with exact float32 values. */
export function generatedFor(text: string, overrides: Partial<GeneratedInit> = {}): GeneratedInit {
  const middle = Math.max(1, Math.floor(text.length / 2));
  const chunks =
    text.length < 2
      ? [{ ordinal: 0, span: { start: 0, end: text.length }, vector: vectorToBytes([0.5, -0.25, 1, 0]) }]
      : [
          { ordinal: 0, span: { start: 0, end: middle }, vector: vectorToBytes([0.5, -0.25, 1, 0]) },
          { ordinal: 1, span: { start: middle, end: text.length }, vector: vectorToBytes([0.125, 2, -1.5, 0.75]) },
        ];
  return {
    embeddingModel: "test-model",
    embeddingDimension: dimension,
    chunks,
    summary: "",
    nodeSummaries: [],
    textHash: contentHash(text),
    ...overrides,
  };
}

export function textEntry(threadId: string, text: string, overrides: Partial<NewEntryInit> = {}): NewEntryInit {
  return { threadId, source: commonV1.Source.USER, text, ...overrides };
}

export type CaughtError = Error & { code: ErrorCode; details: Record<string, unknown>; remedy: string | undefined };

/** Runs a call that must fail with `code`, and returns the error for further checks. */
export async function expectError(call: Promise<unknown>, code: ErrorCode, message?: RegExp): Promise<CaughtError> {
  try {
    await call;
  } catch (error) {
    assert.ok(isContextHubError(error), `expected a ContextHubError, got ${String(error)}`);
    assert.equal(error.code, code, `expected ${code}, got ${error.code}: ${error.message}`);
    if (message !== undefined) assert.match(error.message, message);
    return error;
  }
  assert.fail(`expected ${code}${message === undefined ? "" : ` matching ${String(message)}`}, but the call succeeded`);
}

/** Opens a bare connection (no migrations) to a target's database. */
export function openConnection(options: DatabaseOptions): Promise<SqlConnection> {
  return options.url === ""
    ? createPgliteConnection({ dataDir: options.dataDir })
    : createPostgresConnection({
        url: options.url,
        poolMax: options.poolMax,
        preparedStatements: options.preparedStatements ?? true,
        logger,
      });
}

export interface StartedStore {
  service: RunningService;
  client: StoreClient;
  close(): Promise<void>;
}

/**
 * Starts a store on free ports and a client for it; the store uses
 * `database` if given, else opens `options` itself. `extra.env` adds
 * settings; `extra.now` replaces the clock idempotency keys expire by.
 */
export async function startTestStore(
  options: DatabaseOptions,
  database?: SqlDatabase,
  extra: { env?: Record<string, string>; now?: () => Date } = {},
): Promise<StartedStore> {
  const config = loadStoreConfig({
    STORE_PORT: "0",
    STORE_OPS_PORT: "0",
    DATABASE_URL: options.url,
    STORE_DATA_DIR: options.dataDir,
    DATABASE_POOL_MAX: String(options.poolMax),
    LOG_LEVEL: "silent",
    ...extra.env,
  });
  const service = await startStore(config, logger, {
    ...(database === undefined ? {} : { database }),
    ...(extra.now === undefined ? {} : { now: extra.now }),
  });
  const client = createStoreClient({ address: `127.0.0.1:${service.port}`, peer: "store", deadlineMs: 60_000 });
  return {
    service,
    client,
    async close() {
      client.close();
      await service.close();
    },
  };
}

export { openDatabase };

/** Inserts a grant row directly: for grants Share would refuse to make (another grantor, another tenant, a private entry) and for tests below the RPCs. */
export async function insertGrant(
  db: SqlExecutor,
  grant: {
    tenant: string;
    grantor: string;
    entryId?: string;
    threadId?: string;
    granteeKind: "subject" | "group";
    grantee: string;
    permission?: "read" | "write";
  },
): Promise<void> {
  await db.query(
    "INSERT INTO grants (id, tenant, grantor, entry_id, thread_id, grantee_kind, grantee, permission) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    [
      createUuidV7(),
      grant.tenant,
      grant.grantor,
      grant.entryId ?? null,
      grant.threadId ?? null,
      grant.granteeKind,
      grant.grantee,
      grant.permission ?? "read",
    ],
  );
}

/** Inserts an entry row directly, for ids and times a commit cannot choose. */
export async function insertEntryRow(
  db: SqlExecutor,
  row: {
    id: string;
    tenant: string;
    owner: string;
    threadId?: string;
    visibility?: "private" | "shared" | "tenant";
    text?: string;
  },
): Promise<void> {
  const text = row.text ?? `row ${row.id}`;
  await db.query(
    `INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash)
     VALUES ($1, $2, $3, 'user', $4, $5, $6, $7, $6, encode(sha256(convert_to($6, 'UTF8')), 'hex'))`,
    [row.id, row.tenant, row.threadId ?? "direct", row.owner, row.visibility ?? "private", text, text.length],
  );
}

/** The error a call fails with (it must fail with a domain error). */
export async function caught(call: Promise<unknown>): Promise<CaughtError> {
  try {
    await call;
  } catch (error) {
    assert.ok(isContextHubError(error), `expected a ContextHubError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the call to fail, but it succeeded");
}

/** `text` with every occurrence of `id` replaced by a placeholder, so two errors can be compared apart from the id they name. */
export function withoutId(text: string, id: string): string {
  return text.split(id).join("<id>");
}

/**
 * Asserts that two failures are indistinguishable apart from the id each
 * names: same code, same message, remedy and details. Used to show that an
 * entry the caller may not see fails exactly like one that does not exist.
 */
export async function expectIndistinguishable(
  probe: Promise<unknown>,
  probeId: string,
  control: Promise<unknown>,
  controlId: string,
  label = "",
): Promise<CaughtError> {
  const [hidden, missing] = await Promise.all([caught(probe), caught(control)]);
  const shape = (error: CaughtError, id: string) => ({
    code: error.code,
    message: withoutId(error.message, id),
    remedy: error.remedy === undefined ? undefined : withoutId(error.remedy, id),
    details: withoutId(JSON.stringify(error.details), id),
  });
  assert.deepEqual(
    shape(hidden, probeId),
    shape(missing, controlId),
    `${label}: an invisible entry fails exactly like a missing one`,
  );
  return hidden;
}

/** Same as `expectIndistinguishable`, for the per-item error of a non-atomic call. */
export function assertSameItemError(
  probe: { code: string; message: string } | undefined,
  probeId: string,
  control: { code: string; message: string } | undefined,
  controlId: string,
  label = "",
): void {
  assert.ok(probe !== undefined && control !== undefined, `${label}: both items failed`);
  assert.deepEqual(
    { code: probe.code, message: withoutId(probe.message, probeId) },
    { code: control.code, message: withoutId(control.message, controlId) },
    label,
  );
}

/** A random full id and one of its prefixes, for ids that exist nowhere. */
export function randomId(): string {
  return createUuidV7().replace(/^.{8}/, randomBytes(4).toString("hex"));
}

/** Commits `text` as `caller` and returns the acknowledgement. */
export async function commitText(
  client: StoreClient,
  caller: PrincipalInit,
  threadId: string,
  text: string,
  overrides: Partial<NewEntryInit> = {},
): Promise<storeV1.EntryAck> {
  const reply = await client.commit({
    principal: caller,
    entry: textEntry(threadId, text, overrides),
    generated: generatedFor(text),
  });
  assert.ok(reply.ack !== undefined);
  return reply.ack;
}

/** Counts rows of `table` matching `where` (a trusted SQL condition with $1, $2, … for `params`). */
export async function countRows(
  db: SqlExecutor,
  table: "entries" | "chunks" | "node_summaries" | "entry_images" | "grants" | "idempotency_keys" | "api_keys",
  where: string,
  params: unknown[],
): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::integer AS count FROM ${table} WHERE ${where}`,
    params,
  );
  return rows[0]?.count ?? 0;
}

/** Everything stored for one tenant, by table: what a call that must write nothing must leave unchanged. */
export async function tenantFootprint(db: SqlExecutor, tenant: string): Promise<Record<string, number>> {
  const { rows } = await db.query<Record<string, number>>(
    `SELECT (SELECT count(*)::integer FROM entries WHERE tenant = $1) AS entries,
            (SELECT coalesce(sum(version), 0)::integer FROM entries WHERE tenant = $1) AS versions,
            (SELECT count(*)::integer FROM chunks WHERE tenant = $1) AS chunks,
            (SELECT count(*)::integer FROM node_summaries n JOIN entries e ON e.id = n.entry_id WHERE e.tenant = $1) AS node_summaries,
            (SELECT count(*)::integer FROM entry_images i JOIN entries e ON e.id = i.entry_id WHERE e.tenant = $1) AS images,
            (SELECT count(*)::integer FROM grants WHERE tenant = $1) AS grants,
            (SELECT count(*)::integer FROM entries WHERE tenant = $1 AND visibility <> 'private') AS not_private,
            (SELECT count(*)::integer FROM idempotency_keys WHERE tenant = $1) AS idempotency_keys`,
    [tenant],
  );
  return rows[0] ?? {};
}

/** Two principals of one tenant ("acme") and one of another ("globex"), in tenants no other test uses. */
export function principalTrio(label: string, options: { groups?: string[] } = {}) {
  const tenantA = newTenant(`acme-${label}`);
  const tenantB = newTenant(`globex-${label}`);
  return {
    tenantA,
    tenantB,
    a1: principal(tenantA, "a1", options),
    a2: principal(tenantA, "a2", options),
    b1: principal(tenantB, "b1", options),
  };
}

/** What the shared suite hands each group of tests: the running store and its database (valid once `before` has run). */
export interface StoreSuiteContext {
  readonly target: StoreTarget;
  readonly client: StoreClient;
  readonly db: SqlDatabase;
  /** How the suite's database was opened: for a second store on it (`startTestStore(options, db, …)`). */
  readonly options: DatabaseOptions;
}

/** Ids of a response's entries, in order. */
export function idsOf(entries: readonly { id: string }[]): string[] {
  return entries.map((entry) => entry.id);
}
