// The store's gRPC transport for export and import: TransferService handlers streaming the export file out of, and into, transfer/.
import { createReadStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { ContextHubError, invalidArgument, type CallContext, type ServiceImplementation } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import type { SqlDatabase } from "./db/sql-database.js";
import { toDate } from "./messages.js";
import { exportStore, type ExportSink } from "./transfer/transfer-export.js";
import { parseBodyLine, type TransferCounts } from "./transfer/transfer-format.js";
import { importStore, type ImportProgress } from "./transfer/transfer-import.js";
import type { LineSource } from "./transfer/transfer-verify.js";
import type { CommittedChunk } from "./vectors/vector-index.js";

/** What export and import work on. */
export interface TransferDependencies {
  database: SqlDatabase;
  /** Told of the chunks an import stored, as a commit's are: how a vector index kept in this process (the graph) learns of them. */
  chunksCommitted?(chunks: readonly CommittedChunk[]): void;
}

type ExportPart = MessageInitShape<typeof storeV1.ExportResponseSchema>;
type ImportEvent = MessageInitShape<typeof storeV1.ImportResponseSchema>;

/** Most bytes of the file per response. */
const partBytes = 1024 * 1024;
/** Parts the export may run ahead of the caller: beyond them it waits, so memory holds a few MiB whatever the store's size. */
const partsAhead = 4;
/** How often an import reports its progress. */
const progressEveryMs = 200;
/** Chunks announced to the vector index at a time after an import. */
const announceBatch = 500;

const total = (counts: TransferCounts) => Object.values(counts).reduce((sum, value) => sum + value, 0);
const toWire = (counts: TransferCounts) =>
  Object.fromEntries(Object.entries(counts).map(([kind, rows]) => [kind, BigInt(rows)]));

/** Wakes whichever side of a hand-over waits: the reader for a part, or the writer for room. */
function createWaker() {
  let waiting: (() => void) | undefined;
  return {
    wake() {
      waiting?.();
      waiting = undefined;
    },
    wait: () => new Promise<void>((resolve) => (waiting = resolve)),
  };
}

/**
 * The export's lines, cut into parts of at most `partBytes` for the call to send: a write waits (on `waker`) while
 * `partsAhead` parts are unsent, and fails once the call has stopped.
 */
function createPartQueue(waker: ReturnType<typeof createWaker>) {
  const parts: ExportPart[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let rows = -1; // The header is not a row.
  let expected = 0;
  let stopped = false;
  const cut = () => {
    const data = Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    for (let at = 0; at < data.length; at += partBytes)
      parts.push({
        data: data.subarray(at, at + partBytes),
        rowsWritten: BigInt(rows),
        rowsExpected: BigInt(expected),
      });
    waker.wake();
  };
  const sink: ExportSink = {
    async write(line) {
      const bytes = Buffer.from(line, "utf8");
      pending.push(bytes);
      pendingBytes += bytes.length;
      rows += 1;
      if (pendingBytes < partBytes) return;
      cut();
      while (parts.length >= partsAhead && !stopped) await waker.wait();
      if (stopped) throw new ContextHubError("DEADLINE_EXCEEDED", "the caller went away before the export ended");
    },
    begin(header) {
      expected = total(header.counts);
    },
  };
  const stop = () => {
    stopped = true;
    waker.wake();
  };
  return { parts, sink, cut, stop, expected: () => expected };
}

/**
 * The export file, as parts of at most `partBytes`. The export pushes lines
 * and the call pulls parts: the export waits while `partsAhead` parts are
 * unsent, and stops (rolling back its read-only snapshot) when the caller
 * goes away.
 */
async function* exportParts(
  database: SqlDatabase,
  request: storeV1.ExportRequest,
  context: CallContext,
): AsyncGenerator<ExportPart> {
  const waker = createWaker();
  const { parts, sink, cut, stop, expected } = createPartQueue(waker);
  context.signal.addEventListener("abort", stop, { once: true });
  const since = toDate(request.since);
  let outcome: { counts: TransferCounts } | { error: unknown } | undefined;
  const running = exportStore(
    database,
    { ...(request.tenant === "" ? {} : { tenant: request.tenant }), ...(since === undefined ? {} : { since }) },
    sink,
  ).then(
    (counts) => {
      cut();
      outcome = { counts };
    },
    (error: unknown) => {
      outcome = { error };
      waker.wake();
    },
  );
  try {
    for (;;) {
      const part = parts.shift();
      if (part !== undefined) {
        waker.wake();
        yield part;
        continue;
      }
      if (outcome !== undefined) break;
      await waker.wait();
    }
    if ("error" in outcome) throw outcome.error;
    yield {
      rowsWritten: BigInt(total(outcome.counts)),
      rowsExpected: BigInt(expected()),
      counts: toWire(outcome.counts),
    };
  } finally {
    context.signal.removeEventListener("abort", stop);
    stop();
    await running;
  }
}

/** Writes the caller's bytes to `path` (this user's only), as they come. */
async function spool(requests: AsyncIterable<storeV1.ImportRequest>, path: string, signal: AbortSignal): Promise<void> {
  const file = await open(path, "wx", 0o600);
  try {
    for await (const request of requests) {
      signal.throwIfAborted();
      await file.write(request.data);
    }
  } finally {
    await file.close();
  }
}

const lines = (path: string): LineSource =>
  async function* read() {
    yield* createInterface({
      input: createReadStream(path, { encoding: "utf8" }),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
  };

/** Tells the vector index of every chunk of an imported file (each is stored now, inserted or found as it is). */
async function announceChunks(path: string, chunksCommitted: (chunks: readonly CommittedChunk[]) => void) {
  let batch: CommittedChunk[] = [];
  let line = 0;
  for await (const text of lines(path)()) {
    line += 1;
    if (line === 1 || !text.includes('"chunk"')) continue;
    const parsed = parseBodyLine(text, line);
    if (parsed.kind !== "chunk" || !("row" in parsed)) continue;
    const { id, embedding_model: model, embedding } = parsed.row;
    if (typeof id !== "string" || typeof model !== "string" || !Array.isArray(embedding)) continue;
    batch.push({ id, model, vector: embedding as number[] });
    if (batch.length < announceBatch) continue;
    chunksCommitted(batch);
    batch = [];
  }
  if (batch.length > 0) chunksCommitted(batch);
}

/** An import's failure as the caller hears it: what is wrong with the file, by its own words; a failure of the store stays one. */
function importFailure(error: unknown): unknown {
  if (error instanceof ContextHubError || !(error instanceof Error)) return error;
  if (error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError) return error;
  return invalidArgument(error.message);
}

const phaseOf = {
  checking: storeV1.ImportPhase.CHECKING,
  importing: storeV1.ImportPhase.IMPORTING,
} as const;

const progressEvent = (progress: ImportProgress): ImportEvent => ({
  event: {
    case: "progress",
    value: { phase: phaseOf[progress.phase], done: BigInt(progress.done), total: BigInt(progress.total) },
  },
});

/**
 * Import: the whole file first (spooled to a private temporary file, since
 * the import reads it twice and must check all of it before writing), then
 * `importStore` over it, reporting progress every `progressEveryMs` (and the
 * last of each phase), then the result.
 */
async function* importFile(
  dependencies: TransferDependencies,
  requests: AsyncIterable<storeV1.ImportRequest>,
  context: CallContext,
): AsyncGenerator<ImportEvent> {
  const directory = await mkdtemp(join(tmpdir(), "context-hub-import-"));
  try {
    const path = join(directory, "import.jsonl");
    await spool(requests, path, context.signal);
    context.signal.throwIfAborted();
    const events: ImportEvent[] = [];
    let latest: ImportProgress | undefined;
    let settled = false;
    const running = importStore(dependencies.database, lines(path), {
      onProgress(progress) {
        // The last report of a phase is kept, so the caller's bar for it ends where the phase did.
        if (latest !== undefined && latest.phase !== progress.phase) events.push(progressEvent(latest));
        latest = progress;
      },
    }).finally(() => (settled = true));
    running.catch(() => undefined);
    let sent: ImportProgress | undefined;
    for (;;) {
      await Promise.race([
        running.catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, progressEveryMs)),
      ]);
      // Read before reporting: once settled, no progress comes after what is reported now.
      const finished = settled;
      yield* events.splice(0);
      if (latest !== undefined && latest !== sent) {
        sent = latest;
        yield progressEvent(latest);
      }
      if (finished) break;
    }
    const result = await running.catch((error: unknown) => {
      throw importFailure(error);
    });
    if (dependencies.chunksCommitted !== undefined && (result.inserted.chunk ?? 0) > 0)
      await announceChunks(path, dependencies.chunksCommitted);
    yield { event: { case: "result", value: { inserted: toWire(result.inserted), skipped: toWire(result.skipped) } } };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** TransferService: export and import of the database this store serves. */
export function createTransferHandlers(
  dependencies: TransferDependencies,
): ServiceImplementation<typeof storeV1.TransferService> {
  return {
    export: (request, context) => exportParts(dependencies.database, request, context),
    import: (requests, context) => importFile(dependencies, requests, context),
  };
}
