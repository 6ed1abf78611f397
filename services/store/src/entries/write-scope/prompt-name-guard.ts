/**
 * The rule that an owner's prompts have different names, as the writes
 * apply it: each looks for the owner's prompt that already has the name (to
 * refuse the write naming it), and a write that loses a race to the unique
 * index is refused too, without naming the winner (its transaction or
 * savepoint is aborted, so nothing it wrote stays).
 */
import { promptNameIndex } from "../../db/migrations/0026-prompt-names.js";
import type { SqlParams } from "../../db/sql-database.js";
import { isUniqueViolationOf, promptNameTaken } from "../../model/prompt-name.js";

/**
 * The SELECT of the id of the owner's entry named `name` (at most one, by the
 * unique index), other than `except`. `tenant` and `owner` are SQL
 * expressions (typed parameters or columns).
 */
export function promptNameHolder(
  params: SqlParams,
  tenant: string,
  owner: string,
  name: string,
  except: string | undefined,
): string {
  const other = except === undefined ? "" : ` AND h.id <> ${params.add(except)}::uuid`;
  return `SELECT h.id FROM entries h
           WHERE h.tenant = ${tenant} AND h.owner = ${owner} AND h.prompt_name = ${params.add(name)}::text${other}
           LIMIT 1`;
}

/** `statement`, with a unique violation of the prompt names refused as the name being taken. */
export async function guardPromptName<T>(statement: Promise<T>, name: string | null | undefined): Promise<T> {
  try {
    return await statement;
  } catch (error) {
    if (typeof name === "string" && isUniqueViolationOf(error, promptNameIndex)) throw promptNameTaken(name, undefined);
    throw error;
  }
}
