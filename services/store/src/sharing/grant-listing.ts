/** Listing the grants a caller made (an admin: its tenant's): the request's checks, then the repository's read. */
import { invalidArgument } from "@context-hub/common";
import { validatePage } from "../entries/entry-validation.js";
import { validateCollectionId } from "../model/collection-id.js";
import { validateThreadId } from "../model/field-validation.js";
import { isUuid } from "../model/ids.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { sharingLimits, type GrantListing, type GrantRecord } from "../model/sharing-model.js";

export interface ListGrantsRequest {
  /** At most one of the three, empty when unused. */
  entryId: string;
  threadId: string;
  collectionId: string;
  /** Empty for every grantor (admins); anyone else sees only their own grants. */
  grantor: string;
  limit: number;
  offset: number;
}

export interface GrantPage {
  grants: GrantRecord[];
  hasMore: boolean;
}

/** Checks a listing request and reads its page. */
export async function listGrants(
  grants: GrantListing,
  principal: Principal | undefined,
  request: ListGrantsRequest,
): Promise<GrantPage> {
  const caller = requirePrincipal(principal, "context:read");
  const targets = [request.entryId, request.threadId, request.collectionId].filter((value) => value !== "");
  if (targets.length > 1) throw invalidArgument("give at most one of entry_id, thread_id and collection_id");
  const entryId = request.entryId === "" ? undefined : request.entryId.trim().toLowerCase();
  if (entryId !== undefined && !isUuid(entryId))
    throw invalidArgument("entry_id must be a full entry id (a UUID, as store_context returned it)");
  if (request.grantor.length > sharingLimits.granteeNameLength || request.grantor.includes("\u0000"))
    throw invalidArgument(`grantor must be at most ${sharingLimits.granteeNameLength} characters without NUL`);
  const page = validatePage(request.limit, request.offset, 50);
  const rows = await grants.list(
    caller,
    {
      entryId,
      threadId: request.threadId === "" ? undefined : validateThreadId(request.threadId, "thread_id"),
      collectionId:
        request.collectionId === "" ? undefined : validateCollectionId(request.collectionId, "collection_id"),
      grantor: request.grantor === "" ? undefined : request.grantor,
    },
    page.limit,
    page.offset,
  );
  return { grants: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}
