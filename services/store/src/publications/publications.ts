/**
 * The publication service: URIs (and URI templates) a principal chooses for
 * an entry it may read, for one of the entry's images or for one file the
 * entry links.
 *
 * A publication is its publisher's own and opens nothing: it resolves for
 * its publisher alone, and only while the publisher may still read its
 * target (the entry under the access predicate and the default trust
 * filter, the image, the linked file under the artifact predicate). Anyone
 * else resolving the URI, and the publisher once the target is gone or
 * hidden, gets the answer a URI never published gets. Publishing an entry
 * the caller may not read fails exactly like publishing a missing one
 * (invariant I-2).
 *
 * A resolve tries the exact URI first, then the caller's templates: the one
 * with the most literal characters that matches, then the smallest. A
 * publication whose target is gone or hidden takes no part, as if it had
 * never been published. Every
 * change runs once per idempotency key, in its own audited transaction. No
 * SQL or transport here.
 */
import {
  entryLimits,
  invalidArgument,
  matchResourceUriTemplate,
  parseResourceUri,
  type ParsedResourceUri,
} from "@context-hub/common";
import type { DenialRecorder } from "../audit/audit.js";
import { validateSha256 } from "../artifacts/artifact-model.js";
import { entryNotFound } from "../entries/entry-changes.js";
import { createIdempotentRunner, type IdempotencyExpiry, type Outcome } from "../idempotency/idempotency.js";
import { toIdQuery } from "../model/id-query.js";
import { decodeListingCursor, encodeListingCursor } from "../model/listing-cursor.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import {
  publicationLimits,
  publicationNotFound,
  resourceNotFound,
  validatePublicationDescription,
  validatePublicationPage,
  type ListPublicationsRequest,
  type PublicationPage,
  type PublicationRecord,
  type PublicationWrite,
  type PublishResourceRequest,
  type PublishResult,
  type ResolvedPublication,
  type UnpublishResourceRequest,
} from "./publication-model.js";
import type { PublicationRepository, PublicationWriteScope } from "./publication-repository.js";

export interface PublicationService {
  publish(principal: Principal | undefined, request: PublishResourceRequest): Promise<Outcome<PublishResult>>;
  unpublish(principal: Principal | undefined, request: UnpublishResourceRequest): Promise<Outcome<PublicationRecord>>;
  list(principal: Principal | undefined, request: ListPublicationsRequest): Promise<PublicationPage>;
  resolve(principal: Principal | undefined, uri: string): Promise<ResolvedPublication>;
}

/** The publication service over its repository; refusals are recorded by `denials`. */
export function createPublicationService(
  repository: PublicationRepository,
  denials: DenialRecorder,
  expiry?: IdempotencyExpiry,
): PublicationService {
  const runner = createIdempotentRunner(repository, expiry);
  const inTransaction = <T>(
    scope: PublicationWriteScope | undefined,
    work: (scope: PublicationWriteScope) => Promise<T>,
  ): Promise<T> => (scope === undefined ? repository.transaction(work) : work(scope));

  return {
    publish: (principal, request) =>
      denials.guard(principal, "resource.publish", [], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "PublishResource",
          request.idempotency,
          () => validatePublish(request),
          (write, scope) => inTransaction(scope, (tx) => publish(tx, caller, write, request.entryId)),
        );
      }),

    unpublish: (principal, request) =>
      denials.guard(principal, "resource.unpublish", [], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "UnpublishResource",
          request.idempotency,
          () => {
            if (request.uri === "") throw invalidArgument("uri must not be empty");
            return request.uri;
          },
          (uri, scope) =>
            inTransaction(scope, async (tx) => {
              const removed = await tx.remove(caller, uri);
              if (removed === undefined) throw publicationNotFound(uri);
              audit(tx, caller, "resource.unpublish", removed, {});
              return removed;
            }),
        );
      }),

    list: (principal, request) => listPublications(repository, principal, request),
    resolve: (principal, uri) => resolvePublication(repository, principal, uri),
  };
}

/** Checks a publish before any transaction: the URI, the entry id, the target and the description. */
function validatePublish(request: PublishResourceRequest): PublicationWrite {
  const parsed = parseResourceUri(request.uri);
  const query = toIdQuery(request.entryId, "entry_id");
  if (query.isPrefix)
    throw invalidArgument(
      `entry_id ${JSON.stringify(request.entryId)} is a prefix; a publication names its entry by its full id`,
    );
  const artifactSha256 = request.artifactSha256 === "" ? "" : validateSha256(request.artifactSha256, "artifact_sha256");
  const imageOrdinal = request.imageOrdinal;
  // Refused alike for every entry, readable or not: no entry holds more images than a write may carry.
  if (
    imageOrdinal !== undefined &&
    (!Number.isSafeInteger(imageOrdinal) || imageOrdinal < 0 || imageOrdinal >= entryLimits.images)
  )
    throw invalidArgument(
      `image_ordinal must be an image's position, 0 to ${entryLimits.images - 1} (got ${imageOrdinal})`,
    );
  if (imageOrdinal !== undefined && artifactSha256 !== "")
    throw invalidArgument("give image_ordinal or artifact_sha256, not both: a publication serves one thing");
  if (parsed.variables.length > 0 && (imageOrdinal !== undefined || artifactSha256 !== ""))
    throw invalidArgument(
      `uri ${request.uri} is a template; a template serves the entry's text only, not an image or a file`,
      "publish the image or file under a URI without {expressions}",
    );
  return {
    parsed,
    entryId: query.lower,
    imageOrdinal,
    artifactSha256,
    description: validatePublicationDescription(request.description),
  };
}

