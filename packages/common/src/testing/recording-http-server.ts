import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a RecordingHttpServer received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. "/v1/embeddings". */
  path: string;
  /** Lower-case header names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  body: unknown;
  /** performance.now() when the request was complete. */
  receivedAt: number;
}

/**
 * What the handler answers; "hang" never answers (the socket stays open until
 * close()). With `stall`, the status, headers and the body given so far are
 * sent and the response is never finished.
 */
export type FakeAnswer =
  | { status?: number; headers?: Record<string, string>; json?: unknown; body?: string; stall?: boolean }
  | "hang";

export interface RecordingHttpServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Every request so far, in arrival order. */
  requests: RecordedRequest[];
  /** Closes the server and every connection, answered or hanging. */
  close(): Promise<void>;
}

/**
 * A local HTTP server on 127.0.0.1 and a free port that records every request
 * and answers with `handler(request, index)`; tests use it to speak a
 * provider's API and to assert what the client sent.
 */
export async function startRecordingHttpServer(
  handler: (request: RecordedRequest, index: number) => FakeAnswer | Promise<FakeAnswer>,
): Promise<RecordingHttpServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Recorded as text.
      }
      const request: RecordedRequest = {
        method: incoming.method ?? "",
        path: incoming.url ?? "",
        headers: incoming.headers,
        body,
        receivedAt: performance.now(),
      };
      const index = requests.push(request) - 1;
      Promise.resolve()
        .then(() => handler(request, index))
        .then(
          (answer) => send(response, answer),
          (error: unknown) => send(response, { status: 599, body: `fake server handler failed: ${String(error)}` }),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function send(response: ServerResponse, answer: FakeAnswer): void {
  if (answer === "hang") return;
  const body = answer.json === undefined ? (answer.body ?? "") : JSON.stringify(answer.json);
  const headers = { "content-type": answer.json === undefined ? "text/plain" : "application/json", ...answer.headers };
  response.writeHead(answer.status ?? 200, headers);
  if (answer.stall !== true) {
    response.end(body);
    return;
  }
  response.flushHeaders();
  if (body !== "") response.write(body);
}
