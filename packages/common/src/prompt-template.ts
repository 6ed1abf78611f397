/**
 * The template syntax of prompt entries, shared by the store (which refuses
 * a placeholder naming no declared argument when the entry is written) and
 * the gateway (which renders the template for MCP `prompts/get`), so what
 * one accepts the other renders.
 *
 * A placeholder is `{{name}}`, spaces allowed inside the braces, where
 * `name` is an argument name. Braces around anything else (`{{ x.y }}`,
 * `{{}}`, a single `{x}`) are ordinary text and render as written.
 */

/** An argument name: a letter or `_`, then up to 63 letters, digits or `_`. */
export const promptArgumentNamePattern = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * A prompt's name, which MCP `prompts/get` takes: a letter or `_`, then up to
 * 63 letters, digits, `_`, `.` or `-`. The store also refuses a name of an
 * entry id's form, since `prompts/get` takes entry ids too.
 */
export const promptNamePattern = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** A placeholder; group 1 is the argument's name. Global: use with matchAll or replace only. */
const placeholderPattern = /\{\{[ \t]*([A-Za-z_][A-Za-z0-9_]{0,63})[ \t]*\}\}/g;

/** The argument names a template's placeholders use, each once, in order of first use. */
export function placeholderNames(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(placeholderPattern)) names.add(match[1] as string);
  return [...names];
}

/**
 * The template with every placeholder replaced by its argument's value (an
 * argument without a value renders as the empty string). One pass over the
 * template: a value that itself contains `{{name}}` is inserted as written,
 * never expanded again, so the caller's values cannot reach other arguments.
 */
export function renderPromptTemplate(template: string, values: ReadonlyMap<string, string>): string {
  return template.replace(placeholderPattern, (_placeholder, name: string) => values.get(name) ?? "");
}

/**
 * A published template's text (packages/common/src/resource-uri.ts) with
 * every placeholder that names one of the URI's values replaced by it; a
 * placeholder naming anything else stays as written, since the text is an
 * ordinary entry, not a prompt whose placeholders were declared. One pass,
 * as for prompts.
 */
export function renderTextWithValues(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(placeholderPattern, (placeholder, name: string) => values.get(name) ?? placeholder);
}
