/**
 * Growth-rate checks for code that reads caller text: time a function on
 * inputs of 10k, 100k and 1M characters and fail when the time grows faster
 * than linearly. Ratios of the fastest of a few runs are compared, never
 * absolute times. A run's time is the smaller of its wall-clock time and
 * the process's CPU time: on a busy machine a long run is preempted many
 * times and a short one not at all, which inflates wall-clock ratios by the
 * load, while the process's CPU time also counts the engine's helper
 * threads, which inflates short runs; each bounds the calling thread's own
 * time from above. Garbage is collected before each run, so one run does
 * not pay for another's. Set GROWTH_RATE_LOG=1 to print every measurement.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** A family of inputs: `generate(n)` is a text of exactly `n` UTF-16 code units. */
export interface TextGenerator {
  name: string;
  generate(length: number): string;
}

export interface GrowthOptions {
  /** Input lengths, smallest first; each step should multiply the length by 10. Default 10k, 100k, 1M. */
  sizes?: readonly number[];
  /** Runs per size; the fastest counts. Default 3. */
  repetitions?: number;
  /** Times below this many milliseconds count as this much, so sub-millisecond noise (and the clock's resolution) cannot fail a step. Default 2. */
  floorMs?: number;
  /**
   * Largest accepted time ratio between consecutive sizes. Default 60: quadratic
   * code gives ~100; linear code gives ~10 on small inputs, but up to ~45 from
   * 100k to 1M characters on a loaded two-core machine, where a 1M-character
   * input and its copies no longer fit in the processor's caches (and other
   * processes' work evicts them).
   */
  maxRatio?: number;
  /**
   * A call shorter than this many milliseconds is repeated until the batch
   * reaches it, and the mean counts. Default `floorMs`: a shorter time only
   * counts as the floor anyway.
   */
  batchMs?: number;
}

export interface GrowthMeasurement {
  size: number;
  /** Fastest run, in milliseconds (the smaller of wall-clock and CPU time). */
  ms: number;
}

export const defaultGrowthSizes: readonly number[] = Object.freeze([10_000, 100_000, 1_000_000]);

/**
 * `unit` repeated to exactly `length` code units. A final partial unit is cut
 * so that it never ends in half a surrogate pair (the text is then one unit
 * shorter).
 */
