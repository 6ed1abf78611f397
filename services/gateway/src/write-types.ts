/** The write path's domain types: what tools hand it and what it answers, free of any wire format. */
import type { JsonObject } from "@bufbuild/protobuf";
import type { TrustStateName } from "@context-hub/common";
import type { Idempotency } from "./idempotency.js";

export type Source = "user" | "agent";
export type Visibility = "private" | "shared" | "tenant";

export interface NewEntryInput {
  threadId: string;
  source: Source;
  text: string;
  metadata: JsonObject | undefined;
  tags: string[];
  images: { mimeType: string; data: Uint8Array }[];
  /** Undefined lets the store choose: private, or shared in a thread the caller has shared. */
  visibility: Visibility | undefined;
  /** When the stated fact holds (valid_from ≤ t < valid_to); undefined ends are open. */
  validFrom?: Date | undefined;
  validTo?: Date | undefined;
  /** What the entry is; undefined: a note. The store checks it is one it accepts. */
  kind?: string | undefined;
  /** An optional one-line title. */
  title?: string | undefined;
  /** The arguments a prompt declares; the store checks the kind is prompt and the text's placeholders. */
  promptArguments?: readonly PromptArgumentInput[] | undefined;
  /** SHA-256s of the artifacts the entry links. */
  artifacts?: readonly string[] | undefined;
  /** The name a prompt is got by (prompts/get), unique among its owner's prompts. */
  promptName?: string | undefined;
}

/** An argument a prompt entry declares: its text's placeholder `{{name}}` takes the value. */
export interface PromptArgumentInput {
  name: string;
  description?: string | undefined;
  required?: boolean | undefined;
}

export interface EntryChange {
  /** Full id or unique prefix. */
  id: string;
  expectedVersion: number | undefined;
  text: string | undefined;
  metadata: JsonObject | undefined;
  tags: string[] | undefined;
  images: { mimeType: string; data: Uint8Array }[] | undefined;
  visibility: Visibility | undefined;
  /** Set when the change restores this earlier version (the store checks the content is that version's). */
  restoredFromVersion?: number | undefined;
  /** Replaces the valid-time interval (an undefined end becomes open). */
  validity?: { validFrom: Date | undefined; validTo: Date | undefined } | undefined;
  /** Replaces the kind. */
  kind?: string | undefined;
  /** Replaces the title; empty removes it. */
  title?: string | undefined;
  /** Replaces the declared prompt arguments; empty removes them. */
  promptArguments?: readonly PromptArgumentInput[] | undefined;
  /** Replaces the linked artifacts; empty removes them. */
  artifacts?: readonly string[] | undefined;
  /** Replaces the prompt name; empty removes it. */
  promptName?: string | undefined;
}

/** The read-back acknowledgement a caller gets once the write is durable. */
export interface WriteAck {
  id: string;
  threadId: string | undefined;
  version: number;
  contentHash: string;
  deduplicated: boolean;
  createdAt: string;
  updatedAt: string;
  /** A new entry whose text was deleted from its thread before. */
  previouslyDeleted: boolean;
  trustState: TrustStateName;
  /** What the write-time screen found, as `<field>:<rule>`. */
  trustReasons: string[];
}

export interface ItemFailure {
  code: string;
  message: string;
}

export type ItemOutcome<T> = { ok: true; value: T } | { ok: false; error: ItemFailure };

/** An idempotency key as the tools resolved it: `replay` when the store already holds its first result. */
export type ResolvedIdempotency = Idempotency & { replay: boolean };

/** What generation needs of a text. */
export interface GenerationInput {
  text: string;
  source: Source;
}
