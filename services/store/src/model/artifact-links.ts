/**
 * The artifacts an entry links: hex SHA-256 digests of files. Linking opens
 * to whoever may see the entry only the files its owner holds a reference
 * to; a hash nobody owns, or only others own, opens nothing, so a link to a
 * hash the writer merely knows is accepted and says nothing about it.
 */
import { entryLimits, invalidArgument } from "@context-hub/common";

const shaPattern = /^[0-9a-f]{64}$/;

/**
 * Checks the links a write names (`field` names the list): each a SHA-256
 * as 64 hex digits (uppercase is lowered), at most `entryLimits.artifactLinks`
 * once duplicates collapse. Returns them distinct and sorted.
 */
export function validateArtifactLinks(list: readonly string[], field: string): string[] {
  const links = new Set<string>();
  for (const [index, sha256] of list.entries()) {
    const lowered = sha256.toLowerCase();
    if (!shaPattern.test(lowered))
      throw invalidArgument(
        `${field}[${index}] must be a SHA-256 as 64 hex digits (got ${JSON.stringify(sha256.slice(0, 80))})`,
        "link an artifact by the hex SHA-256 of its bytes, as put_artifact returned it",
      );
    links.add(lowered);
  }
  if (links.size > entryLimits.artifactLinks)
    throw invalidArgument(`${field}: at most ${entryLimits.artifactLinks} artifacts per entry (got ${links.size})`);
  return [...links].sort();
}

/** `next` (sorted links) when it differs from `stored`; undefined when it is absent or the same. */
export function changedArtifactLinks(next: string[] | undefined, stored: readonly string[]): string[] | undefined {
  if (next === undefined) return undefined;
  const same = next.length === stored.length && next.every((sha256, index) => sha256 === stored[index]);
  return same ? undefined : next;
}
