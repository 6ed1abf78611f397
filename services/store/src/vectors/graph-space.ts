/**
 * One embedding space's graph in the store process (graph-vector-index.ts):
 * its points keyed by chunk, and adding, removing and inserting pending
 * chunks, with the gauge of its size.
 */
import { Index, MetricKind, ScalarKind } from "usearch";
import { gauge, type Logger } from "@context-hub/common";
import type { PostgresVectorIndexSettings } from "./postgres-vector-settings.js";
import type { CommittedChunk } from "./vector-index.js";

export const graphPoints = gauge(
  "contexthub_vector_graph_points",
  "Chunks in the store's in-process vector graph, by embedding model.",
  ["model"],
);

/**
 * A chunk's key in the graph: the low 64 bits of its UUIDv7, which are 62
 * random bits and the variant. Two chunks of one space sharing a key is a
 * chance of about n² / 2⁶³ (10⁻⁷ at a million chunks); the later one is then
 * left out of the graph and found only by exact searches.
 */
export function graphKeyOf(chunkId: string): bigint {
  return BigInt(`0x${chunkId.slice(19, 23)}${chunkId.slice(24)}`);
}

export interface Space {
  model: string;
  dimension: number;
  graph: Index;
  /** The chunk id of every key in the graph. */
  ids: Map<bigint, string>;
  /** Whether the graph changed since it was last saved. */
  changed: boolean;
  /** Committed chunks not in the graph yet: inserted a slice at a time (see `insertSliceMs` in graph-vector-index.ts). */
  pending: CommittedChunk[];
  /** Whether the graph has caught up with `chunks` since the store started; until then the exact scan answers. */
  ready: boolean;
}

/** An empty graph of `dimension` under the index's HNSW settings. */
export const newGraph = (settings: PostgresVectorIndexSettings, dimension: number) =>
  new Index({
    dimensions: dimension,
    metric: MetricKind.Cos,
    // Half precision halves the graph's memory; every distance reported is PostgreSQL's exact one.
    quantization: ScalarKind.F16,
    connectivity: settings.hnswM,
    expansion_add: settings.hnswEfConstruction,
    expansion_search: settings.efSearch,
    multi: false,
  });

export function addPoint(space: Space, id: string, vector: Float32Array): void {
  const key = graphKeyOf(id);
  if (space.ids.has(key)) return;
  space.graph.add(key, vector, 1);
  space.ids.set(key, id);
  space.changed = true;
}

export function removeKeys(space: Space, keys: readonly bigint[]): void {
  for (const key of keys) {
    if (!space.ids.delete(key)) continue;
    space.graph.remove(key);
    space.changed = true;
  }
  graphPoints.set({ model: space.model }, space.ids.size);
}

/** Inserts a space's pending chunks, at most `untilMs` (performance.now()) or all of them; says whether any are left. */
export function insertPending(logger: Logger, space: Space, untilMs: number): boolean {
  let done = 0;
  while (done < space.pending.length && performance.now() < untilMs) {
    const chunk = space.pending[done++] as CommittedChunk;
    try {
      addPoint(space, chunk.id, Float32Array.from(chunk.vector));
    } catch (error) {
      logger.warn(
        { err: error, chunk: chunk.id },
        "adding a chunk to the vector graph failed; exact searches still find it, and the next start adds it",
      );
    }
  }
  space.pending.splice(0, done);
  graphPoints.set({ model: space.model }, space.ids.size);
  return space.pending.length > 0;
}