export function repeatTo(unit: string, length: number): string {
  const text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

/** `prefix`, then `unit` repeated, then `suffix`, together `length` code units long. */
export function framedRun(prefix: string, unit: string, suffix: string, length: number): string {
  return `${prefix}${repeatTo(unit, Math.max(0, length - prefix.length - suffix.length))}${suffix}`;
}

const run = (name: string, unit: string): TextGenerator => ({ name, generate: (length) => repeatTo(unit, length) });

/**
 * Inputs that make naive text code slow: long runs of each character that
 * Markdown, sentence splitting, tokenizing or whitespace handling treats
 * specially; markup that opens and never closes, or nests deeply;
 * alternating separators; and one enormous word.
 */
export const pathologicalTexts: readonly TextGenerator[] = Object.freeze([
  ...[
    ".",
    "!",
    "?",
    "…",
    "*",
    "_",
    "#",
    "`",
    "~",
    "[",
    "]",
    "(",
    ")",
    "{",
    "<",
    ">",
    "|",
    "-",
    "=",
    "+",
    ":",
    ";",
    ",",
    "/",
    "\\",
    "&",
    "@",
    '"',
    "'",
    "”",
    "’",
  ].map((char) => run(`a run of ${JSON.stringify(char)}`, char)),
  run("a run of newlines", "\n"),
  run("a run of CRLF", "\r\n"),
  run("a run of spaces", " "),
  run("a run of tabs", "\t"),
  run("a run of no-break spaces", "\u00a0"),
  run("a run of zero-width spaces", "\u200b"),
  run("a run of line separators", "\u2028"),
  run("a run of digits", "0123456789"),
  run("a run of emoji (astral characters)", "🙂"),
  run("a run of combining marks", "e\u0301"),
  run("one word without a break", "a"),
  run("one camelCase identifier", "aB"),
  run("one identifier with inner separators", "a.b_c-d'"),
  run("base64", "QUJDREVGR0g+/w=="),
  run("minified JSON", '{"id":123,"tags":["a","b"],"nested":{"ok":true,"v":[1,2,3]}},'),
  run("a log without periods", "2026-01-31T12:00:00Z INFO request handled id=4f2a status=200 took=12ms\n"),
  run("spaces then a letter", `${" ".repeat(999)}x`),
  run("tabs then a newline", "\t\t\t\t\t\t\t\n"),
  run("blank lines with spaces", "\n   \n"),
  run("repeated **x", "**x "),
  run("repeated __x", "__x "),
  run("repeated ~~x", "~~x "),
  run("repeated *x", "*x "),
  run("repeated _x", "_x "),
  run("repeated `x", "`x "),
  run("unclosed links [x](", "[x]("),
  run("unclosed images ![x](", "![x]("),
  run("unclosed reference links [x][", "[x]["),
  run("unclosed images ![", "!["),
  run("unclosed comments <!--", "<!--"),
  run("unclosed tags <a", "<a "),
  run("unclosed autolinks <https://", "<https://x"),
  run("unclosed reasoning tags <think", "<think "),
  run("opened reasoning blocks <think>", "<think>x"),
  run("unclosed code fences", "```\nx\n"),
  run("deep headings", "###### x\n"),
  run("same-named headings", "# x\n"),
  run("setext headings", "x\n===\n"),
  run("deep lists", "- - - - - - x\n"),
  run("deep quotes", "> > > > > > x\n"),
  run("table rows", "| --- | --- |\n"),
  run("alternating .\\n", ".\n"),
  run("alternating '. '", ". "),
  run("a.a.a.", "a."),
  run("initials A. B.", "A. "),
  run("abbreviations e.g.", "e.g. "),
  run("sentences", "This is a sentence. "),
  run("ellipses with quotes", '…" '),
  run("blank-line paragraphs", "word\n\n"),
  run("repeated preambles", "Summary: "),
  { name: "a heading with a run of spaces before a #", generate: (length) => framedRun("# a", " ", "#x", length) },
  { name: "a heading with a run of tabs", generate: (length) => framedRun("## ", "\t", "x", length) },
  { name: "a run of dots before a letter", generate: (length) => framedRun("x", ".", "x", length) },
  { name: "one sentence, then spaces", generate: (length) => framedRun("End.", " ", "", length) },
  // A run that ends the text lets a pattern such as `X+$` match at its first try; one followed by a letter makes it
  // fail at every character of the run.
  ...(
    [
      ["tabs", "\t"],
      ["spaces", " "],
      ["newlines", "\n"],
      ["quotation marks", '"'],
      ['"#"', "#"],
      ['"-"', "-"],
      ['"="', "="],
      ['"*"', "*"],
      ['">"', ">"],
      ['"|"', "|"],
      ['"/"', "/"],
    ] as const
  ).map(([name, unit]) => ({
    name: `a run of ${name} between two letters`,
    generate: (length: number) => framedRun("x", unit, "x", length),
  })),
  {
    name: "a table's delimiter row with a run of tabs inside",
    generate: (length) => framedRun("| a | b |\n-|-:", "\t", "\t-|-", length),
  },
]);

const framed = (name: string, prefix: string, unit: string): TextGenerator => ({
  name,
  generate: (length) => framedRun(prefix, unit, "", length),
});

/**
 * Inputs aimed at code that looks for markers, tags and phrases (the
 * write-time instruction screen, the untrusted-data fence): line breaks and
 * spaces of other scripts, invisible characters, look-alike letters and
 * brackets, a marker-like opening followed by a long run (what a
 * backtracking gap such as `\s*\/?\s*` scans again and again), unfinished
 * markers and tags, and phrases that start a rule's match and never end it.
 */
export const markerTexts: readonly TextGenerator[] = Object.freeze([
  run("a run of carriage returns", "\r"),
  run("a run of ideographic spaces", "\u3000"),
  run("a run of soft hyphens", "\u00ad"),
  run("a run of variation selectors", "\ufe0f"),
  run("a run of Cyrillic А", "\u0410"),
  run("a run of look-alike brackets", "\u2039"),
  run("a run of full-width brackets", "\uff1c"),
  framed("< then newlines", "<", "\n"),
  framed("<<< then spaces", "<<<", " "),
  framed("<<< then newlines", "<<<", "\n"),
  framed("<<< then zero-width spaces", "<<<", "\u200b"),
  framed("<<< then separators", "<<<", "_-. "),
  framed("<<</ then spaces and an END", "<<</ END", " "),
  framed("a heading mark then spaces", "\n#", " "),
  framed("a line of dashes", "\n", "-"),
  run("alternating < and newline", "<\n"),
  run("alternating < and space", "< "),
  run("alternating separators", "-_. \n"),
  run("unfinished markers", "<<<END_UNTRUSTED_DAT"),
  run("unfinished look-alike markers", "\u2039\u2039\u2039\u0415ND\u200b_UNTRUSTED_D"),
  run("unclosed tags <system", "<system "),
  run("nested tags", "<a><b "),
  run("unclosed role tags", "<|im_start "),
  run("tool-call openings", '{"arguments": ['),
  run("tool-call names", '{"name": "x", '),
  run("end-of-data openings", "[END OF "),
  run("dash delimiters", "\n--- END OF "),
  run("override phrases", "ignore previous "),
  run("role phrases", "you are now "),
  run("accent stacks", "a\u0301\u0302\u0303"),
  run("confusables and invisibles", "\u0410\u200b\u0415\u00ad\u03a4\ufe0f"),
]);

/** A full garbage collection, when the engine lets a test ask for one. */
const collectGarbage = ((): (() => void) => {
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as unknown;
    if (typeof gc === "function") return gc as () => void;
  } catch {
    // Without it the check only gets noisier.
  }
  return () => undefined;
})();

