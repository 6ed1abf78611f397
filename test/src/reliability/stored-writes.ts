import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { contentHash, createGrpcClient, vectorFromBytes } from "@context-hub/common";
import { commonV1, embedderV1, storeV1, summarizerV1 } from "@context-hub/proto";
import type { SqlDatabase } from "@context-hub/store";
import { graphKeyOf } from "@context-hub/store/testing";

/**
 * What a database holds of a stream of planned writes, for the store crash
 * test: each write's text is a function of its index; what generation makes
 * of a text is asked of the same workers the gateway used; a snapshot reads
 * every table a commit writes; and a verdict says of each write whether
 * nothing of it is stored, all of it is, exactly, or what is wrong.
 */

/** One write of the stream. */
export interface PlannedWrite {
  index: number;
  idempotencyKey: string;
  threadId: string;
  text: string;
  hash: string;
}

const units = [
  "turbine",
  "compressor",
  "gearbox",
  "boiler",
  "conveyor",
  "generator",
  "transformer",
  "chiller",
  "furnace",
  "crane",
  "pump",
  "valve",
  "mixer",
];
const sites = [
  "Aberdeen",
  "Bergen",
  "Calgary",
  "Dundee",
  "Esbjerg",
  "Fresno",
  "Galway",
  "Houston",
  "Inverness",
  "Jakarta",
  "Kiruna",
];
const defects = ["corrosion", "vibration", "overheating", "leakage", "misalignment", "cavitation", "erosion"];

/**
 * Write `index`: a Markdown report of about 1,800 characters, so it has two
 * chunks (at the embedder's default size), a summary, and node summaries for
 * its three headed sections; no two indexes below 1,001 share their words.
 */
export function planWrite(index: number): PlannedWrite {
  const unit = units[index % units.length]!;
  const site = sites[index % sites.length]!;
  const defect = defects[index % defects.length]!;
  const findings = Array.from(
    { length: 14 },
    (_, line) =>
      `Reading ${line} on ${unit} ${index} at ${site} showed ${defect} of grade ${(index + line) % 5} near mount ${line}.`,
  ).join(" ");
  const actions = Array.from(
    { length: 8 },
    (_, line) => `Crew ${line} treats the ${defect} on ${unit} ${index} before shift ${(index * 3 + line) % 9} ends.`,
  ).join(" ");
  const text = `# Inspection ${index}: ${unit} at ${site}\n\n## Findings\n\n${findings}\n\n## Actions\n\n${actions}\n`;
  return { index, idempotencyKey: `write-${index}`, threadId: `crash-${index % 5}`, text, hash: contentHash(text) };
}

/** What generation yields for one text. */
export interface Generation {
  model: string;
  dimension: number;
  chunks: { start: number; end: number; vector: number[] }[];
  summary: string;
  nodeSummaries: { nodeId: string; summary: string }[];
}

/** Generation for every text, from the embedder and summarizer at these addresses (deterministic built-in providers). */
export async function generationOf(
  texts: readonly string[],
  workers: { embedder: string; summarizer: string },
): Promise<Generation[]> {
  const embedder = createGrpcClient(embedderV1.EmbedderService, {
    address: workers.embedder,
    peer: "embedder",
    deadlineMs: 60_000,
  });
  const summarizer = createGrpcClient(summarizerV1.SummarizerService, {
    address: workers.summarizer,
    peer: "summarizer",
    deadlineMs: 60_000,
  });
  try {
    const generations: Generation[] = [];
    for (let start = 0; start < texts.length; start += 50) {
      const batch = texts.slice(start, start + 50);
      const [embedded, summarized] = await Promise.all([
        embedder.embedDocuments({ texts: batch }),
        // A budget no test run reaches: node summaries are left out only when they miss it.
        summarizer.summarize({
          inputs: batch.map((text) => ({ text, source: commonV1.Source.AGENT })),
          sectionBudgetMs: 60_000,
        }),
      ]);
      batch.forEach((_, index) => {
        const document = embedded.documents[index];
        const summary = summarized.summaries[index];
        if (document === undefined || summary === undefined)
          throw new Error(`the workers returned no generation for text ${start + index}`);
        generations.push({
          model: embedded.model,
          dimension: embedded.dimension,
          chunks: document.chunks.map((chunk) => ({
            start: chunk.start,
            end: chunk.end,
            vector: vectorFromBytes(chunk.vector?.float32Le ?? new Uint8Array(), "vector"),
          })),
          summary: summary.summary,
          nodeSummaries: summary.sections.map((section) => ({ nodeId: section.nodeId, summary: section.summary })),
        });
      });
    }
    return generations;
  } finally {
    embedder.close();
    summarizer.close();
  }
}

