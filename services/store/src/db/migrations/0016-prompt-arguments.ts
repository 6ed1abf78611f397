import type { Migration } from "./migration.js";

/**
 * The arguments a prompt entry declares (`[{name, description?, required}]`),
 * which MCP `prompts/list` shows and `prompts/get` fills into the entry's
 * text.
 *
 * - `entries` and `entry_versions` both gain the column, so a kept version
 *   keeps the arguments it had and a restore brings them back.
 * - NULL means none, which is what every existing row has: no rewrite.
 * - jsonb, not a child table: the list is small (at most 20), always read
 *   and written whole with its entry, and never queried by its parts.
 */
export const promptArguments: Migration = {
  version: 16,
  name: "prompt arguments",
  async up(tx) {
    await tx.query(`
ALTER TABLE entries
  ADD COLUMN prompt_arguments jsonb CONSTRAINT entries_prompt_arguments_check CHECK (jsonb_typeof(prompt_arguments) = 'array')`);
    await tx.query(`
ALTER TABLE entry_versions
  ADD COLUMN prompt_arguments jsonb CONSTRAINT entry_versions_prompt_arguments_check CHECK (jsonb_typeof(prompt_arguments) = 'array')`);
  },
};
