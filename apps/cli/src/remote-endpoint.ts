import { isLoopbackUrl } from "@context-hub/common";
import { loadCliConfig } from "./config.js";

/** The `--url`, `--token` and `--insecure` options of a command that talks to a running server. */
export interface RemoteOptions {
  url: string;
  token: string | undefined;
  insecure: boolean | undefined;
}

export type RemoteEndpoint = { ok: true; url: URL; token: string | undefined } | { ok: false; message: string };

/** The parseArgs options every command that reaches a server over HTTP accepts. */
export const remoteOptions = {
  url: { type: "string" },
  token: { type: "string" },
  insecure: { type: "boolean" },
} as const;

/**
 * Where a command sends its requests, and with which credential. The
 * credential comes from `--token` or else CONTEXT_HUB_TOKEN; `--token` works
 * but draws a warning, since any user of the machine can read a command line
 * (`ps`). Plain http is refused for a host that is not a loopback literal
 * unless `--insecure` says the network is trusted: the credential and every
 * entry would cross it in clear.
 */
export function resolveRemoteEndpoint(
  command: string,
  options: RemoteOptions,
  env: NodeJS.ProcessEnv,
  warn: (text: string) => void,
): RemoteEndpoint {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return { ok: false, message: `--url "${options.url}" is not a URL` };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return { ok: false, message: `--url must be an http:// or https:// URL, got "${options.url}"` };
  if (url.protocol === "http:" && !isLoopbackUrl(url)) {
    if (options.insecure !== true) {
      return {
        ok: false,
        message: `--url ${url.origin} is plain http to a host that is not loopback: the credential and every entry would cross the network unencrypted. Use https://, or add --insecure if the network between here and the server is private (e.g. a cluster-internal service).`,
      };
    }
    warn(`context-hub ${command}: --insecure: sending the credential over plain http to ${url.host}\n`);
  }
  if (options.token !== undefined) {
    warn(
      `context-hub ${command}: --token shows in the process list (ps) to other users of this machine; set CONTEXT_HUB_TOKEN instead\n`,
    );
  }
  const token = options.token ?? loadCliConfig(env).CONTEXT_HUB_TOKEN;
  return { ok: true, url, token: token === undefined || token === "" ? undefined : token };
}

/** The transport options that send `token` as a bearer credential on every request. */
export function bearerRequestInit(token: string | undefined): { requestInit?: RequestInit } {
  return token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } };
}