export interface StoredEntry {
  id: string;
  threadId: string;
  text: string;
  contentHash: string;
  version: number;
  summary: string;
  changeKind: string;
}

interface StoredChunk {
  id: string;
  ordinal: number;
  start: number;
  end: number;
  model: string;
  vector: number[];
}

interface AuditEntry {
  tenant: string;
  seq: number;
  action: string;
  outcome: string;
  targetIds: string[];
  afterHashes: string[];
}

/** Everything a commit writes, as the database holds it. */
export interface DatabaseSnapshot {
  entries: StoredEntry[];
  chunks: Map<string, StoredChunk[]>;
  nodeSummaries: Map<string, { nodeId: string; summary: string }[]>;
  audit: AuditEntry[];
  /** Idempotency records by key, with the entry id of the acknowledgement each recorded. */
  idempotency: Map<string, { rpc: string; entryId: string }>;
  /** Rows that belong to no entry, by table; and versions and tombstones, of which a stream of creations leaves none. */
  strays: Record<
    "chunks" | "node_summaries" | "entry_images" | "entry_versions" | "tombstones" | "vector_outbox",
    number
  >;
  embeddingSpaces: { model: string; dimension: number }[];
  /**
   * Transactions that wrote and never committed, from the first that stored
   * an entry on: where nothing else rolls back, the commits a kill cut short.
   * A PostgreSQL server aborts a killed client's open transaction; PGlite,
   * which dies with the store, leaves no trace of one.
   */
  abortedWriteTransactions: number;
  /** The keys of the vector graphs saved in the data directory; undefined when there are none. */
  graphKeys: bigint[] | undefined;
}

const groupBy = <T, R>(rows: readonly T[], key: (row: T) => string, value: (row: T) => R): Map<string, R[]> => {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group === undefined) groups.set(key(row), [value(row)]);
    else group.push(value(row));
  }
  return groups;
};

/** `[1,2]` (pgvector) or `{1,2}` (real[]) as numbers. */
const parseVector = (text: string): number[] => (text.length <= 2 ? [] : text.slice(1, -1).split(",").map(Number));

/** The saved vector graphs under `directory`: each manifest names the generation whose key list is current. */
function readGraphKeys(directory: string): bigint[] | undefined {
  if (!existsSync(directory)) return undefined;
  const keys: bigint[] = [];
  for (const name of readdirSync(directory).filter((file) => file.endsWith(".json"))) {
    const { generation } = JSON.parse(readFileSync(join(directory, name), "utf8")) as { generation: string };
    const bytes = readFileSync(join(directory, `${name.slice(0, -".json".length)}.${generation}.keys`));
    keys.push(...new BigUint64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)));
  }
  return keys;
}

