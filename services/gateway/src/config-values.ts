/** Parsers of configuration values that config.ts and oidc-config.ts share. */
import { isLoopbackHost } from "@context-hub/common";

/** A comma-separated list, items trimmed, empty items dropped. */
export const splitList = (raw: string) =>
  raw
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

/** An absolute http(s) URL; plain http only for loopback hosts unless `allowHttp`. */
export function urlProblem(value: string, allowHttp: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `expected an absolute URL, got "${value}"`;
  }
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && (allowHttp || isLoopbackHost(url.hostname))) return undefined;
  return `expected an https:// URL (plain http only on loopback), got "${value}"`;
}
