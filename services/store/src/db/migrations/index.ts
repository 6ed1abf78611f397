import type { Migration } from "./migration.js";
import { initialSchema } from "./0001-initial-schema.js";
import { idempotencyAndApiKeys } from "./0002-idempotency-and-api-keys.js";
import { searchSchema } from "./0003-search.js";
import { historyTrustAudit } from "./0004-history-trust-audit.js";
import { validTime } from "./0005-valid-time.js";
import { vectorOutbox } from "./0006-vector-outbox.js";
import { idempotencyExpiry } from "./0007-idempotency-expiry.js";
import { keptVersionSearchVectors } from "./0008-kept-version-search-vectors.js";
import { searchLengths } from "./0009-search-lengths.js";
import { searchVectorFilledOnce } from "./0010-search-vector-filled-once.js";
import { memories } from "./0011-memories.js";
import { handoffs } from "./0012-handoffs.js";
import { sessions } from "./0013-sessions.js";
import { artifacts } from "./0014-artifacts.js";
import { entryKinds } from "./0015-entry-kinds.js";
import { promptArguments } from "./0016-prompt-arguments.js";
import { workflowTrust } from "./0017-workflow-trust.js";
import { collections } from "./0018-collections.js";
import { bm25IndexTokens } from "./0019-bm25-index-tokens.js";
import { memoryMirrors } from "./0020-memory-mirrors.js";
import { entrySampleKey } from "./0021-entry-sample-key.js";
import { memoryReview } from "./0022-memory-review.js";
import { workflowReview } from "./0023-workflow-review.js";
import { entryArtifactLinks } from "./0024-entry-artifact-links.js";
import { ginWithoutPendingList } from "./0025-gin-without-pending-list.js";
import { promptNames } from "./0026-prompt-names.js";
import { resourcePublications } from "./0027-resource-publications.js";
import { resourceSubscriptions } from "./0028-resource-subscriptions.js";

export type { Migration, MigrationContext } from "./migration.js";

/** Every migration this store knows, in version order. Append only. */
export const migrations: readonly Migration[] = [
  initialSchema,
  idempotencyAndApiKeys,
  searchSchema,
  historyTrustAudit,
  validTime,
  vectorOutbox,
  idempotencyExpiry,
  keptVersionSearchVectors,
  searchLengths,
  searchVectorFilledOnce,
  memories,
  handoffs,
  sessions,
  artifacts,
  entryKinds,
  promptArguments,
  workflowTrust,
  collections,
  bm25IndexTokens,
  memoryMirrors,
  entrySampleKey,
  memoryReview,
  workflowReview,
  entryArtifactLinks,
  ginWithoutPendingList,
  promptNames,
  resourcePublications,
  resourceSubscriptions,
];

/** The schema version this build of the store expects. */
export const latestSchemaVersion: number = migrations.reduce(
  (latest, migration) => Math.max(latest, migration.version),
  0,
);