/** Reads everything a commit writes from `database` (which no store may be writing), and the saved graphs under `graphDirectory`. */
export async function snapshotDatabase(
  database: SqlDatabase,
  graphDirectory: string | undefined,
): Promise<DatabaseSnapshot> {
  const entries = await database.query<{
    id: string;
    thread_id: string;
    text: string;
    content_hash: string;
    version: number;
    summary: string;
    change_kind: string;
  }>("SELECT id::text AS id, thread_id, text, content_hash, version, summary, change_kind FROM entries");
  const chunks = await database.query<{
    id: string;
    entry_id: string;
    ordinal: number;
    start_offset: number;
    end_offset: number;
    embedding_model: string;
    embedding: string | null;
  }>(
    "SELECT id::text AS id, entry_id::text AS entry_id, ordinal, start_offset, end_offset, embedding_model, embedding::text AS embedding FROM chunks ORDER BY entry_id, ordinal",
  );
  const nodes = await database.query<{ entry_id: string; node_id: string; summary: string }>(
    "SELECT entry_id::text AS entry_id, node_id, summary FROM node_summaries ORDER BY entry_id, ordinal",
  );
  const audit = await database.query<{
    tenant: string;
    seq: number;
    action: string;
    outcome: string;
    target_ids: string[];
    after_hashes: string[];
  }>(
    "SELECT tenant, seq::integer AS seq, action, outcome, target_ids, after_hashes FROM audit_log ORDER BY tenant, seq",
  );
  const keys = await database.query<{ key: string; rpc: string; response: Uint8Array }>(
    "SELECT key, rpc, response FROM idempotency_keys",
  );
  const strays = await database.query<DatabaseSnapshot["strays"]>(
    `SELECT
       (SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = c.entry_id))::integer AS chunks,
       (SELECT count(*) FROM node_summaries n WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = n.entry_id))::integer AS node_summaries,
       (SELECT count(*) FROM entry_images i WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = i.entry_id))::integer AS entry_images,
       (SELECT count(*) FROM entry_versions)::integer AS entry_versions,
       (SELECT count(*) FROM tombstones)::integer AS tombstones,
       (SELECT count(*) FROM vector_outbox o
         WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = o.target) AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = o.target))::integer AS vector_outbox`,
  );
  const spaces = await database.query<{ embedding_model: string; dimension: number }>(
    "SELECT embedding_model, dimension FROM embedding_spaces ORDER BY embedding_model, dimension",
  );
  // A transaction gets its id at its first write; one the crash cut short reads as aborted. A fresh cluster is in epoch 0, so xid = xid8.
  const aborted = await database.query<{ aborted: number }>(
    `SELECT count(*)::integer AS aborted
     FROM generate_series((SELECT min(xmin::text::bigint) FROM entries), pg_snapshot_xmax(pg_current_snapshot())::text::bigint - 1) AS x
     WHERE pg_xact_status(x::text::xid8) = 'aborted'`,
  );
  return {
    entries: entries.rows.map((row) => ({
      id: row.id,
      threadId: row.thread_id,
      text: row.text,
      contentHash: row.content_hash,
      version: row.version,
      summary: row.summary,
      changeKind: row.change_kind,
    })),
    chunks: groupBy(
      chunks.rows,
      (row) => row.entry_id,
      (row) => ({
        id: row.id,
        ordinal: row.ordinal,
        start: row.start_offset,
        end: row.end_offset,
        model: row.embedding_model,
        vector: row.embedding === null ? [] : parseVector(row.embedding),
      }),
    ),
    nodeSummaries: groupBy(
      nodes.rows,
      (row) => row.entry_id,
      (row) => ({ nodeId: row.node_id, summary: row.summary }),
    ),
    audit: audit.rows.map((row) => ({
      tenant: row.tenant,
      seq: row.seq,
      action: row.action,
      outcome: row.outcome,
      targetIds: row.target_ids,
      afterHashes: row.after_hashes,
    })),
    idempotency: new Map(
      keys.rows.map((row) => [
        row.key,
        { rpc: row.rpc, entryId: fromBinary(storeV1.CommitResponseSchema, row.response).ack?.id ?? "" },
      ]),
    ),
    strays: strays.rows[0]!,
    embeddingSpaces: spaces.rows.map((row) => ({ model: row.embedding_model, dimension: row.dimension })),
    abortedWriteTransactions: aborted.rows[0]?.aborted ?? 0,
    graphKeys: graphDirectory === undefined ? undefined : readGraphKeys(graphDirectory),
  };
}

/** What the database holds of one write: nothing, all of it (exactly what generation made), or something else. */
export type Verdict =
  | { state: "absent" }
  | { state: "whole"; entry: StoredEntry }
  | { state: "partial"; problems: string[] };

