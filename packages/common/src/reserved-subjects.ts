/**
 * Subjects no credential may carry: the audit log names the actor of an
 * operator command (`context-hub purge`, …) `operator`, so a key or token
 * with that subject would write records that read as the operator's.
 */
export const reservedSubjects = ["operator"] as const;

/**
 * Whether `subject` is reserved, or reads as one: compared after Unicode
 * compatibility folding, without invisible format characters or
 * surrounding space, and case-insensitively (`Operator`, `ｏｐｅｒａｔｏｒ`
 * and `operator\u200b` all count).
 */
export function isReservedSubject(subject: string): boolean {
  const folded = subject
    .normalize("NFKC")
    .replace(/\p{Cf}/gu, "")
    .trim()
    .toLowerCase();
  return (reservedSubjects as readonly string[]).includes(folded);
}

/** The refusal for a reserved subject, naming the field it came from. */
export function reservedSubjectMessage(field: string, subject: string): string {
  return `${field} ${JSON.stringify(subject.slice(0, 64))} is reserved: the audit log records operator actions under that name; choose another subject`;
}
