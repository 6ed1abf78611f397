/** Calls to a gateway's REST API (/api/v1) over real HTTP, as a script would make them. */

/** One REST answer: status, headers, the raw body text and its JSON (undefined when empty). */
export interface RestAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export interface RestCall {
  query?: Record<string, string | number | boolean | string[]>;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A caller of /api/v1 at `base` (the gateway's origin), with `key` as a bearer credential when given. */
export function restCaller(base: string, key?: string) {
  return async (method: string, path: string, call: RestCall = {}): Promise<RestAnswer> => {
    const url = new URL(`${base}/api/v1${path}`);
    for (const [name, value] of Object.entries(call.query ?? {}))
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
    const response = await fetch(url, {
      method,
      headers: {
        ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
        ...(call.body === undefined ? {} : { "content-type": "application/json" }),
        ...call.headers,
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: text === "" ? undefined : JSON.parse(text),
    };
  };
}

export type RestCaller = ReturnType<typeof restCaller>;

/** The gateway's origin from its MCP URL. */
export const originOf = (mcpUrl: string) => new URL(mcpUrl).origin;