/** What keeps `entry`, the one entry holding `write`'s text, from being the whole of that write's commit. */
function wholenessProblems(
  snapshot: DatabaseSnapshot,
  write: PlannedWrite,
  generation: Generation,
  entry: StoredEntry,
): string[] {
  const problems: string[] = [];
  if (entry.text !== write.text) problems.push("its text differs from the text written");
  if (entry.threadId !== write.threadId) problems.push(`it is in thread ${entry.threadId}, not ${write.threadId}`);
  if (entry.version !== 1 || entry.changeKind !== "create")
    problems.push(`it is version ${entry.version} (${entry.changeKind}), not a first version`);
  if (generation.summary === "" || entry.summary !== generation.summary)
    problems.push(`its summary is ${JSON.stringify(entry.summary.slice(0, 60))}, not the summarizer's`);

  const chunks = snapshot.chunks.get(entry.id) ?? [];
  if (chunks.length !== generation.chunks.length)
    problems.push(
      `it has ${chunks.length} chunk(s), not the ${generation.chunks.length} the embedder makes of its text`,
    );
  generation.chunks.forEach((expected, ordinal) => {
    const chunk = chunks[ordinal];
    if (chunk === undefined) return;
    if (chunk.ordinal !== ordinal || chunk.start !== expected.start || chunk.end !== expected.end) {
      problems.push(
        `chunk ${ordinal} is #${chunk.ordinal} [${chunk.start}, ${chunk.end}), not [${expected.start}, ${expected.end})`,
      );
    }
    if (chunk.model !== generation.model)
      problems.push(`chunk ${ordinal} is of model ${chunk.model}, not ${generation.model}`);
    if (chunk.vector.length !== generation.dimension)
      problems.push(`chunk ${ordinal} has ${chunk.vector.length} dimensions, not ${generation.dimension}`);
    // Both column types store 32-bit floats, which read back exactly.
    else if (chunk.vector.some((value, index) => Math.fround(value) !== expected.vector[index]))
      problems.push(`chunk ${ordinal}'s vector is not the embedder's`);
  });

  const nodes = snapshot.nodeSummaries.get(entry.id) ?? [];
  if (generation.nodeSummaries.length === 0)
    problems.push("its headed sections got no node summaries from the summarizer");
  if (JSON.stringify(nodes) !== JSON.stringify(generation.nodeSummaries)) {
    problems.push(
      `its node summaries are [${nodes.map((node) => node.nodeId).join(", ")}], not [${generation.nodeSummaries.map((node) => node.nodeId).join(", ")}] as summarised`,
    );
  }

  const creations = snapshot.audit.filter((record) => record.targetIds.includes(entry.id));
  const created = creations.filter(
    (record) => record.action === "entry.create" && record.outcome === "ok" && record.afterHashes.join() === write.hash,
  );
  if (created.length !== 1 || creations.length !== 1)
    problems.push(`${creations.length} audit record(s) name it, ${created.length} of them its creation`);

  const recorded = snapshot.idempotency.get(write.idempotencyKey);
  if (recorded === undefined) problems.push("its idempotency record is missing");
  else if (recorded.rpc !== "Commit" || recorded.entryId !== entry.id)
    problems.push(`its idempotency record is a ${recorded.rpc} acknowledging ${recorded.entryId}`);
  return problems;
}

/** Indexes a snapshot for verdicts: the entries by content hash (every planned text is distinct). */
function createJudge(snapshot: DatabaseSnapshot): (write: PlannedWrite, generation: Generation) => Verdict {
  const byHash = groupBy(
    snapshot.entries,
    (entry) => entry.contentHash,
    (entry) => entry,
  );
  return (write, generation) => {
    const entries = byHash.get(write.hash) ?? [];
    if (entries.length === 0) {
      const problems: string[] = [];
      const recorded = snapshot.idempotency.get(write.idempotencyKey);
      if (recorded !== undefined)
        problems.push(`no entry holds it, yet its idempotency record acknowledges ${recorded.entryId}`);
      if (snapshot.audit.some((record) => record.afterHashes.includes(write.hash)))
        problems.push("no entry holds it, yet an audit record names its text");
      return problems.length === 0 ? { state: "absent" } : { state: "partial", problems };
    }
    if (entries.length > 1) return { state: "partial", problems: [`${entries.length} entries hold it`] };
    const entry = entries[0]!;
    const problems = wholenessProblems(snapshot, write, generation, entry);
    return problems.length === 0 ? { state: "whole", entry } : { state: "partial", problems };
  };
}

/** What a write's caller was told: the entry, version and hash a store_context call acknowledged. */
export interface Acknowledgement {
  id: string;
  version: number;
  contentHash: string;
}

/**
 * The verdict on every write of a stream, and what is wrong: a write
 * acknowledged but not stored whole as acknowledged, a write stored in part,
 * and anything stored that belongs to no write (see `strayProblems`).
 */
