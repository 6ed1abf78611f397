import { ContextHubError, contentHash, histogram, isContextHubError } from "@context-hub/common";
import { commonV1, type storeV1 } from "@context-hub/proto";
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Peers } from "./clients/peers.js";
import type { Principal } from "./principal.js";

export type WriteStage = "validate" | "dedup_check" | "embed" | "summarize" | "commit" | "total";

const stageSeconds = histogram("contexthub_write_stage_seconds", "Write latency per stage of the write path, in seconds.", ["stage", "outcome"]);

/** Times one stage of a write and records it, whether it succeeds or fails. */
export async function timeStage<T>(stage: WriteStage, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await work();
    stageSeconds.observe({ stage, outcome: "ok" }, (performance.now() - started) / 1000);
    return result;
  } catch (error) {
    stageSeconds.observe({ stage, outcome: "error" }, (performance.now() - started) / 1000);
    throw error;
  }
}

export type Source = "user" | "agent";
export type Visibility = "private" | "shared" | "tenant";

export interface NewEntryInput {
  threadId: string;
  source: Source;
  text: string;
  metadata: JsonObject | undefined;
  tags: string[];
  images: { mimeType: string; data: Uint8Array }[];
  visibility: Visibility;
}

/** The read-back acknowledgement a caller gets once the write is durable. */
export interface WriteAck {
  id: string;
  threadId: string;
  version: number;
  contentHash: string;
  deduplicated: boolean;
  createdAt: string;
  updatedAt: string;
}

export const toProtoSource = (source: Source): commonV1.Source => (source === "user" ? commonV1.Source.USER : commonV1.Source.AGENT);

const toProtoVisibility = (visibility: Visibility): commonV1.Visibility =>
  visibility === "tenant" ? commonV1.Visibility.TENANT : visibility === "shared" ? commonV1.Visibility.SHARED : commonV1.Visibility.PRIVATE;

export interface WritePathOptions {
  peers: Peers;
  /** Node summaries are best effort: a write waits for them at most this long. */
  sectionSummaryTimeoutMs: number;
}

/**
 * Stores one entry the way the architecture requires (I-4): a dedup
 * pre-check, then every generation leg in parallel, then one commit. If a
 * mandatory leg (embedding; the summary when a summarizer is configured)
 * fails, nothing is stored and the error names the leg.
 */
export function createWritePath(options: WritePathOptions) {
  const { peers } = options;

  async function generate(entry: NewEntryInput): Promise<storeV1.Generated> {
    const source = toProtoSource(entry.source);
    const embedding = timeStage("embed", () => peers.embedder.embedDocuments({ texts: [entry.text] })).catch((error: unknown) => {
      throw legFailure("embedding", "EMBEDDER_UNAVAILABLE", error);
    });
    const summary =
      peers.summarizer === undefined
        ? Promise.resolve({ summary: "" })
        : timeStage("summarize", () => peers.summarizer!.summarize({ text: entry.text, source })).catch((error: unknown) => {
            throw legFailure("summary", "SUMMARIZER_UNAVAILABLE", error);
          });
    // Node summaries never block or fail a write: on error or timeout the entry is stored without them.
    const sections =
      peers.summarizer === undefined
        ? Promise.resolve([])
        : peers.summarizer
            .summarizeSections({ text: entry.text, source }, { deadlineMs: options.sectionSummaryTimeoutMs })
            .then((reply) => reply.sections)
            .catch(() => []);

    const [embedded, summarized, nodeSummaries] = await Promise.all([embedding, summary, sections]);
    const document = embedded.documents[0];
    if (document === undefined) throw new ContextHubError("EMBEDDER_UNAVAILABLE", "embedding failed: the embedder returned no document; nothing was stored");
    return {
      $typeName: "contexthub.store.v1.Generated",
      embeddingModel: embedded.model,
      embeddingDimension: embedded.dimension,
      chunks: document.chunks.map((chunk) => ({
        $typeName: "contexthub.store.v1.ChunkVector",
        ordinal: chunk.ordinal,
        span: { $typeName: "contexthub.common.v1.TextSpan", start: chunk.start, end: chunk.end },
        vector: chunk.vector?.values ?? [],
      })),
      summary: summarized.summary,
      nodeSummaries,
    };
  }

  async function commit(principal: Principal, entry: NewEntryInput, generated: storeV1.Generated | undefined): Promise<WriteAck> {
    const reply = await timeStage("commit", () =>
      peers.store.commit({
        principal,
        entry: {
          threadId: entry.threadId,
          source: toProtoSource(entry.source),
          text: entry.text,
          ...(entry.metadata === undefined ? {} : { metadata: entry.metadata }),
          tags: entry.tags,
          images: entry.images,
          visibility: toProtoVisibility(entry.visibility),
        },
        ...(generated === undefined ? {} : { generated }),
      }),
    );
    const ack = reply.ack;
    if (ack === undefined) throw new ContextHubError("INTERNAL", "the store acknowledged the write without a read-back");
    return {
      id: ack.id,
      threadId: entry.threadId,
      version: ack.version,
      contentHash: ack.contentHash,
      deduplicated: ack.deduplicated,
      createdAt: ack.createdAt ? timestampDate(ack.createdAt).toISOString() : "",
      updatedAt: ack.updatedAt ? timestampDate(ack.updatedAt).toISOString() : "",
    };
  }

  return {
    /** Stores an entry; validated input only (the tool schema has run). */
    async store(principal: Principal, entry: NewEntryInput): Promise<WriteAck> {
      return timeStage("total", async () => {
        const hash = contentHash(entry.text);
        const duplicateOf = await timeStage("dedup_check", () =>
          peers.store.findDuplicate({ principal, threadId: entry.threadId, source: toProtoSource(entry.source), contentHash: hash }),
        );
        if (duplicateOf.entryId !== "") {
          try {
            // A likely retransmit: fold into the existing entry without generating anything.
            return await commit(principal, entry, undefined);
          } catch (error) {
            // The duplicate changed or vanished since the pre-check; generate and insert after all.
            if (!(isContextHubError(error) && error.code === "DUPLICATE_VANISHED")) throw error;
          }
        }
        const generated = await generate(entry);
        return commit(principal, entry, generated);
      });
    },
  };
}

export type WritePath = ReturnType<typeof createWritePath>;

function legFailure(leg: string, code: "EMBEDDER_UNAVAILABLE" | "SUMMARIZER_UNAVAILABLE", cause: unknown): ContextHubError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ContextHubError(code, `${leg} failed, so nothing was stored: ${reason}`, {
    remedy: "retry the same call later; if it keeps failing, check the generation worker and its provider",
    details: { leg },
    cause,
  });
}
