/** A line diff of two texts by longest common subsequence, for comparing an entry's versions. */

export interface DiffLine {
  kind: "same" | "added" | "removed";
  text: string;
}

/** Beyond this many line pairs the table would be too big for a browser tab: the diff falls back to remove-all/add-all. */
const maxCells = 4_000_000;

/** The lines of `after` against `before`: each kept, added or removed, in reading order. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length * b.length > maxCells)
    return [
      ...a.map((text) => ({ kind: "removed" as const, text })),
      ...b.map((text) => ({ kind: "added" as const, text })),
    ];
  const width = b.length + 1;
  // lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1)
    for (let j = b.length - 1; j >= 0; j -= 1)
      lengths[i * width + j] =
        a[i] === b[j]
          ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: "same", text: a[i] ?? "" });
      i += 1;
      j += 1;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      lines.push({ kind: "removed", text: a[i] ?? "" });
      i += 1;
    } else {
      lines.push({ kind: "added", text: b[j] ?? "" });
      j += 1;
    }
  }
  for (; i < a.length; i += 1) lines.push({ kind: "removed", text: a[i] ?? "" });
  for (; j < b.length; j += 1) lines.push({ kind: "added", text: b[j] ?? "" });
  return lines;
}