export function judgeStream(
  snapshot: DatabaseSnapshot,
  writes: readonly { write: PlannedWrite; acknowledged?: Acknowledgement | undefined }[],
  generations: readonly Generation[],
): { verdicts: Verdict[]; problems: string[] } {
  const judge = createJudge(snapshot);
  const problems: string[] = [];
  const verdicts = writes.map(({ write, acknowledged: ack }) => {
    const verdict = judge(write, generations[write.index]!);
    if (verdict.state === "partial")
      problems.push(
        `write ${write.index} (${ack === undefined ? "unacknowledged" : "acknowledged"}): ${verdict.problems.join("; ")}`,
      );
    else if (ack !== undefined && verdict.state === "absent")
      problems.push(`acknowledged write ${write.index} (${ack.id}) is not stored`);
    else if (ack !== undefined && verdict.state === "whole") {
      const { entry } = verdict;
      if (entry.id !== ack.id || entry.version !== ack.version || entry.contentHash !== ack.contentHash) {
        problems.push(
          `write ${write.index} was acknowledged as ${ack.id} v${ack.version} ${ack.contentHash}, and is stored as ${entry.id} v${entry.version} ${entry.contentHash}`,
        );
      }
    }
    return verdict;
  });
  problems.push(
    ...strayProblems(
      snapshot,
      writes.map(({ write }) => write),
      generations[0]!,
    ),
  );
  return { verdicts, problems };
}

/**
 * What in the snapshot belongs to no planned write: entries with other
 * texts, rows of no entry, versions or tombstones, audit records of no entry
 * or with gaps in a tenant's chain, idempotency records of no entry, an
 * embedding space other than the embedder's, graph points of no chunk. An
 * empty list when there is none.
 */
function strayProblems(
  snapshot: DatabaseSnapshot,
  writes: readonly PlannedWrite[],
  generation: Pick<Generation, "model" | "dimension">,
): string[] {
  const problems: string[] = [];
  const planned = new Set(writes.map((write) => write.hash));
  const ids = new Set(snapshot.entries.map((entry) => entry.id));
  for (const entry of snapshot.entries)
    if (!planned.has(entry.contentHash)) problems.push(`entry ${entry.id} holds a text no write sent`);
  for (const [table, count] of Object.entries(snapshot.strays))
    if (count !== 0) problems.push(`${count} row(s) of ${table} belong to no entry (or should not exist)`);
  snapshot.audit.forEach((record, index) => {
    const previous = snapshot.audit[index - 1];
    const expectedSeq = previous?.tenant === record.tenant ? previous.seq + 1 : 1;
    if (record.seq !== expectedSeq)
      problems.push(`audit record ${record.tenant}#${record.seq} follows #${expectedSeq - 1}: the chain has a gap`);
    for (const target of record.targetIds)
      if (!ids.has(target))
        problems.push(`audit record ${record.tenant}#${record.seq} names ${target}, which is not stored`);
  });
  for (const [key, recorded] of snapshot.idempotency)
    if (!ids.has(recorded.entryId))
      problems.push(`idempotency key ${key} acknowledges ${recorded.entryId}, which is not stored`);
  const spaces = JSON.stringify(snapshot.embeddingSpaces);
  const expectedSpaces = JSON.stringify(
    snapshot.entries.length === 0 ? [] : [{ model: generation.model, dimension: generation.dimension }],
  );
  if (spaces !== expectedSpaces) problems.push(`the embedding spaces are ${spaces}, not ${expectedSpaces}`);
  if (snapshot.graphKeys !== undefined) {
    const chunkKeys = new Set([...snapshot.chunks.values()].flat().map((chunk) => graphKeyOf(chunk.id)));
    const strayPoints = snapshot.graphKeys.filter((key) => !chunkKeys.has(key)).length;
    if (strayPoints > 0) problems.push(`the saved vector graph holds ${strayPoints} point(s) of no stored chunk`);
    if (snapshot.graphKeys.length !== chunkKeys.size)
      problems.push(
        `the saved vector graph holds ${snapshot.graphKeys.length} points for ${chunkKeys.size} stored chunks`,
      );
  }
  return problems;
}
