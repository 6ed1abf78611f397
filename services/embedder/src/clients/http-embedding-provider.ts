import { mapWithConcurrency, splitIntoBatches, type HttpProviderClient, type Logger } from "@context-hub/common";
import type { EmbeddingInputType, EmbeddingModel, EmbeddingProvider } from "../embedding-provider.js";

/** One embeddings API: turns a batch of texts into raw vectors, in input order. */
export interface EmbeddingApi {
  /** The client the API sends through; its errors name provider and model. */
  client: HttpProviderClient;
  /** Raw vectors, one per text and in text order (the API adapter has ordered them by index). */
  embedBatch(texts: string[], inputType: EmbeddingInputType, signal: AbortSignal | undefined): Promise<number[][]>;
}

export interface HttpEmbeddingProviderOptions {
  provider: string;
  model: string;
  api: EmbeddingApi;
  /** Known dimension (EMBEDDER_DIMENSION); undefined means it is learned by a probe request. */
  dimension: number | undefined;
  batchSize: number;
  concurrency: number;
  logger?: Pick<Logger, "info" | "warn">;
  /** First wait before probing again after a failed probe; doubles up to a minute. Default 5 s. */
  reprobeDelayMs?: number;
}

const probeText = "dimension probe";
const maxReprobeDelayMs = 60_000;

/**
 * Orders `{index, embedding}` items by index and checks that they are
 * exactly one per input (no gap, duplicate or stray index).
 */
export function orderByIndex(
  items: readonly { index: number; embedding: number[] }[],
  expected: number,
  client: HttpProviderClient,
): number[][] {
  if (items.length !== expected) throw client.malformed(`${items.length} embeddings for ${expected} inputs`);
  const ordered = new Array<number[] | undefined>(expected);
  for (const item of items) {
    if (item.index >= expected)
      throw client.malformed(`embedding index ${item.index} is out of range for ${expected} inputs`);
    if (ordered[item.index] !== undefined) throw client.malformed(`embedding index ${item.index} appears twice`);
    ordered[item.index] = item.embedding;
  }
  return ordered as number[][];
}

/**
 * The vector as float32, checked (dimension, finite values, non-zero) and
 * scaled to unit length, as the store's cosine search expects.
 */
function toUnitVector(
  values: readonly number[],
  position: number,
  dimension: number,
  client: HttpProviderClient,
): Float32Array {
  if (values.length !== dimension)
    throw client.malformed(`embedding ${position} has ${values.length} dimensions, expected ${dimension}`);
  const vector = Float32Array.from(values);
  let sumOfSquares = 0;
  for (let index = 0; index < vector.length; index++) {
    const value = vector[index] as number;
    // Checked after the float32 conversion: 1e39 is finite as a double but not as a float.
    if (!Number.isFinite(value)) throw client.malformed(`embedding ${position} has a non-finite value at ${index}`);
    sumOfSquares += value * value;
  }
  if (sumOfSquares === 0 || !Number.isFinite(sumOfSquares))
    throw client.malformed(`embedding ${position} has no direction (length ${Math.sqrt(sumOfSquares)})`);
  const length = Math.sqrt(sumOfSquares);
  for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] as number) / length;
  return vector;
}

/** Embeds `texts` in batches, at most `concurrency` at once, as unit vectors of `expected` dimensions in input order. */
async function embedInBatches(
  options: HttpEmbeddingProviderOptions,
  texts: string[],
  inputType: EmbeddingInputType,
  expected: number,
  signal: AbortSignal | undefined,
): Promise<Float32Array[]> {
  const { api, batchSize, concurrency } = options;
  const { client } = api;
  const batches = splitIntoBatches(texts, batchSize);
  const answers = await mapWithConcurrency(
    batches,
    concurrency,
    (batch, _index, batchSignal) => api.embedBatch(batch, inputType, batchSignal),
    signal,
  );
  const vectors: Float32Array[] = [];
  answers.forEach((answer, batchIndex) => {
    const batch = batches[batchIndex] as string[];
    if (answer.length !== batch.length)
      throw client.malformed(`${answer.length} embeddings for ${batch.length} inputs`);
    for (const values of answer) vectors.push(toUnitVector(values, vectors.length, expected, client));
  });
  return vectors;
}

/**
 * An EmbeddingProvider over an HTTP embeddings API: batching, concurrency,
 * validation and unit-length vectors are here; the API adapter only speaks
 * its wire format. With a configured dimension it is ready at once; without
 * one, `warm()` sends one probe request to learn it, and a failed probe is
 * repeated in the background (and by the next call) instead of crashing.
 */
export function createHttpEmbeddingProvider(options: HttpEmbeddingProviderOptions): EmbeddingProvider {
  const { provider, model, api, logger } = options;
  const { client } = api;
  let dimension = options.dimension;
  let probing: Promise<number> | undefined;
  let reprobeTimer: NodeJS.Timeout | undefined;
  let reprobeDelayMs = options.reprobeDelayMs ?? 5000;
  let closed = false;

  const probe = (): Promise<number> => {
    probing ??= (async () => {
      const [vector] = await api.embedBatch([probeText], "query", undefined);
      if (vector === undefined || vector.length === 0) throw client.malformed("the dimension probe returned no vector");
      dimension = vector.length;
      logger?.info({ provider, model, dimension }, "embedding dimension learned from the provider");
      return vector.length;
    })().finally(() => {
      probing = undefined;
    });
    return probing;
  };

  const scheduleReprobe = () => {
    if (closed || reprobeTimer !== undefined) return;
    reprobeTimer = setTimeout(() => {
      reprobeTimer = undefined;
      if (closed || dimension !== undefined) return;
      probe().catch((error: unknown) => {
        logger?.warn(
          { err: error, provider, model, retryInMs: reprobeDelayMs },
          "embedding dimension probe failed; trying again later",
        );
        reprobeDelayMs = Math.min(maxReprobeDelayMs, reprobeDelayMs * 2);
        scheduleReprobe();
      });
    }, reprobeDelayMs);
    // A pending probe must not keep a closing process alive.
    reprobeTimer.unref();
  };

  const knownDimension = async (signal: AbortSignal | undefined): Promise<number> => {
    if (dimension !== undefined) return dimension;
    const learning = probe();
    if (signal === undefined) return learning;
    signal.throwIfAborted();
    // The probe is shared by every waiting call, so one caller's deadline must not abort it.
    return new Promise<number>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      learning.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  };

  return {
    describe: (): EmbeddingModel => ({ provider, model, dimension: dimension ?? 0 }),
    async embed({ texts, inputType }, signal) {
      const expected = await knownDimension(signal);
      return embedInBatches(options, texts, inputType, expected, signal);
    },
    async warm() {
      if (dimension !== undefined) return;
      try {
        await probe();
      } catch (error) {
        scheduleReprobe();
        throw error;
      }
    },
    isReady: () => dimension !== undefined,
    async close() {
      closed = true;
      if (reprobeTimer !== undefined) clearTimeout(reprobeTimer);
    },
  };
}
