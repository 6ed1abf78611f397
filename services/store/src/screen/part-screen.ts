/**
 * The write-time screen of workflow memory (memory values, handoffs, session
 * events): the entries' screen and rules, run on parts that are named by the
 * kind of record rather than by an entry's fields, with their findings named
 * `<part>:<rule>` (`value:role-tag`, `summary:ignore-instructions`,
 * `payload:tool-call`). Run before the write's transaction, like an entry's
 * screen, on the same worker pool and under the same time budget, one job
 * per write: a screen over budget fails the write with TEXT_BUDGET_EXCEEDED
 * (stage "screen") before anything is written.
 */
import type { ScreenInput } from "./instruction-screen.js";
import type { WriteScreen } from "./write-screen.js";

/**
 * What one part holds: a text screened whole; strings each screened on
 * their own (so nothing spans two of them, as with an entry's tags); or a
 * JSON value whose keys and string values are each screened on their own
 * (as an entry's metadata is).
 */
export type ScreenedPart = { text: string } | { strings: readonly string[] } | { json: unknown };

/** A workflow record's trust, as stored beside it: quarantined when the screen found anything. */
export interface PartTrust {
  state: "unverified" | "quarantined";
  /** `<part>:<rule>`, sorted, each once. */
  reasons: string[];
}

/** The trust a record earns from its screened parts' findings. */
export function trustOfReasons(reasons: readonly string[]): PartTrust {
  const sorted = [...new Set(reasons)].sort();
  return { state: sorted.length > 0 ? "quarantined" : "unverified", reasons: sorted };
}

function inputOf(part: ScreenedPart): ScreenInput {
  if ("text" in part) return { text: part.text };
  if ("strings" in part) return { tags: part.strings };
  return { metadata: part.json };
}

/**
 * Screens the named parts of each record of one write, all in one screen
 * job, and returns each record's trust (in the order given).
 */
export async function screenRecords(
  screen: WriteScreen,
  records: readonly Readonly<Record<string, ScreenedPart>>[],
): Promise<PartTrust[]> {
  const parts: Record<string, ScreenInput> = {};
  records.forEach((record, index) => {
    for (const [name, part] of Object.entries(record)) parts[`${index}/${name}`] = inputOf(part);
  });
  const found = await screen.screenParts(parts);
  return records.map((record, index) =>
    trustOfReasons(
      Object.keys(record).flatMap((name) =>
        (found[`${index}/${name}`] ?? []).map((finding) => `${name}:${finding.rule}`),
      ),
    ),
  );
}

/** Screens one record's named parts and returns its trust. */
export async function screenParts(
  screen: WriteScreen,
  parts: Readonly<Record<string, ScreenedPart>>,
): Promise<PartTrust> {
  const [trust] = await screenRecords(screen, [parts]);
  return trust!;
}
