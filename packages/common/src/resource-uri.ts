/**
 * The URIs a principal may publish an entry under (the store's
 * PublicationsService, MCP `resources/read`), shared by the store, which
 * validates and resolves them, and the gateway, which checks a caller's
 * arguments early and lists templates.
 *
 * A published URI is an absolute URI of ASCII characters: a scheme (a letter,
 * then letters, digits, `+`, `.` or `-`), a colon and at least one more
 * character, at most 512 in all, with no spaces, controls or any of
 * `"<>\^`|`; anything else is percent-encoded. The scheme `context-hub` is
 * the server's own (its entries' URIs) and cannot be published.
 *
 * A template holds up to 8 expressions `{name}` (RFC 6570 level 1: simple
 * string expansion; `name` a letter or `_`, then up to 63 letters, digits or
 * `_`, each name once), after the scheme and never two without a literal
 * character between them. A URI matches a template when it spells the
 * template's literal text with each expression replaced by a non-empty value
 * free of `/`, `?` and `#`; each value runs to the first place the next
 * literal text follows it (the last one to where the template's final
 * literal text ends the URI), so matching is one pass. Values are
 * percent-decoded.
 */
import { invalidArgument } from "./errors.js";

/** The longest URI (or template) that can be published, in characters. */
export const resourceUriMaxChars = 512;
/** The most expressions one template may hold. */
export const resourceUriMaxVariables = 8;

/** A published URI, split into its literal text and its expressions (a plain URI is one literal). */
export interface ParsedResourceUri {
  uri: string;
  /** Literal pieces: always one more than `variables`; the first and last may be empty. */
  literals: string[];
  variables: string[];
  /** The characters of the literal pieces: what makes one matching template more specific than another. */
  literalChars: number;
}

const schemePattern = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const variableNamePattern = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Printable ASCII except space and `"<>\^`|` (and the braces, which only open and close expressions). */
const literalCharPattern = /^[!#-;=?-[\]_a-z~]$/;
const ownScheme = "context-hub:";

/**
 * Parses a URI or URI template a caller wants to publish, or throws an
 * INVALID_ARGUMENT naming `field` and what is wrong.
 */
export function parseResourceUri(uri: string, field = "uri"): ParsedResourceUri {
  if (uri.length === 0) throw invalidArgument(`${field} must not be empty`);
  if (uri.length > resourceUriMaxChars)
    throw invalidArgument(`${field} is ${uri.length} characters; the limit is ${resourceUriMaxChars}`);
  const scheme = schemePattern.exec(uri);
  if (scheme === null)
    throw invalidArgument(
      `${field} must be an absolute URI: a scheme (a letter, then letters, digits, "+", "." or "-"), a colon, then the rest, e.g. docs://handbook/on-call`,
    );
  if (scheme[0].toLowerCase() === ownScheme)
    throw invalidArgument(
      `${field} uses the scheme context-hub:, which names entries themselves (context-hub://entries/{id}); publish under a scheme of your own`,
    );
  if (uri.length === scheme[0].length) throw invalidArgument(`${field} has nothing after its scheme`);

  const literals: string[] = [];
  const variables: string[] = [];
  let literal = scheme[0];
  let index = scheme[0].length;
  while (index < uri.length) {
    const char = uri[index] as string;
    if (char === "{") {
      const close = uri.indexOf("}", index + 1);
      const name = close < 0 ? "" : uri.slice(index + 1, close);
      if (!variableNamePattern.test(name))
        throw invalidArgument(
          `${field} has "{" at character ${index + 1} that does not open an expression {name} (a letter or "_", then up to 63 letters, digits or "_"; only simple expansion, RFC 6570 level 1, is supported)`,
        );
      if (literal === "" && variables.length > 0)
        throw invalidArgument(
          `${field} has the expressions {${variables.at(-1) as string}} and {${name}} side by side; put a literal character between them`,
        );
      if (variables.includes(name)) throw invalidArgument(`${field} uses the expression {${name}} twice`);
      if (variables.length === resourceUriMaxVariables)
        throw invalidArgument(`${field} has more than ${resourceUriMaxVariables} expressions`);
      literals.push(literal);
      variables.push(name);
      literal = "";
      index = close + 1;
      continue;
    }
    if (char === "}") throw invalidArgument(`${field} has "}" at character ${index + 1} that closes no expression`);
    if (!literalCharPattern.test(char))
      throw invalidArgument(
        `${field} has ${describeChar(char)} at character ${index + 1}; a published URI is printable ASCII without spaces or any of "<>\\^\`|, so percent-encode it`,
      );
    literal += char;
    index++;
  }
  literals.push(literal);
  return { uri, literals, variables, literalChars: literals.reduce((sum, piece) => sum + piece.length, 0) };
}

function describeChar(char: string): string {
  const code = char.codePointAt(0) as number;
  if (char === " ") return "a space";
  return code < 0x20 || code === 0x7f
    ? `the control character U+${code.toString(16).toUpperCase().padStart(4, "0")}`
    : `"${char}"`;
}

/** Whether a published URI is a template. */
export const isResourceUriTemplate = (parsed: ParsedResourceUri): boolean => parsed.variables.length > 0;

/**
 * The values a URI gives a template's expressions, percent-decoded, or
 * undefined when it does not match (or a value is not valid
 * percent-encoding). One left-to-right pass: each value ends where the next
 * literal text first follows it, the last where the final literal text ends
 * the URI.
 */
export function matchResourceUriTemplate(
  template: ParsedResourceUri,
  uri: string,
): ReadonlyMap<string, string> | undefined {
  const { literals, variables } = template;
  const first = literals[0] as string;
  if (!uri.startsWith(first)) return undefined;
  let position = first.length;
  const values = new Map<string, string>();
  for (let index = 0; index < variables.length; index++) {
    const next = literals[index + 1] as string;
    const last = index === variables.length - 1;
    let end: number;
    if (last && next === "") end = uri.length;
    else if (last) {
      // The final literal ends the URI, so the value runs up to where it starts there.
      end = uri.length - next.length;
      if (end <= position || !uri.endsWith(next)) return undefined;
    } else {
      end = uri.indexOf(next, position + 1);
      if (end < 0) return undefined;
    }
    const raw = uri.slice(position, end);
    if (raw.length === 0 || /[/?#]/.test(raw)) return undefined;
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    values.set(variables[index] as string, value);
    position = end + next.length;
  }
  if (variables.length === 0) return uri === first ? values : undefined;
  return position === uri.length ? values : undefined;
}
