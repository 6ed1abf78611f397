/** How long a listing preview is, in UTF-16 code units, before the ellipsis. */
export const previewLength = 300;

/** How far back from the limit a word boundary may be before the cut falls mid-word instead. */
const boundaryWindow = 80;

function withoutDanglingHighSurrogate(value: string): string {
  const last = value.charCodeAt(value.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? value.slice(0, -1) : value;
}

/**
 * The preview of an entry's text for listings: its start with runs of
 * whitespace collapsed to one space, cut at the last word boundary before
 * ~300 characters and marked with "…" when anything was cut. Never splits a
 * surrogate pair.
 */
export function toPreview(text: string): string {
  // Collapsing whitespace only shortens, so a bounded head is all that needs scanning.
  const headLimit = previewLength * 4;
  const headCut = text.length > headLimit;
  const flat = withoutDanglingHighSurrogate(text.slice(0, headLimit)).replace(/\s+/g, " ").trim();
  if (flat.length <= previewLength) return headCut ? `${flat}…` : flat;
  const boundary = flat.lastIndexOf(" ", previewLength);
  const cut = boundary >= previewLength - boundaryWindow ? boundary : previewLength;
  return `${withoutDanglingHighSurrogate(flat.slice(0, cut)).trimEnd()}…`;
}
