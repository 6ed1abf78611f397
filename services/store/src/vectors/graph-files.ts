/**
 * A space's graph saved between runs: a manifest naming the generation of the
 * graph file and its key list, checked by SHA-256 before it is loaded, and
 * written so that a crash keeps the previous generation.
 */
import { createHash, randomUUID } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Index } from "usearch";
import type { Logger } from "@context-hub/common";
import { hnswIndexName } from "./postgres-vector-queries.js";
import type { PostgresVectorIndexSettings } from "./postgres-vector-settings.js";
import { newGraph, type Space } from "./graph-space.js";

/** What a saved graph's manifest records; the graph and its key list are files named by `generation`. */
interface Manifest {
  model: string;
  dimension: number;
  generation: string;
  points: number;
  /** SHA-256 of the graph file, checked before it is loaded: USearch takes a damaged file a long time to refuse. */
  sha256: string;
}

/**
 * The SHA-256 of a file, read in chunks between turns of the event loop: a
 * graph file is about 320 bytes per point (a third of a gigabyte at a million
 * chunks), which read whole would cost that much memory and hold the store's
 * one thread for as long as hashing it takes.
 */
async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** The file names of a space's saved graph start with this. */
export const fileStem = (model: string, dimension: number) =>
  hnswIndexName(model, dimension).replace("chunks_hnsw_", "graph-");

/** The saved graph of a space, if one was saved and reads back whole; otherwise an empty one. */
export async function loadSaved(
  directory: string | undefined,
  logger: Logger,
  settings: PostgresVectorIndexSettings,
  model: string,
  dimension: number,
): Promise<{ graph: Index; keys: BigUint64Array } | undefined> {
  if (directory === undefined) return undefined;
  const stem = join(directory, fileStem(model, dimension));
  if (!existsSync(`${stem}.json`)) return undefined;
  try {
    const manifest = JSON.parse(readFileSync(`${stem}.json`, "utf8")) as Manifest;
    const keyBytes = readFileSync(`${stem}.${manifest.generation}.keys`);
    const keys = new BigUint64Array(
      keyBytes.buffer.slice(keyBytes.byteOffset, keyBytes.byteOffset + keyBytes.byteLength),
    );
    const graphFile = `${stem}.${manifest.generation}.usearch`;
    if ((await sha256Of(graphFile)) !== manifest.sha256)
      throw new Error("the graph file is damaged: its SHA-256 does not match its manifest");
    const graph = newGraph(settings, dimension);
    graph.load(graphFile);
    if (
      manifest.model !== model ||
      graph.dimensions() !== dimension ||
      graph.size() !== keys.length ||
      keys.length !== manifest.points
    ) {
      throw new Error(
        `it does not match its manifest (${graph.size()} points, ${keys.length} keys, ${graph.dimensions()} dimensions)`,
      );
    }
    return { graph, keys };
  } catch (error) {
    logger.warn(
      { err: error, model, dimension },
      "a saved vector graph could not be read; it is rebuilt from the stored chunks",
    );
    return undefined;
  }
}

/**
 * Writes every changed graph: its points and key list under a new
 * generation, then the manifest that names it (renamed into place, so a
 * crash keeps the previous one). The graph and its keys are written in one
 * synchronous step, so they are one snapshot; chunks added while the file
 * is hashed mark the space changed again, for the next save.
 */
export async function saveChangedNow(
  directory: string | undefined,
  logger: Logger,
  spaces: Iterable<Space>,
): Promise<void> {
  if (directory === undefined) return;
  for (const space of spaces) {
    if (!space.changed) continue;
    try {
      // Private like the data directory around it; the native save honours the store's umask (077) for its own file.
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      const stem = join(directory, fileStem(space.model, space.dimension));
      const generation = randomUUID();
      const keys = BigUint64Array.from(space.ids.keys());
      space.graph.save(`${stem}.${generation}.usearch`);
      writeFileSync(`${stem}.${generation}.keys`, new Uint8Array(keys.buffer), { mode: 0o600 });
      space.changed = false;
      const manifest: Manifest = {
        model: space.model,
        dimension: space.dimension,
        generation,
        points: keys.length,
        sha256: await sha256Of(`${stem}.${generation}.usearch`),
      };
      writeFileSync(`${stem}.json.tmp`, JSON.stringify(manifest), { mode: 0o600 });
      renameSync(`${stem}.json.tmp`, `${stem}.json`);
      const stemName = fileStem(space.model, space.dimension);
      for (const name of readdirSync(directory)) {
        if (
          name.startsWith(`${stemName}.`) &&
          !name.startsWith(`${stemName}.${generation}.`) &&
          !name.startsWith(`${stemName}.json`)
        )
          rmSync(join(directory, name), { force: true });
      }
    } catch (error) {
      space.changed = true;
      logger.warn(
        { err: error, model: space.model, dimension: space.dimension },
        "saving the vector graph failed; the next start rebuilds what it lacks from the stored chunks",
      );
    }
  }
}
