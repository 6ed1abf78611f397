/** The image types Context Hub stores: each is recognised by the signature its files begin with. */
export const imageMimeTypes = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

export type ImageMimeType = (typeof imageMimeTypes)[number];

/** Whether `value` is one of the image types Context Hub stores. */
export function isImageMimeType(value: string): value is ImageMimeType {
  return (imageMimeTypes as readonly string[]).includes(value);
}

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((byte, index) => bytes[at + index] === byte);
const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0));

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const jpegSignature = [0xff, 0xd8, 0xff];
const gif87 = ascii("GIF87a");
const gif89 = ascii("GIF89a");
const riff = ascii("RIFF");
const webp = ascii("WEBP");

/**
 * The stored image type whose signature `bytes` begin with (PNG's eight
 * bytes, JPEG's FF D8 FF, GIF87a/GIF89a, RIFF….WEBP), or undefined when
 * they begin with none of them. Reads at most the first 12 bytes.
 */
export function detectImageType(bytes: Uint8Array): ImageMimeType | undefined {
  if (startsWith(bytes, pngSignature)) return "image/png";
  if (startsWith(bytes, jpegSignature)) return "image/jpeg";
  if (startsWith(bytes, gif87) || startsWith(bytes, gif89)) return "image/gif";
  if (startsWith(bytes, riff) && startsWith(bytes, webp, 8)) return "image/webp";
  return undefined;
}

/** Other formats worth naming when they arrive under an image type, so the caller sees what was sent. */
const otherFormats: readonly { name: string; matches: (bytes: Uint8Array, head: string) => boolean }[] = [
  { name: "HTML", matches: (_, head) => /^(?:<!doctype html|<html[\s>])/i.test(head) },
  // Markup whose head holds an <svg> element: after an XML prolog, comments or a doctype, as SVG files usually begin.
  { name: "SVG (image/svg+xml)", matches: (_, head) => head.startsWith("<") && /<svg[\s/>]/i.test(head) },
  { name: "XML", matches: (_, head) => head.startsWith("<?xml") },
  { name: "PDF", matches: (bytes) => startsWith(bytes, ascii("%PDF-")) },
  { name: "BMP", matches: (bytes) => startsWith(bytes, ascii("BM")) && bytes.length >= 14 },
  {
    name: "TIFF",
    matches: (bytes) => startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a]),
  },
  { name: "ICO", matches: (bytes) => startsWith(bytes, [0x00, 0x00, 0x01, 0x00]) },
  { name: "AVIF/HEIF", matches: (bytes) => startsWith(bytes, ascii("ftyp"), 4) },
  { name: "ZIP", matches: (bytes) => startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) },
  { name: "gzip", matches: (bytes) => startsWith(bytes, [0x1f, 0x8b]) },
];

/** How far into the bytes a textual format is looked for: past an XML prolog and a comment or two, not through a whole file. */
const textHeadBytes = 1024;

/**
 * What `bytes` look like, for an error message: the stored image type they
 * begin with, another format recognised by its signature (SVG, HTML, PDF,
 * BMP, TIFF…), "text" for printable UTF-8, else their first bytes in hex.
 */
export function describeImageBytes(bytes: Uint8Array): string {
  const detected = detectImageType(bytes);
  if (detected !== undefined) return detected;
  // A UTF-8 byte order mark and leading white space do not change what a text format is.
  let start = startsWith(bytes, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  while (start < bytes.length && start < textHeadBytes && [0x09, 0x0a, 0x0d, 0x20].includes(bytes[start]!)) start++;
  const headBytes = bytes.subarray(start, start + textHeadBytes);
  const head = Buffer.from(headBytes.buffer, headBytes.byteOffset, headBytes.byteLength).toString("latin1");
  const other = otherFormats.find((format) => format.matches(bytes, head));
  if (other !== undefined) return other.name;
  if (isPrintableText(bytes.subarray(0, 64))) return "text";
  const hex = Buffer.from(bytes.subarray(0, 8))
    .toString("hex")
    .replace(/(..)(?!$)/g, "$1 ");
  return `unrecognised data (first bytes ${hex})`;
}

/** Whether `sample` is UTF-8 (a character cut off at its end allowed) without control characters other than tab and line breaks. */
function isPrintableText(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(sample, { stream: true });
  } catch {
    return false;
  }
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || (code >= 0x7f && code < 0xa0)) return false;
  }
  return true;
}

/**
 * Why `bytes` cannot be stored as `declared`, or undefined when they begin
 * with that type's signature: "is declared image/png but its bytes are SVG
 * (image/svg+xml)", to follow the image's name in an error message.
 */
export function imageTypeMismatch(bytes: Uint8Array, declared: string): string | undefined {
  if (detectImageType(bytes) === declared) return undefined;
  return `is declared ${declared} but its bytes are ${describeImageBytes(bytes)}`;
}
