import { isIPv4, isIPv6 } from "node:net";

/**
 * Whether `host` names this machine's loopback interface: `localhost`, an
 * IPv4 literal in 127.0.0.0/8, or the IPv6 loopback `::1` (bracketed or not,
 * in any spelling, IPv4-mapped included). Only literals count: a DNS name
 * that merely starts with `127.` (`127.attacker.example`) resolves wherever
 * its owner likes, so it is not loopback.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.trim().toLowerCase();
  if (name === "localhost") return true;
  if (isIPv4(name)) return name.startsWith("127.");
  const bare = name.startsWith("[") && name.endsWith("]") ? name.slice(1, -1) : name;
  if (!isIPv6(bare)) return false;
  // The URL parser writes every IPv6 spelling in its one canonical form (and a mapped IPv4 address in hex).
  const canonical = new URL(`http://[${bare}]/`).hostname;
  if (canonical === "[::1]") return true;
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}\]$/.exec(canonical);
  return mapped !== null && Number.parseInt(mapped[1]!, 16) >> 8 === 127;
}

/** Whether an absolute URL's host is loopback (see {@link isLoopbackHost}); false for anything that is not a URL. */
export function isLoopbackUrl(url: string | URL): boolean {
  try {
    return isLoopbackHost((typeof url === "string" ? new URL(url) : url).hostname);
  } catch {
    return false;
  }
}
