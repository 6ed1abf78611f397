/**
 * The write-time screen for instruction-shaped content: a deterministic,
 * pure check of an entry's text, metadata and tags for what a model reading
 * the entry later could take for instructions addressed to it — override
 * phrases, role tags, tool-call look-alikes, forged end-of-data delimiters —
 * and for hidden Unicode that can smuggle such text past a human reader.
 * An entry with any finding is stored quarantined (see trust.ts).
 *
 * This is a layer, not a proof: an adaptive attacker can phrase
 * instructions no fixed rule anticipates. Each rule is listed, with
 * examples, in docs/trust.md, and tested one by one.
 */

import { toConfusableSkeleton } from "@context-hub/common";

/** A rule of the screen: a stable id (stored with the entry's findings) and what it looks for. */
export interface ScreenRule {
  id: ScreenRuleId;
  description: string;
  /** Whether `text` trips the rule. `normalised` is `text` as `normaliseForScreen` returns it. */
  matches(text: string, normalised: string): boolean;
}

export type ScreenRuleId =
  | "ignore-instructions"
  | "role-override"
  | "role-tag"
  | "tool-call"
  | "forged-delimiter"
  | "bidi-control"
  | "zero-width"
  | "tag-characters";

/** Which part of an entry a finding is in. */
export type ScreenField = "text" | "metadata" | "tags" | "title" | "arguments";

/** One rule tripped by one field, written `<field>:<rule>` where it is stored. */
export interface ScreenFinding {
  field: ScreenField;
  rule: ScreenRuleId;
}

// Whitespace in every form, line breaks included (NEL is not in \s), and which of it breaks a line.
const whitespaceRun = /[\s\u0085]+/g;
const lineBreak = /[\n\r\v\f\u0085\u2028\u2029]/;

/**
 * The text the phrase rules read: what a reader sees, spelt in ASCII where
 * it looks like ASCII (`toConfusableSkeleton`: invisible characters removed,
 * compatibility forms, accents and look-alike letters of other scripts
 * folded, so a Cyrillic "А" reads "A" and "ig\u200bnore" reads "ignore"),
 * then every run of whitespace collapsed to one character: "\n" if the run
 * holds a line break of any form (CR, LF, NEL, line or paragraph separator,
 * vertical tab, form feed), otherwise a space.
 *
 * The collapse is also what keeps the rules linear: no run of whitespace in
 * the normalised text is longer than one character, so a rule's `\s?` gap
 * can never make a match attempt scan ahead (see the growth-rate tests).
 */
export function normaliseForScreen(text: string): string {
  return toConfusableSkeleton(text).replace(whitespaceRun, (run) => (lineBreak.test(run) ? "\n" : " "));
}

const anyOf = (patterns: readonly RegExp[]) => (_text: string, normalised: string) =>
  patterns.some((pattern) => pattern.test(normalised));

/*
 * Every pattern reads the normalised text, where a whitespace run is one
 * character: gaps are written `\s?` (or `\s` where one is required), other
 * repeats are bounded, and the few unbounded runs (`-{3,}`) are anchored to a
 * line start, so no match attempt scans further than a constant past its
 * start or its own line's run, and a megabyte of text is screened in
 * linear time.
 */
const ignoreInstructions: readonly RegExp[] = [
  /\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.!?\n]{0,40}?\b(?:previous|prior|above|earlier|preceding|foregoing|your|system|developer|original)\b[^.!?\n]{0,30}?\b(?:instructions?|prompts?|rules|directives?|guidelines|guardrails|messages|context|constraints)\b/i,
  /\bdo\snot\s(?:follow|obey)\s(?:the\s|your\s|any\s)?(?:previous|prior|above|system|original)\b/i,
];

const roleOverride: readonly RegExp[] = [
  /\byou\sare\snow\s(?:a|an|the|in|my|no\slonger|acting|free|unrestricted|jailbroken|dan|going\sto|operating|called|named)\b/i,
  /\bfrom\snow\son,?\s(?:you|your|act|respond|answer|always|never)\b/i,
  /\b(?:new|updated|revised|real|actual)\s(?:system\s)?instructions?\s?:/i,
  /\b(?:act|behave|respond)\sas\s(?:if\syou\s(?:are|were)|an?\s(?:unrestricted|unfiltered|jailbroken))\b/i,
  /\bpretend\s(?:to\sbe|you\sare|that\syou\sare)\b/i,
  /\benter\s(?:developer|god|dan|debug|admin)\smode\b/i,
];

