/** What a collection id is: a full UUID, as the store made it (no prefixes). */
import { invalidArgument } from "@context-hub/common";
import { isUuid } from "./ids.js";

/** The id in canonical lowercase form; INVALID_ARGUMENT naming `field` when it is not a UUID. */
export function validateCollectionId(value: string, field: string): string {
  const id = value.trim().toLowerCase();
  if (!isUuid(id))
    throw invalidArgument(`${field} must be a collection id (a full UUID, as create_collection returned it)`);
  return id;
}
