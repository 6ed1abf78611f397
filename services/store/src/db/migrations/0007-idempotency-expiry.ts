import type { Migration } from "./migration.js";

/**
 * Idempotency keys expire (services/store/src/idempotency-expiry.ts): an
 * index on `created_at` lets the store find the expired rows oldest first,
 * a bounded batch at a time, without scanning the table.
 */
export const idempotencyExpiry: Migration = {
  version: 7,
  name: "idempotency key expiry",
  async up(tx) {
    await tx.query("CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)");
  },
};