/**
 * Milliseconds one call of `fn(input)` takes on the calling thread, bounded
 * from above twice: by the wall clock (which also counts time the thread
 * waited for a core) and by the process's CPU time (which also counts the
 * engine's helper threads, such as the sweeping a collection leaves behind).
 * The smaller of the two is the closer bound. A call shorter than `batchMs`
 * is repeated until the batch reaches it, and the batch's time is divided by
 * the calls, so a short function's first, unoptimised calls weigh little.
 */
function callTime(fn: (input: string) => unknown, input: string, batchMs: number): number {
  collectGarbage();
  const cpuStarted = process.cpuUsage();
  const wallStarted = performance.now();
  let calls = 0;
  let elapsed = 0;
  do {
    fn(input);
    calls++;
    const cpu = process.cpuUsage(cpuStarted);
    elapsed = Math.min(performance.now() - wallStarted, (cpu.user + cpu.system) / 1000);
  } while (elapsed < batchMs);
  return elapsed / calls;
}

/** The fastest of up to `repetitions` runs; stops early once the answer cannot change the verdict. */
function fastestRun(
  fn: (input: string) => unknown,
  input: string,
  repetitions: number,
  stop: { below: number; above: number },
  batchMs: number,
): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < repetitions; attempt++) {
    fastest = Math.min(fastest, callTime(fn, input, batchMs));
    if (fastest <= stop.below || fastest > stop.above) break;
  }
  return fastest;
}

/**
 * Times `fn(generate(n))` at each size and throws an AssertionError-like
 * Error when the fastest run at one size takes more than `maxRatio` times
 * the fastest run at the previous size (both floored at `floorMs`). A step
 * over two thirds of that ratio but under ten times it is timed again, both sizes in
 * turns, before it is judged: other work on the machine, or its drifting
 * speed, can make one burst of runs slower than another, but not hide a
 * quadratic function's ~100× when both are timed side by side. Sizes are
 * measured smallest first and a failing step stops the measurement, so a
 * quadratic function fails before it is handed the largest input.
 *
 * @returns the measurements, smallest size first.
 */
