/**
 * What generation made for a text, as rows: its chunks with their
 * embeddings, and its node summaries. The statement parts here serve both
 * the single-statement insert of a new entry and the replacement of an
 * updated entry's text.
 */
import { createSqlParams, type SqlParams } from "../../db/sql-database.js";
import type { GeneratedWrite } from "../../model/entry-model.js";
import { createUuidV7 } from "../../model/ids.js";
import { toVectorsParam } from "../../vectors/vector-literal.js";
import type { WriteContext } from "./write-context.js";

/**
 * `INSERT INTO chunks … SELECT …` for the rows `chunkRows` names `c`; the caller adds the FROM clause. The embeddings
 * travel as one array parameter (`toVectorsParam`: binary on PGlite): a `vector[]` that `chunkRows` unnests beside the
 * other columns, or, without pgvector, one flat `real[]` of which row `c.k` takes its slice.
 */
export function chunkInsert(
  context: WriteContext,
  params: SqlParams,
  entryId: string,
  tenant: string,
  generated: GeneratedWrite,
): string {
  let embedding = "c.embedding";
  if (context.vectorType !== "pgvector") {
    const vectors = toVectorsParam(
      context.vectorType,
      generated.chunks.map((chunk) => chunk.vector),
    );
    const dimensions = `${params.add(vectors.dimensions)}::integer`;
    embedding = `(${params.add(vectors.value)}::real[])[(c.k::integer - 1) * ${dimensions} + 1 : c.k::integer * ${dimensions}]`;
  }
  return `INSERT INTO chunks (id, entry_id, tenant, ordinal, start_offset, end_offset, embedding_model, embedding)
     SELECT c.id, ${entryId}, ${tenant}, c.ordinal, c.start_offset, c.end_offset, ${params.add(generated.embeddingModel)}, ${embedding}`;
}

/**
 * The chunks' rows, numbered from 1 in `c.k`, their order in `generated.chunks`; with pgvector, each with its
 * embedding in `c.embedding`.
 */
export function chunkRows(
  context: WriteContext,
  params: SqlParams,
  generated: GeneratedWrite,
  ids: readonly string[],
): string {
  const { chunks } = generated;
  const embeddings =
    context.vectorType === "pgvector"
      ? `, ${params.add(
          toVectorsParam(
            context.vectorType,
            chunks.map((chunk) => chunk.vector),
          ).value,
        )}::vector[]`
      : "";
  return `unnest(${params.add(ids)}::uuid[], ${params.add(chunks.map((chunk) => chunk.ordinal))}::integer[],
      ${params.add(chunks.map((chunk) => chunk.start))}::integer[], ${params.add(chunks.map((chunk) => chunk.end))}::integer[]${embeddings})
      WITH ORDINALITY AS c (id, ordinal, start_offset, end_offset, ${embeddings === "" ? "" : "embedding, "}k)`;
}

/** Notes the chunks inserted under `ids` for the report after commit. */
export function recordChunks(context: WriteContext, generated: GeneratedWrite, ids: readonly string[]): void {
  generated.chunks.forEach((chunk, index) =>
    context.inserted.push({ id: ids[index]!, model: generated.embeddingModel, vector: chunk.vector }),
  );
}

/** `INSERT INTO node_summaries … SELECT …` for the rows `nodeSummaryRows` names `n`; the caller adds the FROM clause. */
export function nodeSummaryInsert(entryId: string): string {
  return `INSERT INTO node_summaries (entry_id, node_id, ordinal, heading, level, start_offset, end_offset, summary)
     SELECT ${entryId}, n.node_id, n.ordinal - 1, n.heading, n.level, n.start_offset, n.end_offset, n.summary`;
}

/** The node summaries' rows, numbered from 1 in `n.ordinal`, their order in `generated.nodeSummaries`. */
export function nodeSummaryRows(params: SqlParams, generated: GeneratedWrite): string {
  const nodes = generated.nodeSummaries;
  return `unnest(${params.add(nodes.map((node) => node.nodeId))}::text[], ${params.add(nodes.map((node) => node.heading))}::text[],
      ${params.add(nodes.map((node) => node.level))}::integer[], ${params.add(nodes.map((node) => node.span.start))}::integer[],
      ${params.add(nodes.map((node) => node.span.end))}::integer[], ${params.add(nodes.map((node) => node.summary))}::text[]) WITH ORDINALITY
      AS n (node_id, heading, level, start_offset, end_offset, summary, ordinal)`;
}

/** Inserts the chunks and node summaries of entry `entryId` (of `tenant`), one statement each. */
export async function insertGenerated(
  context: WriteContext,
  entryId: string,
  tenant: string,
  generated: GeneratedWrite,
): Promise<void> {
  if (generated.chunks.length > 0) {
    const params = createSqlParams();
    const entry = params.add(entryId);
    const ids = generated.chunks.map(() => createUuidV7());
    await context.tx.query(
      `${chunkInsert(context, params, entry, params.add(tenant), generated)} FROM ${chunkRows(context, params, generated, ids)}`,
      params.values,
    );
    recordChunks(context, generated, ids);
  }
  if (generated.nodeSummaries.length > 0) {
    const params = createSqlParams();
    const entry = params.add(entryId);
    await context.tx.query(`${nodeSummaryInsert(entry)} FROM ${nodeSummaryRows(params, generated)}`, params.values);
  }
}

/** Removes everything derived from an entry's text (its chunks and node summaries) and inserts what was generated for its new text. */
export async function replaceGenerated(
  context: WriteContext,
  entryId: string,
  tenant: string,
  generated: GeneratedWrite,
): Promise<void> {
  await context.tx.query("DELETE FROM chunks WHERE entry_id = $1", [entryId]);
  await context.tx.query("DELETE FROM node_summaries WHERE entry_id = $1", [entryId]);
  await insertGenerated(context, entryId, tenant, generated);
}
