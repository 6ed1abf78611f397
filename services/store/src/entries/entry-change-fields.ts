/**
 * What a change of an entry writes: the fields whose new values differ from
 * the stored entry's (compared as the database compares them), and those
 * fields' findings from the change's screen.
 */
import { ContextHubError } from "@context-hub/common";
import type { JsonValue, LockedEntry, ScreenedChange, Validity } from "../model/entry-model.js";
import { changedArtifactLinks } from "../model/artifact-links.js";
import { isSamePromptArguments } from "../model/prompt-arguments.js";
import type { RescreenedFields } from "../model/trust.js";
import { screenEntry } from "../screen/instruction-screen.js";
import type { FieldScreens } from "../screen/write-screen.js";
import type { EntryChangeWrite } from "./entry-ports.js";

/** Whether two JSON values are equal as jsonb compares them (object keys unordered). */
function isSameJson(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((value, index) => isSameJson(value, b[index] as JsonValue))
    );
  }
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => key in b && isSameJson(a[key] as JsonValue, b[key] as JsonValue))
  );
}

function isSameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/** Whether two valid-time intervals are the same (open ends equal only to open ends). */
export function isSameValidity(a: Validity, b: Validity): boolean {
  return a.validFrom?.getTime() === b.validFrom?.getTime() && a.validTo?.getTime() === b.validTo?.getTime();
}

/** The values an update leaves once a restore has brought back its version's, and whether its text changes. */
export interface ChangedValues {
  textChanges: boolean;
  visibility: ScreenedChange["visibility"];
  validity: ScreenedChange["validity"];
  kind: ScreenedChange["kind"];
  title: ScreenedChange["title"] | null;
  promptArguments: ScreenedChange["promptArguments"];
  artifacts: ScreenedChange["artifacts"];
  promptName: ScreenedChange["promptName"];
}

/** The prompt name an update writes: undefined when it leaves the stored one (null removes it). */
export function changedPromptName(
  promptName: string | null | undefined,
  entry: Pick<LockedEntry, "promptName">,
): string | null | undefined {
  return promptName !== undefined && promptName !== (entry.promptName ?? null) ? promptName : undefined;
}

/** The fields an update writes: each one whose value differs from the locked entry's; undefined leaves it as it is. */
export function changedFields(entry: LockedEntry, change: ScreenedChange, values: ChangedValues): EntryChangeWrite {
  const { textChanges, visibility, validity, kind, title, promptArguments, artifacts, promptName } = values;
  return {
    text:
      textChanges && change.text !== undefined && change.generated !== undefined
        ? { ...change.text, generated: change.generated }
        : undefined,
    metadata:
      change.metadata !== undefined && !isSameJson(change.metadata, entry.metadata) ? change.metadata : undefined,
    tags: change.tags !== undefined && !isSameList(change.tags, entry.tags) ? change.tags : undefined,
    images:
      change.images !== undefined &&
      !isSameList(
        change.images.map((image) => `${image.mimeType} ${image.sha256}`),
        entry.imageKeys,
      )
        ? change.images
        : undefined,
    visibility,
    validity: validity !== undefined && !isSameValidity(validity, entry.validity) ? validity : undefined,
    kind: kind !== undefined && kind !== entry.kind ? kind : undefined,
    title: title !== undefined && title !== (entry.title ?? null) ? title : undefined,
    promptArguments:
      promptArguments !== undefined && !isSamePromptArguments(promptArguments, entry.promptArguments)
        ? promptArguments
        : undefined,
    artifacts: changedArtifactLinks(artifacts, entry.artifacts),
    promptName: changedPromptName(promptName, entry),
  };
}

/** The fields a change replaces, screened anew: their findings from the change's screen. */
export function rescreen(write: EntryChangeWrite, screens: FieldScreens): RescreenedFields {
  const fields: RescreenedFields = {};
  const screened = (field: keyof FieldScreens) => {
    const findings = screens[field];
    // A replaced field with no screen would escape quarantine: that is a fault of the store, never the caller's.
    if (findings === undefined)
      throw new ContextHubError("INTERNAL", `the change's ${field} was not screened before its transaction`);
    return findings;
  };
  if (write.text !== undefined) fields.text = screened("text");
  if (write.metadata !== undefined) fields.metadata = screened("metadata");
  if (write.tags !== undefined) fields.tags = screened("tags");
  // A restore brings its title from the kept version, not from the caller, so nothing screened it before the
  // transaction; a title is one line of at most 300 characters, screened here at once.
  if (write.title !== undefined) fields.title = screens.title ?? screenEntry({ title: write.title ?? "" });
  // Restored arguments likewise: at most 20 descriptions of at most 500 characters.
  if (write.promptArguments !== undefined)
    fields.arguments = screens.arguments ?? screenEntry({ promptArguments: write.promptArguments });
  return fields;
}
