/**
 * The arguments a prompt entry declares: what MCP `prompts/list` shows of
 * it and what `prompts/get` fills into its template. Only an entry of kind
 * `prompt` declares them, and every placeholder in a prompt's text must
 * name one of them.
 */
import { entryLimits, invalidArgument, placeholderNames, promptArgumentNamePattern } from "@context-hub/common";
import { hasNul } from "./field-validation.js";

/** The kind whose entries are templates with arguments. */
export const promptKind = "prompt";

/** One declared argument of a prompt. */
export interface PromptArgument {
  name: string;
  /** Trimmed; undefined for none. */
  description: string | undefined;
  required: boolean;
}

/** An argument as a caller sends it, before validation. */
export interface PromptArgumentInput {
  name: string;
  description?: string | undefined;
  required?: boolean | undefined;
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function validateArgument(input: PromptArgumentInput, field: string): PromptArgument {
  if (!promptArgumentNamePattern.test(input.name))
    throw invalidArgument(
      `${field}.name ${JSON.stringify(input.name.slice(0, entryLimits.promptArgumentNameChars + 8))} is not an argument name: a letter or "_", then up to ${entryLimits.promptArgumentNameChars - 1} letters, digits or "_"`,
    );
  // A lone surrogate becomes U+FFFD, as in a text column: jsonb refuses the escape JSON.stringify would write for it.
  const description = (input.description ?? "").trim().replace(loneSurrogate, "\uFFFD");
  if (description.length > entryLimits.promptArgumentDescriptionChars)
    throw invalidArgument(
      `${field}.description is ${description.length} characters; the limit is ${entryLimits.promptArgumentDescriptionChars}`,
    );
  if (hasNul(description)) throw invalidArgument(`${field}.description must not contain NUL characters`);
  return {
    name: input.name,
    description: description === "" ? undefined : description,
    required: input.required ?? false,
  };
}

/**
 * A declared argument list: at most 20, each a well-formed name (unique,
 * case-sensitive, as placeholders are), a description of at most 500
 * characters and a `required` flag (default false). Throws INVALID_ARGUMENT
 * naming the first problem.
 */
export function validatePromptArguments(inputs: readonly PromptArgumentInput[], field: string): PromptArgument[] {
  if (inputs.length > entryLimits.promptArguments)
    throw invalidArgument(`${field}: at most ${entryLimits.promptArguments} arguments (got ${inputs.length})`);
  const seen = new Set<string>();
  return inputs.map((input, index) => {
    const argument = validateArgument(input, `${field}[${index}]`);
    if (seen.has(argument.name))
      throw invalidArgument(`${field}[${index}].name ${JSON.stringify(argument.name)} is declared twice`);
    seen.add(argument.name);
    return argument;
  });
}

/**
 * Checks that an entry's kind, text and arguments fit together: arguments
 * only on a prompt, and every placeholder of a prompt's text naming a
 * declared argument. `fields` names the caller's fields in errors.
 */
export function checkPromptShape(
  entry: { kind: string; text: string; promptArguments: readonly PromptArgument[] },
  fields: { kind: string; text: string; promptArguments: string },
): void {
  if (entry.kind !== promptKind) {
    if (entry.promptArguments.length > 0)
      throw invalidArgument(
        `${fields.promptArguments}: only an entry of kind "${promptKind}" declares arguments (this one is a ${JSON.stringify(entry.kind)})`,
        `set ${fields.kind} to "${promptKind}", or leave ${fields.promptArguments} out (an empty list removes declared ones)`,
      );
    return;
  }
  const declared = new Set(entry.promptArguments.map((argument) => argument.name));
  const undeclared = placeholderNames(entry.text).filter((name) => !declared.has(name));
  if (undeclared.length > 0)
    throw invalidArgument(
      `${fields.text}: the placeholder${undeclared.length > 1 ? "s" : ""} ${undeclared.map((name) => `{{${name}}}`).join(", ")} name${undeclared.length > 1 ? "" : "s"} no argument declared in ${fields.promptArguments}`,
      `declare ${undeclared.length > 1 ? "them" : "it"} in ${fields.promptArguments} (name, description, required), or remove the placeholder`,
    );
}

/** Whether two argument lists are the same, in order. */
export function isSamePromptArguments(a: readonly PromptArgument[], b: readonly PromptArgument[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (argument, index) =>
        argument.name === b[index]?.name &&
        argument.description === b[index]?.description &&
        argument.required === b[index]?.required,
    )
  );
}

/** The jsonb a row stores for a list (NULL for none, so entries without arguments look as they did before them). */
export function toPromptArgumentsJson(list: readonly PromptArgument[]): string | null {
  return list.length === 0
    ? null
    : JSON.stringify(
        list.map((argument) => ({
          name: argument.name,
          ...(argument.description === undefined ? {} : { description: argument.description }),
          required: argument.required,
        })),
      );
}

/** A stored column's value as a list. */
export function fromPromptArgumentsJson(value: unknown): PromptArgument[] {
  if (!Array.isArray(value)) return [];
  return value.map((item: { name: string; description?: string; required?: boolean }) => ({
    name: item.name,
    description: item.description,
    required: item.required === true,
  }));
}
