/**
 * The name a prompt entry is known by to MCP `prompts/list` and
 * `prompts/get`, chosen by its owner. Only an entry of kind `prompt` has
 * one, and an owner's prompts never share one (the database's unique index
 * holds that; here is what a name may look like and the errors about it).
 */
import { ContextHubError, entryLimits, invalidArgument, promptNamePattern } from "@context-hub/common";
import { promptKind } from "./prompt-arguments.js";
import { maxPrefixLength, minPrefixLength } from "./id-query.js";

/** The longest prompt name, in characters (the gateway's schema reads the same limit and pattern). */
export const promptNameChars = entryLimits.promptNameChars;

/**
 * Whether `name` has the form of an entry id as the store reads one (a full
 * UUID, or a prefix of 8 or more hex digits, hyphens anywhere): such a name
 * could not be told from an id where both are accepted, as by `prompts/get`.
 */
export function isEntryIdForm(name: string): boolean {
  const hex = name.replace(/-/g, "");
  return /^[0-9a-fA-F]*$/.test(hex) && hex.length >= minPrefixLength && hex.length <= 32;
}

/**
 * A prompt name as the caller sent it, checked: undefined for none (the empty
 * string), else the name itself (case-sensitive, never trimmed). Throws
 * INVALID_ARGUMENT naming `field`. A filter (`asFilter`) may name a name of
 * an entry id's form: no prompt has one, so it matches nothing.
 */
export function validatePromptName(input: string | undefined, field: string, asFilter = false): string | undefined {
  if (input === undefined || input === "") return undefined;
  if (!promptNamePattern.test(input))
    throw invalidArgument(
      `${field} ${JSON.stringify(input.slice(0, promptNameChars + 8))} is not a prompt name: a letter or "_", then up to ${promptNameChars - 1} letters, digits, "_", "." or "-"`,
    );
  if (!asFilter && isEntryIdForm(input))
    throw invalidArgument(
      `${field} ${JSON.stringify(input)} has the form of an entry id (${minPrefixLength} to ${maxPrefixLength + 1} hex digits), which it could be taken for`,
      "choose a name with a letter other than a to f, or with a character other than a hex digit or hyphen",
    );
  return input;
}

/**
 * Checks that only a prompt has a name. `changesKind` says that the entry's
 * kind is what changes (so the fix is removing the name in the same update);
 * `fields` names the caller's fields in errors.
 */
export function checkPromptNameShape(
  entry: { kind: string; promptName: string | undefined },
  fields: { kind: string; promptName: string },
  changesKind = false,
): void {
  if (entry.kind === promptKind || entry.promptName === undefined) return;
  if (changesKind)
    throw invalidArgument(
      `${fields.kind}: the entry is the prompt named ${JSON.stringify(entry.promptName)}, and only an entry of kind "${promptKind}" has a prompt name`,
      `remove the name in the same update (${fields.promptName} ""), or keep kind "${promptKind}"`,
    );
  throw invalidArgument(
    `${fields.promptName}: only an entry of kind "${promptKind}" has a prompt name (this one is a ${JSON.stringify(entry.kind)})`,
    `set ${fields.kind} to "${promptKind}", or leave ${fields.promptName} out`,
  );
}

/**
 * The error of a name another of the owner's prompts already has. It names
 * that prompt (the caller's own entry, or one an admin may see), when known:
 * a write that lost a race to the unique index knows only that the name is taken.
 */
export function promptNameTaken(name: string, holder: string | undefined): ContextHubError {
  const message =
    holder === undefined
      ? `prompt_name ${JSON.stringify(name)} is already the name of another of your prompts`
      : `prompt_name ${JSON.stringify(name)} is already the name of your prompt ${holder}`;
  return new ContextHubError(promptNameTakenCode, `${message}: rename or delete that one first`, {
    remedy: "choose another prompt_name, or rename or delete the prompt that has it",
    details: { prompt_name: name, ...(holder === undefined ? {} : { id: holder }) },
  });
}

/** The code of `promptNameTaken`. */
export const promptNameTakenCode = "ALREADY_EXISTS" as const;

/** The SQLSTATE of a unique violation, as PostgreSQL and PGlite both report it. */
const uniqueViolation = "23505";

/** Whether `error` is a unique violation of index `index`, from either database. */
export function isUniqueViolationOf(error: unknown, index: string): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code !== uniqueViolation) return false;
  return constraint === index || (typeof message === "string" && message.includes(`"${index}"`));
}