const roleTag: readonly RegExp[] = [
  /<\|\s?(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\s?\|>/i,
  /\[\s?\/?\s?INST\s?\]/,
  /<<\s?\/?\s?SYS\s?>>/,
  /<\s?\/?\s?(?:system|assistant|developer|user|human|im_start)(?:\s[^<>]{0,80})?>/i,
  /(?:^|\n)[^\S\n]?#{1,6}[^\S\n]?(?:system|developer)\s(?:prompt|message|instructions?)\b/i,
  /(?:^|\n)[^\S\n]?(?:system|developer)[^\S\n]?(?:prompt|message)?[^\S\n]?:\s?you\b/i,
];

const toolCall: readonly RegExp[] = [
  /<\s?\/?\s?(?:tool_call|tool_calls|function_call|function_calls|tool_use|tool_result|function_results|invoke|antml:invoke|antml:function_calls)\b/i,
  /<\s?function\s?=\s?[\w.-]{1,120}\s?>/i,
  /\{\s?"(?:name|tool|tool_name|function)"\s?:\s?"[^"\n]{1,120}"\s?,\s?"(?:arguments|parameters|input|args)"\s?:/i,
  /\{\s?"(?:arguments|parameters|input|args)"\s?:\s?[{[][^\n]{0,2000}?"(?:name|tool|function)"\s?:\s?"[^"\n]{1,120}"\s?}/i,
  /"tool_calls"\s?:\s?\[/i,
  /"type"\s?:\s?"(?:function|tool_use)"\s?,\s?"(?:function|name)"\s?:/i,
];

// Separator variants a forger can put between the words of a delimiter: "_", a hyphen or any dash, a dot, a space, or nothing.
const sep = String.raw`(?:[-_.\p{Pd}\u00B7\u2022\u2027\u30FB]|\s){0,3}`;

const forgedDelimiter: readonly RegExp[] = [
  new RegExp(
    String.raw`<\s?\/\s?(?:context${sep}entr(?:y|ies)|context|untrusted${sep}data|untrusted|documents?|data|memory|memories|search${sep}results?|tool${sep}(?:result|output|response)|retrieved${sep}(?:context|documents?))\s?>`,
    "iu",
  ),
  new RegExp(
    String.raw`\[\s?(?:END|BEGIN|START)${sep}(?:OF${sep})?(?:THE${sep})?(?:DATA|CONTEXT|DOCUMENT|INPUT|UNTRUSTED${sep}DATA|USER${sep}DATA|SYSTEM${sep}PROMPT|MEMORY|RETRIEVED${sep}CONTENT)\s?\]`,
    "iu",
  ),
  // The gateway's own fence markers, <<<UNTRUSTED_DATA and <<<END_UNTRUSTED_DATA, in any spacing, separators and bracket count.
  new RegExp(String.raw`<(?:\s?<){0,2}${sep}\/?${sep}(?:END${sep})?UN${sep}TRUSTED${sep}DATA`, "iu"),
  new RegExp(
    String.raw`(?:^|\n)[^\S\n]?(?:-{3,}|={3,}|\*{3,})[^\S\n]?END${sep}OF${sep}(?:THE${sep})?(?:DATA|CONTEXT|DOCUMENT|INPUT)[^\S\n]?(?:-{3,}|={3,}|\*{3,})`,
    "iu",
  ),
];

/** Bidi embeddings, overrides and isolates: they reorder what a reader sees (Trojan Source). Plain LRM/RLM marks are left alone. */
const bidiControl = /[\u202A-\u202E\u2066-\u2069]/u;

/**
 * Zero-width characters that carry nothing visible: any zero-width space,
 * word joiner, invisible operator or mid-text BOM, or a run of two or more
 * zero-width characters. A single ZWJ or ZWNJ between visible characters is
 * ordinary text (emoji sequences, Persian and Indic scripts) and passes.
 */
function hasZeroWidth(text: string): boolean {
  if (/[\u200B\u2060-\u2064\u180E]/u.test(text)) return true;
  if (text.indexOf("\uFEFF", 1) !== -1) return true;
  return /[\u200B-\u200D\u2060\uFEFF]{2,}/u.test(text);
}

/**
 * Unicode tag characters (U+E0000–U+E007F) spell ASCII invisibly. The one
 * legitimate use, an emoji flag tag sequence (U+1F3F4 followed by tag
 * letters and CANCEL TAG), is removed before the check.
 */
function hasTagCharacters(text: string): boolean {
  if (!/[\u{E0000}-\u{E007F}]/u.test(text)) return false;
  const withoutFlags = text.replace(/\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,12}\u{E007F}/gu, "");
  return /[\u{E0000}-\u{E007F}]/u.test(withoutFlags);
}

/** Every rule, in the order docs/trust.md lists them. */
export const screenRules: readonly ScreenRule[] = [
  {
    id: "ignore-instructions",
    description: "asks the reader to ignore, forget or override earlier instructions",
    matches: anyOf(ignoreInstructions),
  },
  {
    id: "role-override",
    description: "tells the reader who it now is or how it must behave from now on",
    matches: anyOf(roleOverride),
  },
  { id: "role-tag", description: "chat-template role markers and system/assistant tags", matches: anyOf(roleTag) },
  { id: "tool-call", description: "text shaped like a tool or function call", matches: anyOf(toolCall) },
  {
    id: "forged-delimiter",
    description: "a delimiter that pretends the data around it has ended",
    matches: anyOf(forgedDelimiter),
  },
  {
    id: "bidi-control",
    description: "bidirectional embedding, override or isolate characters",
    matches: (text) => bidiControl.test(text),
  },
  { id: "zero-width", description: "invisible zero-width characters", matches: (text) => hasZeroWidth(text) },
  {
    id: "tag-characters",
    description: "Unicode tag characters outside an emoji flag",
    matches: (text) => hasTagCharacters(text),
  },
];

function screenString(text: string, field: ScreenField, found: Map<string, ScreenFinding>): void {
  if (text.length === 0) return;
  const normalised = normaliseForScreen(text);
  for (const rule of screenRules) {
    const key = `${field}:${rule.id}`;
    if (!found.has(key) && rule.matches(text, normalised)) found.set(key, { field, rule: rule.id });
  }
}

/** Every string in a JSON value: object keys and string values, depth first. */
function stringsOf(value: unknown, out: string[]): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      out.push(key);
      stringsOf(inner, out);
    }
  }
  return out;
}

