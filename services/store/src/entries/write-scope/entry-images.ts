/** An entry's images: inserting and replacing them, and the keys a write compares them by. */
import type { SqlExecutor } from "../../db/sql-database.js";
import type { ImageWrite } from "../../model/entry-model.js";

/** The key of each image (`<mime type> <sha256>`), in order: two lists of images are the same when their keys are. */
export function toImageKeys(images: readonly ImageWrite[]): string[] {
  return images.map((image) => `${image.mimeType} ${image.sha256}`);
}

/** The same keys for the stored images of the entry aliased `e`, as a `text[]` (empty without images). */
export const storedImageKeys = `coalesce((SELECT array_agg(i.mime_type || ' ' || i.sha256 ORDER BY i.ordinal) FROM entry_images i WHERE i.entry_id = e.id), '{}'::text[])`;

/** Inserts the images of entry `entryId`, numbered in their order. */
export async function insertImages(tx: SqlExecutor, entryId: string, images: readonly ImageWrite[]): Promise<void> {
  // One statement per image: each may be megabytes, and batching them would only build one huge parameter.
  for (const [ordinal, image] of images.entries()) {
    await tx.query(
      "INSERT INTO entry_images (entry_id, ordinal, mime_type, byte_size, sha256, data) VALUES ($1, $2, $3, $4, $5, $6)",
      [entryId, ordinal, image.mimeType, image.byteSize, image.sha256, image.data],
    );
  }
}

/** Replaces every image of entry `entryId` with `images`. */
export async function replaceImages(tx: SqlExecutor, entryId: string, images: readonly ImageWrite[]): Promise<void> {
  await tx.query("DELETE FROM entry_images WHERE entry_id = $1", [entryId]);
  await insertImages(tx, entryId, images);
}
