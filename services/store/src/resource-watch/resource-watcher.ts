/**
 * One watch's URIs, what each names for its watcher now, and how a change
 * moves them: which URIs a change is reported for (see resource-watch.ts for
 * the rule). No SQL or transport here.
 */
import type { Principal } from "../model/principal.js";
import type { PublicationRecord } from "../publications/publication-model.js";
import type { PublicationRepository } from "../publications/publication-repository.js";
import { resolvePublications } from "../publications/publications.js";
import { changeKey, type FeedEvent } from "./change-feed.js";
import { toWatchedTarget, type WatchedTarget } from "./resource-watch-model.js";
import type { ResourceWatchRepository } from "./resource-watch-repository.js";

/** What one watched URI names now for its watcher. */
interface UriState {
  target: WatchedTarget;
  /** An entry URI: whether the watcher may read the entry. */
  readable: boolean;
  /** A published URI: what it resolves to (a key that changes whenever the resolution does), undefined for nothing. */
  resolution: { key: string; entryId: string } | undefined;
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

const resolutionOf = (publication: PublicationRecord | undefined): UriState["resolution"] =>
  publication === undefined
    ? undefined
    : {
        entryId: publication.entryId,
        key: JSON.stringify([
          publication.uri,
          publication.entryId,
          publication.imageOrdinal ?? null,
          publication.artifactSha256,
          publication.updatedAt.getTime(),
        ]),
      };

const entryIdOf = (state: UriState): string => (state.target.kind === "entry" ? state.target.entryId : "");

/** The watched URIs naming an entry (`entryId`'s alone when given). */
const entryUris = (state: WatcherState, entryId?: string) =>
  [...state.uris].filter(
    ([, uri]) => uri.target.kind === "entry" && (entryId === undefined || uri.target.entryId === entryId),
  );

const publishedUris = (state: WatcherState) => [...state.uris].filter(([, uri]) => uri.target.kind === "published");

/** Reads again whether the entries of `uris` are readable (one statement); the URIs `report` picks. */
async function recheckEntries(
  state: WatcherState,
  uris: [string, UriState][],
  report: (was: boolean, now: boolean) => boolean,
): Promise<string[]> {
  if (uris.length === 0) return [];
  const readable = await state.repository.readableEntries(state.caller, [
    ...new Set(uris.map(([, uri]) => entryIdOf(uri))),
  ]);
  const changed: string[] = [];
  for (const [uri, uriState] of uris) {
    const now = readable.has(entryIdOf(uriState));
    if (report(uriState.readable, now)) changed.push(uri);
    uriState.readable = now;
  }
  return changed;
}

/**
 * Resolves the published URIs again: reports a URI whose resolution changed
 * (it resolves to something else, or no longer resolves), one that still
 * serves `changedEntry`, and with `everything` each that resolves at all.
 */
async function recheckPublished(
  state: WatcherState,
  changedEntry: string | undefined,
  everything = false,
): Promise<string[]> {
  const uris = publishedUris(state);
  if (uris.length === 0) return [];
  const resolved = await resolvePublications(
    state.publications,
    state.caller,
    uris.map(([uri]) => uri),
  );
  const changed: string[] = [];
  for (const [uri, uriState] of uris) {
    const now = resolutionOf(resolved.get(uri));
    const was = uriState.resolution;
    const report =
      now === undefined
        ? was !== undefined
        : everything || now.key !== was?.key || (changedEntry !== undefined && now.entryId === changedEntry);
    if (report) changed.push(uri);
    uriState.resolution = now;
  }
  return changed;
}

/** Watches `uris` from now on: adds those not watched yet with their current state (no report), drops the rest. */
async function watchUris(state: WatcherState, uris: readonly string[]): Promise<void> {
  const wanted = new Set(uris);
  for (const uri of state.uris.keys()) if (!wanted.has(uri)) state.uris.delete(uri);
  const added = new Map<string, UriState>();
  for (const uri of uris)
    if (!state.uris.has(uri)) added.set(uri, { target: toWatchedTarget(uri), readable: false, resolution: undefined });
  for (const [uri, uriState] of added) state.uris.set(uri, uriState);
  const fresh = [...added];
  await recheckEntries(
    state,
    fresh.filter(([, uri]) => uri.target.kind === "entry"),
    () => false,
  );
  const published = fresh.filter(([, uri]) => uri.target.kind === "published");
  if (published.length === 0) return;
  const resolved = await resolvePublications(
    state.publications,
    state.caller,
    published.map(([uri]) => uri),
  );
  for (const [uri, uriState] of published) uriState.resolution = resolutionOf(resolved.get(uri));
}

async function loadPublishedEntries(state: WatcherState): Promise<void> {
  state.publishedEntries = new Set(await state.publications.publishedEntryIds(state.caller));
}

const sessionUris = (state: WatcherState) => state.repository.sessionUris(state.caller, state.sessionId as string);

/** A change of an entry (`content`: of what a reader sees; else of who may read it). */
async function applyEntryChange(state: WatcherState, entryId: string, content: boolean): Promise<string[]> {
  const changed = await recheckEntries(state, entryUris(state, entryId), (was, now) =>
    content ? was || now : was !== now,
  );
  if (state.publishedEntries.has(entryId))
    changed.push(...(await recheckPublished(state, content ? entryId : undefined)));
  return changed;
}

/** Anything may have changed unseen: every URI that names something readable now, or named it before, is reported. */
async function applyReset(state: WatcherState): Promise<string[]> {
  if (state.sessionId !== undefined) await watchUris(state, await sessionUris(state));
  await loadPublishedEntries(state);
  return [
    ...(await recheckEntries(state, entryUris(state), (was, now) => was || now)),
    ...(await recheckPublished(state, undefined, true)),
  ];
}

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
          return applyEntryChange(state, event.entryId, event.kind === "entry");
        case "tenant-access":
          return [
            ...(await recheckEntries(state, entryUris(state), (was, now) => was !== now)),
            ...(await recheckPublished(state, undefined)),
          ];
        case "publications":
          if (event.publisherKey !== subjectKey) return [];
          await loadPublishedEntries(state);
          return recheckPublished(state, undefined);
        case "subscriptions":
          if (event.sessionKey !== sessionKey || event.subjectKey !== subjectKey) return [];
          await watchUris(state, await sessionUris(state));
          return [];
        case "reset":
          return applyReset(state);
      }
    },
  };
}
