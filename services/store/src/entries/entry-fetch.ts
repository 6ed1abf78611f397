/**
 * Entries by id within one reply's budget: ids and prefixes resolved, the
 * entries that fit the budget fetched, and the rest accounted for (missing,
 * withheld by the trust filter, or not returned with the reason).
 */
import { invalidArgument } from "@context-hub/common";
import type { GetEntriesResult } from "../model/entry-model.js";
import { toIdQuery } from "../model/id-query.js";
import type { Principal } from "../model/principal.js";
import { ambiguousCandidatesShown, ambiguousPrefix } from "./entry-changes.js";
import type { EntryRepository } from "./entry-ports.js";

/** Most ids one GetEntries call may ask for. */
export const maxIdsPerGet = 100;

/**
 * What one GetEntries reply may hold, in bytes of text, summaries, metadata
 * and image data: entries are read in the order asked for while they fit,
 * so a call for many large entries holds this much, not all of them, in the
 * store's memory. The first entry is returned alone when it is bigger, up
 * to `maxEntryReplyBytes`.
 */
export const replyBudgetBytes = 32 * 1024 * 1024;
/** The most one entry can add to a reply: under the 64 MiB a gRPC message may carry, with room for its framing. */
export const maxEntryReplyBytes = 60 * 1024 * 1024;

const mib = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;

/**
 * Which of the entries (in the order asked for, with their sizes) one reply
 * returns: in order, until the next would take the reply past
 * `replyBudgetBytes`; that one and every one after it are not returned (ask
 * for them again). The first entry returned may alone be bigger than the
 * budget, up to `maxEntryReplyBytes`; an entry bigger than that is never
 * returned, with the reason, and does not stop the others.
 */
export function fitReplyBudget(
  sized: readonly { id: string; sizeBytes: number }[],
  includeImages: boolean,
): { returned: string[]; notReturned: { id: string; sizeBytes: number; reason: string }[] } {
  const returned: string[] = [];
  const notReturned: { id: string; sizeBytes: number; reason: string }[] = [];
  let total = 0;
  let full = false;
  for (const { id, sizeBytes } of sized) {
    if (sizeBytes > maxEntryReplyBytes) {
      const remedy = includeImages ? "fetch it without include_images" : "read it in parts with read_range";
      notReturned.push({
        id,
        sizeBytes,
        reason: `the entry is ${mib(sizeBytes)}, more than one reply can carry (${mib(maxEntryReplyBytes)}); ${remedy}`,
      });
      continue;
    }
    full ||= returned.length > 0 && total + sizeBytes > replyBudgetBytes;
    if (full) {
      notReturned.push({
        id,
        sizeBytes,
        reason: `the reply reached its ${mib(replyBudgetBytes)} budget; fetch it in another call`,
      });
      continue;
    }
    returned.push(id);
    total += sizeBytes;
  }
  return { returned, notReturned };
}

/** The `GetEntries` call of `caller` (see `EntryService.getEntries`). */
export async function getEntries(
  repository: EntryRepository,
  caller: Principal,
  request: { ids: readonly string[]; includeImages: boolean; includeQuarantined?: boolean | undefined },
): Promise<GetEntriesResult> {
  if (request.ids.length === 0 || request.ids.length > maxIdsPerGet) {
    throw invalidArgument(`ids must list 1 to ${maxIdsPerGet} ids (got ${request.ids.length})`);
  }
  const queries = request.ids.map((id, position) => toIdQuery(id, `ids[${position}]`));
  // Resolution sees only what the caller may see, so an ambiguity can never reveal a hidden entry.
  const matches = await repository.resolveIds(caller, queries, ambiguousCandidatesShown);
  const resolved = queries.map((query, position) => {
    const found = matches[position] ?? [];
    if (found.length > 1) throw ambiguousPrefix(query, found);
    return found[0];
  });
  const wanted = [...new Set(resolved.filter((id): id is string => id !== undefined))];
  const includeQuarantined = request.includeQuarantined ?? false;
  // Sizes first (no text or image read), so the reply holds what fits its budget and no more.
  const sizes =
    wanted.length === 0
      ? new Map<string, number>()
      : await repository.replySizes(caller, wanted, request.includeImages, includeQuarantined);
  const { returned, notReturned } = fitReplyBudget(
    wanted.flatMap((id) => (sizes.has(id) ? [{ id, sizeBytes: sizes.get(id)! }] : [])),
    request.includeImages,
  );
  const fetched =
    returned.length === 0 ? [] : await repository.getByIds(caller, returned, request.includeImages, includeQuarantined);
  const byId = new Map(fetched.map((stored) => [stored.id, stored]));
  const left = new Set(notReturned.map((item) => item.id));
  const notFetched = wanted.filter((id) => !byId.has(id) && !left.has(id));
  // Visible but left out by the trust filter: the caller learns the id and state, nothing more (it could fetch them with includeQuarantined).
  const withheld =
    includeQuarantined || notFetched.length === 0 ? [] : await repository.withheldStates(caller, notFetched);
  const withheldIds = new Set(withheld.map((item) => item.id));
  // An entry deleted between resolution and fetch simply does not exist for the caller.
  const missing = queries
    .filter(
      (_, position) =>
        !byId.has(resolved[position] ?? "") &&
        !withheldIds.has(resolved[position] ?? "") &&
        !left.has(resolved[position] ?? ""),
    )
    .map((query) => query.input);
  return { entries: wanted.flatMap((id) => byId.get(id) ?? []), missing: [...new Set(missing)], withheld, notReturned };
}
