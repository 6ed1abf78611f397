/**
 * How a caller's grep pattern becomes a regular expression. Matching itself
 * is in grep-text.ts, which the store runs in a worker thread under a time
 * budget (see grep-runner.ts), because a regular expression can take
 * exponential time.
 */
import { invalidArgument } from "@context-hub/common";

export {
  grepText,
  grepTextLimits,
  type GrepLineMatch,
  type GrepOutputMode,
  type GrepTextOptions,
  type GrepTextResult,
} from "./grep-text.js";

export const grepLimits = {
  patternLength: 1_000,
  contextLines: 5,
} as const;

/** A caller's pattern compiled, with its source and flags (to recompile in a worker). */
export interface CompiledPattern {
  source: string;
  flags: string;
}

const regexSyntax = /[.*+?^${}()|[\]\\]/g;

/**
 * Compiles a grep pattern: a literal is escaped (so it matches itself); a
 * regular expression uses JavaScript syntax, in Unicode mode when the
 * pattern allows it. `^` and `$` anchor lines. An invalid or empty pattern is
 * INVALID_ARGUMENT.
 */
export function compilePattern(
  pattern: string,
  options: { regex: boolean; caseInsensitive: boolean },
): CompiledPattern {
  if (pattern.length === 0) throw invalidArgument("pattern must not be empty");
  if (pattern.length > grepLimits.patternLength)
    throw invalidArgument(`pattern is ${pattern.length} characters; the limit is ${grepLimits.patternLength}`);
  if (pattern.includes("\u0000")) throw invalidArgument("pattern must not contain NUL characters");
  const base = `gm${options.caseInsensitive ? "i" : ""}`;
  if (!options.regex) return { source: pattern.replace(regexSyntax, "\\$&"), flags: `${base}u` };
  let failure: unknown;
  for (const flags of [`${base}u`, base]) {
    try {
      new RegExp(pattern, flags);
      return { source: pattern, flags };
    } catch (error) {
      // Not valid in Unicode mode: the legacy syntax gets a chance before the pattern is refused.
      failure = error;
    }
  }
  throw invalidArgument(
    `pattern is not a valid regular expression: ${(failure as Error).message.replace(/^Invalid regular expression: /, "")}`,
  );
}