/** Publishes in the open transaction: the target checked as a read would check it, the limits, the upsert, the audit. */
async function publish(
  tx: PublicationWriteScope,
  caller: Principal,
  write: PublicationWrite,
  input: string,
): Promise<PublishResult> {
  await tx.lockPublisher(caller);
  const target = await tx.target(caller, write.entryId, write.imageOrdinal, write.artifactSha256);
  // Hidden, quarantined or rejected: the answer a missing id gets, byte for byte.
  if (target === undefined) throw entryNotFound(input);
  if (!target.hasImage)
    throw invalidArgument(
      `entry ${write.entryId} has ${target.imageCount === 1 ? "1 image" : `${target.imageCount} images`}; image_ordinal ${write.imageOrdinal} is none of them (images count from 0)`,
    );
  if (!target.hasFile)
    throw invalidArgument(
      `entry ${write.entryId} links no file ${write.artifactSha256} that you can read`,
      "publish one of the files the entry lists in its artifacts",
    );
  const counts = await tx.counts(caller, write.parsed.uri);
  if (counts.existing === undefined && counts.publications >= publicationLimits.publications)
    throw invalidArgument(
      `you hold ${counts.publications} publications, the most one principal may hold`,
      "unpublish one you no longer need first",
    );
  const templatesBefore = counts.templates - (counts.existing?.template === true ? 1 : 0);
  if (write.parsed.variables.length > 0 && templatesBefore >= publicationLimits.templates)
    throw invalidArgument(
      `you hold ${templatesBefore} templates, the most one principal may hold`,
      "unpublish a template you no longer need first, or publish exact URIs",
    );
  const result = await tx.upsert(caller, write);
  audit(tx, caller, "resource.publish", result.publication, { replaced: result.replaced });
  return result;
}

/** Records a change of the caller's publication in the transaction's audit (target: the entry it serves). */
function audit(
  tx: PublicationWriteScope,
  caller: Principal,
  action: "resource.publish" | "resource.unpublish",
  publication: PublicationRecord,
  extra: { replaced?: boolean },
): void {
  tx.audit.record(caller.tenant, {
    actor: caller.subject,
    action,
    outcome: "ok",
    targetIds: [publication.entryId],
    beforeHashes: [],
    afterHashes: [],
    details: {
      uri: publication.uri,
      template: publication.template,
      ...(publication.imageOrdinal === undefined ? {} : { image_ordinal: publication.imageOrdinal }),
      ...(publication.artifactSha256 === "" ? {} : { artifact_sha256: publication.artifactSha256 }),
      ...extra,
    },
  });
}

/** One page of the caller's publications whose target it may still read, by URI. */
async function listPublications(
  repository: PublicationRepository,
  principal: Principal | undefined,
  request: ListPublicationsRequest,
): Promise<PublicationPage> {
  const caller = requirePrincipal(principal, "context:read");
  const limit = validatePublicationPage(request.limit);
  const after = decodeListingCursor(request.cursor, "list_publications", 1)?.[0];
  const rows = await repository.list(caller, request.templatesOnly, after, limit);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    publications: page,
    nextCursor: rows.length > limit && last !== undefined ? encodeListingCursor([last.uri]) : "",
  };
}

/** The caller's publication a URI names, with the values a template takes from it; one answer for every miss. */
async function resolvePublication(
  repository: PublicationRepository,
  principal: Principal | undefined,
  uri: string,
): Promise<ResolvedPublication> {
  const caller = requirePrincipal(principal, "context:read");
  if (uri.length === 0 || uri.length > publicationLimits.resolvedUriChars) throw resourceNotFound(uri);
  const exact = await repository.exact(caller, uri);
  if (exact !== undefined) return { publication: exact, variables: new Map() };
  // Only templates whose target the caller may still read compete: one whose target is gone is as if unpublished.
  // They come most specific first (most literal characters, then the smallest URI): the first that matches wins.
  for (const publication of await repository.templates(caller)) {
    const parsed = parseStored(publication.uri);
    const variables = parsed === undefined ? undefined : matchResourceUriTemplate(parsed, uri);
    if (variables !== undefined) return { publication, variables };
  }
  throw resourceNotFound(uri);
}

/**
 * What each of `uris` resolves to for the caller, as a resolve would answer
 * (absent: nothing), with two statements whatever their number: the exact
 * publications at any of them, then the caller's templates.
 */
export async function resolvePublications(
  repository: PublicationRepository,
  caller: Principal,
  uris: readonly string[],
): Promise<Map<string, PublicationRecord>> {
  const resolvable = uris.filter((uri) => uri.length > 0 && uri.length <= publicationLimits.resolvedUriChars);
  const resolved = new Map<string, PublicationRecord>();
  if (resolvable.length === 0) return resolved;
  for (const publication of await repository.exactAny(caller, resolvable)) resolved.set(publication.uri, publication);
  const unresolved = resolvable.filter((uri) => !resolved.has(uri));
  if (unresolved.length === 0) return resolved;
  const templates = (await repository.templates(caller)).flatMap((publication) => {
    const parsed = parseStored(publication.uri);
    return parsed === undefined ? [] : [{ publication, parsed }];
  });
  for (const uri of unresolved) {
    const match = templates.find(({ parsed }) => matchResourceUriTemplate(parsed, uri) !== undefined);
    if (match !== undefined) resolved.set(uri, match.publication);
  }
  return resolved;
}

/** A stored template, parsed; undefined if it no longer parses (it then matches nothing). */
function parseStored(uri: string): ParsedResourceUri | undefined {
  try {
    return parseResourceUri(uri);
  } catch {
    return undefined;
  }
}
