import assert from "node:assert/strict";

/** One pathological input family: a name and a generator of an input of about `size` characters. */
export interface GrowthCase {
  name: string;
  input(size: number): string;
}

/** What a growth check measured: the best time at each size, in ms, and the ratio of each size's time to the one before. */
export interface GrowthReport {
  name: string;
  sizes: number[];
  ms: number[];
  ratios: number[];
}

/** CPU time this process has used, in ms. */
function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * The best (smallest) CPU time of `repetitions` runs of `work` on `input`, in
 * ms. CPU time rather than wall time: on a machine shared with other busy
 * processes a long run is preempted many times and a short one rarely, so
 * wall-time ratios grow with the machine's load, while CPU time measures the
 * work done. The best of several runs is the least disturbed.
 */
function bestTime(work: (input: string) => unknown, input: string, repetitions: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < repetitions; run += 1) {
    const started = cpuMs();
    work(input);
    best = Math.min(best, cpuMs() - started);
  }
  return best;
}

/**
 * Asserts that `work` takes time at most about linear in its input's length
 * for one input family: it takes the best CPU time of several runs at each size (10k,
 * 100k and 1M characters by default) and requires each tenfold input to take
 * at most `maxRatio` (30) times as long — a linear function takes about 10×,
 * a quadratic one 100×. A time below `floorMs` counts as `floorMs`, so timer
 * noise on a very fast small input cannot make the ratio. It stops at the
 * first size that fails, so a quadratic regression fails in seconds instead
 * of running for minutes at the largest size.
 */
export function assertLinearGrowth(
  work: (input: string) => unknown,
  family: GrowthCase,
  options: { sizes?: readonly number[]; maxRatio?: number; repetitions?: number; floorMs?: number } = {},
): GrowthReport {
  const sizes = [...(options.sizes ?? [10_000, 100_000, 1_000_000])];
  const maxRatio = options.maxRatio ?? 30;
  const floorMs = options.floorMs ?? 1;
  // Warm the function up, so the first size is not timed while it is still being compiled.
  bestTime(work, family.input(sizes[0]!), 2);
  const report: GrowthReport = { name: family.name, sizes: [], ms: [], ratios: [] };
  for (const size of sizes) {
    const input = family.input(size);
    // Fewer runs at the largest size: the best of three is enough where a run takes long enough to measure well.
    const ms = bestTime(work, input, size >= 1_000_000 ? Math.min(3, options.repetitions ?? 5) : (options.repetitions ?? 5));
    const previous = report.ms.at(-1);
    report.sizes.push(size);
    report.ms.push(ms);
    if (previous !== undefined) {
      const ratio = Math.max(ms, floorMs) / Math.max(previous, floorMs);
      const sizeRatio = size / report.sizes.at(-2)!;
      report.ratios.push(ratio);
      assert.ok(
        ratio <= maxRatio * (sizeRatio / 10),
        `${family.name}: ${size.toLocaleString("en")} characters took ${ms.toFixed(1)} ms, ${ratio.toFixed(1)}× the time of ${report.sizes.at(-2)!.toLocaleString("en")} (at most ${maxRatio * (sizeRatio / 10)}× allowed for ${sizeRatio}× the input)`,
      );
    }
  }
  return report;
}

/** `unit` repeated to `size` characters (the last repetition cut). */
export function repeatTo(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

const run = (name: string, unit: string, prefix = ""): GrowthCase => ({ name, input: (size) => prefix + repeatTo(unit, size - prefix.length) });

/**
 * Inputs that make naive text processing super-linear: long runs of each
 * kind of special character (whitespace and line breaks, brackets, markup
 * and JSON punctuation, separators, invisible characters, combining marks,
 * look-alike letters), a marker-like opening followed by a long run (what
 * a backtracking gap such as `\s*\/?\s*` scans again and again), alternations
 * of separators, and nested or unclosed markup.
 */
export const pathologicalTexts: readonly GrowthCase[] = [
  ...(
    [
      ["newlines", "\n"],
      ["spaces", " "],
      ["tabs", "\t"],
      ["carriage returns", "\r"],
      ["CRLF", "\r\n"],
      ["line separators", "\u2028"],
      ["no-break spaces", "\u00A0"],
      ["ideographic spaces", "\u3000"],
      ["<", "<"],
      [">", ">"],
      ["-", "-"],
      ["#", "#"],
      ["{", "{"],
      ["[", "["],
      ['"', '"'],
      ["|", "|"],
      ["_", "_"],
      [".", "."],
      ["/", "/"],
      ["*", "*"],
      ["=", "="],
      ["zero-width spaces", "\u200B"],
      ["soft hyphens", "\u00AD"],
      ["variation selectors", "\uFE0F"],
      ["combining accents", "\u0301"],
      ["Cyrillic А", "\u0410"],
      ["look-alike brackets", "\u2039"],
      ["full-width brackets", "\uFF1C"],
    ] as const
  ).map(([name, unit]) => run(`a run of ${name}`, unit)),
  run("< then newlines", "\n", "<"),
  run("<<< then spaces", " ", "<<<"),
  run("<<< then newlines", "\n", "<<<"),
  run("<<< then zero-width spaces", "\u200B", "<<<"),
  run("<<< then separators", "_-. ", "<<<"),
  run("<<</ then spaces and an END", " ", "<<</ END"),
  run("a heading mark then spaces", " ", "\n#"),
  run("a line of dashes", "-", "\n"),
  run("alternating < and newline", "<\n"),
  run("alternating < and space", "< "),
  run("alternating separators", "-_. \n"),
  run("unfinished markers", "<<<END_UNTRUSTED_DAT"),
  run("unfinished look-alike markers", "\u2039\u2039\u2039\u0415ND\u200B_UNTRUSTED_D"),
  run("unclosed tags", "<system "),
  run("nested tags", "<a><b "),
  run("unclosed role tags", "<|im_start "),
  run("tool-call openings", '{"arguments": ['),
  run("tool-call names", '{"name": "x", '),
  run("end-of-data openings", "[END OF "),
  run("dash delimiters", "\n--- END OF "),
  run("override phrases", "ignore previous "),
  run("role phrases", "you are now "),
  run("Markdown emphasis", "**x "),
  run("accent stacks", "a\u0301\u0302\u0303"),
  run("confusables and invisibles", "\u0410\u200B\u0415\u00AD\u03A4\uFE0F"),
];