/** What the screen reads; absent parts are not screened. */
export interface ScreenInput {
  text?: string | undefined;
  metadata?: unknown;
  tags?: readonly string[] | undefined;
  /** The entry's title: shown in every result, so screened like the text. */
  title?: string | undefined;
  /** A prompt's declared arguments: their descriptions reach a model through MCP prompts/list, so they are screened too. */
  promptArguments?: readonly ScreenedArgument[] | undefined;
}

/** What the screen reads of a declared prompt argument. */
export interface ScreenedArgument {
  name: string;
  description?: string | undefined;
}

/**
 * Screens the given parts of an entry and returns each (field, rule) pair
 * found, once, in field then rule order. Pure and deterministic: the same
 * input always gives the same findings. Metadata is screened as its keys and
 * string values, each on its own (so nothing spans two values), and tags
 * likewise.
 */
export function screenEntry(input: ScreenInput): ScreenFinding[] {
  const found = new Map<string, ScreenFinding>();
  if (input.text !== undefined) screenString(input.text, "text", found);
  if (input.metadata !== undefined)
    for (const value of stringsOf(input.metadata, [])) screenString(value, "metadata", found);
  if (input.tags !== undefined) for (const tag of input.tags) screenString(tag, "tags", found);
  if (input.title !== undefined) screenString(input.title, "title", found);
  if (input.promptArguments !== undefined)
    for (const argument of input.promptArguments) screenString(argument.description ?? "", "arguments", found);
  return [...found.values()];
}

/** A finding as stored and shown: `<field>:<rule>`. */
export function toReason(finding: ScreenFinding): string {
  return `${finding.field}:${finding.rule}`;
}
