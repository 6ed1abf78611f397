/**
 * One watch's URIs, what each names for its watcher now, and how a change
 * moves them: which URIs a change is reported for (see resource-watch.ts for
 * the rule). No SQL or transport here.
 *
 * Each URI keeps the state its watcher reads through it: a digest of the
 * entry it names (or of the publication resolving it and the entry that
 * serves), or nothing when it names nothing the watcher may read. A change
 * re-reads the states of the URIs it can affect and reports those whose
 * state moved, so one commit that both opens an entry and edits it is
 * reported once, and a change the watcher could not read, before or after,
 * never.
 */
import type { Principal } from "../model/principal.js";
import type { PublicationRepository } from "../publications/publication-repository.js";
import { resolvePublications } from "../publications/publications.js";
import { changeKey, type FeedEvent } from "./change-feed.js";
import { toWatchedTarget, type WatchedTarget } from "./resource-watch-model.js";
import type { ResourceWatchRepository } from "./resource-watch-repository.js";

interface UriState {
  target: WatchedTarget;
  /** What the watcher reads through the URI now; undefined when it names nothing the watcher may read. */
  state: string | undefined;
  /**
   * Subscribed while the stream was open: its state was read when the
   * subscription was handled, which may be after later writes committed, so
   * the first change that covers it reports it if it names something readable
   * (a subscription committed before a write is honoured for that write).
   */
  fresh: boolean;
}

interface WatcherState {
  caller: Principal;
  sessionId: string | undefined;
  repository: ResourceWatchRepository;
  publications: PublicationRepository;
  uris: Map<string, UriState>;
  /** The entries the caller's publications name, readable or not: a change of one may change a published URI. */
  publishedEntries: Set<string>;
}

export interface ResourceWatcher {
  /** Reads the watched URIs (the fixed ones, else the session's) and what each names now. */
  load(fixed: readonly string[] | undefined): Promise<void>;
  /** Handles one change; the URIs whose resource changed for the caller. */
  apply(event: FeedEvent): Promise<string[]>;
}

type Watched = [uri: string, state: UriState];

/**
 * What each of `uris` names for the watcher now: at most three statements
 * whatever their number (the exact publications, the templates, then the
 * entries named directly or serving a publication).
 */
async function currentStates(state: WatcherState, uris: readonly Watched[]): Promise<Map<string, string | undefined>> {
  const published = uris.filter(([, uri]) => uri.target.kind === "published").map(([uri]) => uri);
  const resolved =
    published.length === 0 ? new Map() : await resolvePublications(state.publications, state.caller, published);
  const entryIds = new Set<string>();
  for (const [, uri] of uris) if (uri.target.kind === "entry") entryIds.add(uri.target.entryId);
  for (const publication of resolved.values()) entryIds.add(publication.entryId);
  const entries = await state.repository.entryStates(state.caller, [...entryIds]);
  const states = new Map<string, string | undefined>();
  for (const [uri, { target }] of uris) {
    if (target.kind === "entry") states.set(uri, entries.get(target.entryId));
    else if (target.kind === "nothing") states.set(uri, undefined);
    else {
      const publication = resolved.get(uri);
      const entry = publication === undefined ? undefined : entries.get(publication.entryId);
      states.set(
        uri,
        publication === undefined || entry === undefined
          ? undefined
          : JSON.stringify([
              publication.uri,
              publication.entryId,
              publication.imageOrdinal ?? null,
              publication.artifactSha256,
              publication.updatedAt.getTime(),
              entry,
            ]),
      );
    }
  }
  return states;
}

/**
 * Reads the states of `uris` again; reports those whose state moved, or with
 * `everything` (and a fresh URI) each that names something readable now or
 * did before.
 */
async function recheck(state: WatcherState, uris: readonly Watched[], everything = false): Promise<string[]> {
  if (uris.length === 0) return [];
  const states = await currentStates(state, uris);
  const changed: string[] = [];
  for (const [uri, uriState] of uris) {
    const now = states.get(uri);
    const report =
      everything || uriState.fresh ? now !== undefined || uriState.state !== undefined : now !== uriState.state;
    if (report) changed.push(uri);
    uriState.state = now;
    uriState.fresh = false;
  }
  return changed;
}

/**
 * Watches `uris` from now on: adds those not watched yet with their current state (no report), `fresh` when a
 * subscription added them while the stream was open; drops the rest.
 */
async function watchUris(state: WatcherState, uris: readonly string[], fresh = false): Promise<void> {
  const wanted = new Set(uris);
  for (const uri of state.uris.keys()) if (!wanted.has(uri)) state.uris.delete(uri);
  const added: Watched[] = uris
    .filter((uri) => !state.uris.has(uri))
    .map((uri) => [uri, { target: toWatchedTarget(uri), state: undefined, fresh: false }]);
  for (const [uri, uriState] of added) state.uris.set(uri, uriState);
  await recheck(state, added);
  for (const [, uriState] of added) uriState.fresh = fresh;
}

async function loadPublishedEntries(state: WatcherState): Promise<void> {
  state.publishedEntries = new Set(await state.publications.publishedEntryIds(state.caller));
}

const sessionUris = (state: WatcherState) => state.repository.sessionUris(state.caller, state.sessionId as string);

/** The URIs a change of entry `entryId` can affect: those naming it, and the published ones if a publication names it. */
const affectedBy = (state: WatcherState, entryId: string): Watched[] =>
  [...state.uris].filter(
    ([, uri]) =>
      (uri.target.kind === "entry" && uri.target.entryId === entryId) ||
      (uri.target.kind === "published" && state.publishedEntries.has(entryId)),
  );

const publishedUris = (state: WatcherState): Watched[] =>
  [...state.uris].filter(([, uri]) => uri.target.kind === "published");

/** A watcher of `caller`'s URIs: fixed ones, or those of its session `sessionId`. */
export function createResourceWatcher(
  caller: Principal,
  sessionId: string | undefined,
  repository: ResourceWatchRepository,
  publications: PublicationRepository,
): ResourceWatcher {
  const state: WatcherState = {
    caller,
    sessionId,
    repository,
    publications,
    uris: new Map(),
    publishedEntries: new Set(),
  };
  const subjectKey = changeKey(caller.subject);
  const sessionKey = sessionId === undefined ? undefined : changeKey(sessionId);

  return {
    async load(fixed) {
      await loadPublishedEntries(state);
      await watchUris(state, fixed ?? (await sessionUris(state)));
    },

    async apply(event) {
      switch (event.kind) {
        case "entry":
        case "access":
          return recheck(state, affectedBy(state, event.entryId));
        case "tenant-access":
          return recheck(state, [...state.uris]);
        case "publications":
          if (event.publisherKey !== subjectKey) return [];
          await loadPublishedEntries(state);
          return recheck(state, publishedUris(state));
        case "subscriptions":
          if (event.sessionKey !== sessionKey || event.subjectKey !== subjectKey) return [];
          await watchUris(state, await sessionUris(state), true);
          return [];
        case "reset":
          // Anything may have changed unseen: every URI that names something readable now, or did before, is reported.
          if (sessionId !== undefined) await watchUris(state, await sessionUris(state));
          await loadPublishedEntries(state);
          return recheck(state, [...state.uris], true);
      }
    },
  };
}
