import type { Migration } from "./migration.js";

/** The unique index that keeps an owner's prompt names apart; a write that hits it is mapped to ALREADY_EXISTS. */
export const promptNameIndex = "entries_prompt_name_idx";

/**
 * The name MCP `prompts/list` and `prompts/get` know a prompt by, chosen by
 * its owner.
 *
 * - `entries` and `entry_versions` both gain the column, so a kept version
 *   keeps its name and a restore brings it back.
 * - NULL means none, which is what every existing row has: no rewrite.
 * - Only a prompt carries one (the CHECK), and an owner's names are unique in
 *   the tenant (the partial index). Deleted entries leave `entries`, so a
 *   deleted prompt frees its name; kept versions are not constrained.
 */
export const promptNames: Migration = {
  version: 26,
  name: "prompt names",
  async up(tx) {
    await tx.query(`
ALTER TABLE entries
  ADD COLUMN prompt_name text,
  ADD CONSTRAINT entries_prompt_name_check CHECK (prompt_name IS NULL OR kind = 'prompt')`);
    await tx.query("ALTER TABLE entry_versions ADD COLUMN prompt_name text");
    await tx.query(
      `CREATE UNIQUE INDEX ${promptNameIndex} ON entries (tenant, owner, prompt_name) WHERE prompt_name IS NOT NULL`,
    );
  },
};
