/** What a resource watch watches, its limits, and the checks that make a request valid. No SQL or transport here. */
import { invalidArgument } from "@context-hub/common";

export const resourceWatchLimits = {
  /** URIs one watch names, and URIs one session holds. */
  urisPerWatch: 100,
  /** Sessions one principal holds subscriptions in; subscribing in one more drops the one idle longest. */
  sessionsPerPrincipal: 20,
  uriChars: 4_096,
  sessionIdChars: 128,
} as const;

/** What a watched URI names for the caller: an entry by its own URI, a URI the caller may have published, or nothing. */
export type WatchedTarget = { kind: "entry"; entryId: string } | { kind: "published" } | { kind: "nothing" };

const schemePattern = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** Visible ASCII: what a URI is made of (anything else percent-encoded). */
const visibleAsciiPattern = /^[!-~]+$/;
/**
 * An entry's own URIs: `context-hub://entries/{id}` and its `/versions/{n}`,
 * `/images/{k}` and `/artifacts/{sha256}` forms all name entry `{id}`.
 */
const entryUriPattern =
  /^context-hub:\/\/entries\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/versions\/[0-9]{1,10}|\/images\/[0-9]{1,10}|\/artifacts\/[0-9a-f]{64})?$/i;

/**
 * Checks a URI to watch or subscribe to: absolute (a scheme, a colon, then
 * more), visible ASCII, at most 4,096 characters. Any such URI is accepted,
 * whether or not it names anything; INVALID_ARGUMENT naming `field` otherwise.
 */
export function validateWatchedUri(uri: string, field = "uri"): string {
  if (uri.length === 0) throw invalidArgument(`${field} must not be empty`);
  if (uri.length > resourceWatchLimits.uriChars)
    throw invalidArgument(`${field} is ${uri.length} characters; the limit is ${resourceWatchLimits.uriChars}`);
  const scheme = schemePattern.exec(uri);
  if (scheme === null || uri.length === scheme[0].length)
    throw invalidArgument(
      `${field} must be an absolute URI: a scheme (a letter, then letters, digits, "+", "." or "-"), a colon, then the rest, e.g. context-hub://entries/{id}`,
    );
  if (!visibleAsciiPattern.test(uri))
    throw invalidArgument(`${field} holds a space, a control or a non-ASCII character; percent-encode it`);
  return uri;
}

/** Checks a session id: 1 to 128 visible ASCII characters (the gateway's opaque id). */
export function validateSessionId(sessionId: string): string {
  if (sessionId.length === 0) throw invalidArgument("session_id must not be empty");
  if (sessionId.length > resourceWatchLimits.sessionIdChars)
    throw invalidArgument(
      `session_id is ${sessionId.length} characters; the limit is ${resourceWatchLimits.sessionIdChars}`,
    );
  if (!visibleAsciiPattern.test(sessionId))
    throw invalidArgument("session_id must be visible ASCII characters (no spaces, controls or non-ASCII)");
  return sessionId;
}

/** Checks the URIs of a fixed watch: at least one, at most 100, each valid; repeats count once. */
export function validateWatchedUris(uris: readonly string[]): string[] {
  const distinct = [...new Set(uris)];
  if (distinct.length === 0) throw invalidArgument("uris must name at least one URI to watch");
  if (distinct.length > resourceWatchLimits.urisPerWatch)
    throw invalidArgument(
      `uris names ${distinct.length} URIs; one watch takes at most ${resourceWatchLimits.urisPerWatch}`,
      "split them over several watches",
    );
  distinct.forEach((uri, index) => validateWatchedUri(uri, `uris[${index}]`));
  return distinct;
}

/** What a valid URI names for its watcher, by its form alone. */
export function toWatchedTarget(uri: string): WatchedTarget {
  const entry = entryUriPattern.exec(uri);
  if (entry !== null) return { kind: "entry", entryId: (entry[1] as string).toLowerCase() };
  // Any other context-hub: URI names nothing; no one can publish under the scheme.
  if (uri.slice(0, 12).toLowerCase() === "context-hub:") return { kind: "nothing" };
  return { kind: "published" };
}