export function assertLinearGrowth(
  label: string,
  fn: (input: string) => unknown,
  generate: (length: number) => string,
  options: GrowthOptions = {},
): GrowthMeasurement[] {
  const sizes = options.sizes ?? defaultGrowthSizes;
  const repetitions = options.repetitions ?? 3;
  const floorMs = options.floorMs ?? 2;
  const maxRatio = options.maxRatio ?? 60;
  const batchMs = options.batchMs ?? floorMs;
  const warmUpMs = 4 * batchMs;
  const measurements: GrowthMeasurement[] = [];
  const first = generate(sizes[0] ?? 0);
  // Warm-up: the engine optimises a function after some calls (or a long loop in one), and the smallest size would
  // otherwise be timed partly in unoptimised code, which makes its time larger and every ratio after it smaller.
  callTime(fn, first, warmUpMs);
  let previousInput = first;
  for (const [index, size] of sizes.entries()) {
    const input = index === 0 ? first : generate(size);
    if (input.length > size || input.length < size - 1)
      throw new Error(`${label}: the generator made ${input.length} characters for size ${size}`);
    const previous = measurements[measurements.length - 1];
    const allowed = previous === undefined ? 0 : maxRatio * Math.max(previous.ms, floorMs);
    const isLargest = index === sizes.length - 1;
    // The largest size only has to pass; smaller ones are the next step's baseline, so they get every run.
    // A run ten times over the allowance is no accident of load: stop there.
    const stop = {
      below: isLargest ? (2 / 3) * allowed : 0,
      above: previous === undefined ? Number.POSITIVE_INFINITY : 10 * allowed,
    };
    let ms = fastestRun(fn, input, repetitions, stop, batchMs);
    if (previous !== undefined && ms > (2 / 3) * allowed && ms <= stop.above) {
      // Near or over the allowance, but not by an order of magnitude. This machine's speed drifts over seconds, so
      // the two sizes may have been timed at different speeds: a linear step can look too steep, and a quadratic
      // one (~100×) shallow enough to pass. Both sizes are timed again, in turns so that each round sees the same
      // speed, and the step is judged on the fastest runs of all.
      for (let round = 0; round < repetitions; round++) {
        previous.ms = Math.min(previous.ms, callTime(fn, previousInput, batchMs));
        ms = Math.min(ms, callTime(fn, input, batchMs));
      }
    }
    const limit = previous === undefined ? 0 : maxRatio * Math.max(previous.ms, floorMs);
    measurements.push({ size, ms });
    previousInput = input;
    if (process.env.GROWTH_RATE_LOG === "1")
      process.stderr.write(`${label}: ${size} characters, ${ms.toFixed(2)} ms\n`);
    if (previous !== undefined && ms > limit) {
      const figures = measurements
        .map((measurement) => `${measurement.size}: ${measurement.ms.toFixed(2)} ms`)
        .join(", ");
      throw new Error(
        `${label} grows faster than linearly: ${figures} (a step may take at most ${maxRatio}× the previous one, floored at ${floorMs} ms)`,
      );
    }
  }
  return measurements;
}

/**
 * `assertLinearGrowth` for every generator, reporting every one that fails
 * (not only the first) in one Error.
 */
export function assertLinearGrowthForAll(
  label: string,
  fn: (input: string) => unknown,
  generators: readonly TextGenerator[],
  options: GrowthOptions = {},
): void {
  const failures: string[] = [];
  for (const generator of generators) {
    try {
      assertLinearGrowth(`${label} on ${generator.name}`, fn, generator.generate, options);
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  if (failures.length > 0)
    throw new Error(`${failures.length} of ${generators.length} inputs:\n${failures.join("\n")}`);
}
