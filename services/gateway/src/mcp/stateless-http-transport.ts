// One POST of MCP's Streamable HTTP transport, stateless, answered straight on Node's response object.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { MAX_BATCH_SIZE } from "@modelcontextprotocol/sdk/server/requestBody.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isInitializeRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/** How often an open event stream gets a comment line, so that proxies do not time it out. */
const keepAliveMs = 15_000;

/** Why a POST cannot go to the server: the HTTP status and the JSON-RPC error to answer with. */
export interface PostRefusal {
  status: number;
  code: number;
  message: string;
}

export type ReadPost = { ok: true; messages: JSONRPCMessage[] } | { ok: false; refusal: PostRefusal };

const refused = (status: number, code: number, message: string): ReadPost => ({
  ok: false,
  refusal: { status, code, message },
});

/**
 * The JSON-RPC messages of a POST to /mcp, or why it is refused, with the
 * statuses and codes of the specification's stateless Streamable HTTP
 * transport: 415 for a body that is not JSON, 400 for a batch that is too
 * large, for anything that is not a JSON-RPC message, for more than one
 * `initialize` in a batch, and for an `MCP-Protocol-Version` this server
 * does not speak.
 */
export function readPost(body: unknown, isJson: boolean, headers: IncomingHttpHeaders): ReadPost {
  if (!isJson) return refused(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE)
    return refused(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  const messages: JSONRPCMessage[] = [];
  for (const raw of Array.isArray(body) ? (body as unknown[]) : [body]) {
    const parsed = JSONRPCMessageSchema.safeParse(raw);
    if (!parsed.success) return refused(400, -32700, "Parse error: Invalid JSON-RPC message");
    messages.push(parsed.data);
  }
  const initializations = messages.filter((message) => isInitializeRequest(message)).length;
  if (initializations > 1 || (initializations === 1 && messages.length > 1))
    return refused(400, -32600, "Invalid Request: Only one initialization request is allowed");
  const version = headers["mcp-protocol-version"];
  if (initializations === 0 && typeof version === "string" && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return refused(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  return { ok: true, messages };
}

const isRequest = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string } =>
  "id" in message && "method" in message;
const isAnswer = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } =>
  "id" in message && ("result" in message || "error" in message);

/**
 * The transport between one POST and the MCP server made for it.
 *
 * The SDK's own Node transport turns each request into a web `Request` and
 * each answer into a web `Response` and back (through @hono/node-server),
 * which cost the gateway about 0.3 ms of CPU per call, two fifths of its MCP
 * layer's (docs/performance.md). This one writes to Node's response
 * directly: one JSON body once every request of the POST is answered, or,
 * for a client that prefers an event stream, one `message` event per
 * message sent for the POST's requests (answers and their notifications),
 * ending the stream with the last answer. A stateless server has no stream
 * of its own to the client, so anything else the server sends is dropped.
 */
export class StatelessHttpTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];

  readonly #response: ServerResponse;
  readonly #stream: boolean;
  /** The POST's requests in their order, and the answers received so far. */
  readonly #answers = new Map<RequestId, JSONRPCMessage | undefined>();
  #unanswered = 0;
  #keepAlive: NodeJS.Timeout | undefined;
  /** Every request of the POST answered (or none to answer): nothing of the server's is left running for it. */
  #done = false;
  #closed = false;

  constructor(response: ServerResponse, options: { stream: boolean }) {
    this.#response = response;
    this.#stream = options.stream;
  }

  async start(): Promise<void> {}

  /** Hands a POST's messages (from `readPost`) to the server; a POST without requests is answered 202 at once. */
  deliver(messages: readonly JSONRPCMessage[], headers: IncomingHttpHeaders): void {
    for (const message of messages) {
      if (isRequest(message) && !this.#answers.has(message.id)) {
        this.#answers.set(message.id, undefined);
        this.#unanswered += 1;
      }
    }
    if (this.#unanswered === 0) {
      this.#done = true;
      this.#response.writeHead(202).end();
    } else if (this.#stream) {
      this.#response.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      });
      this.#response.flushHeaders();
      this.#keepAlive = setInterval(() => this.#response.write(": keepalive\n\n"), keepAliveMs);
      this.#keepAlive.unref();
    }
    const extra = { requestInfo: { headers } };
    for (const message of messages) this.onmessage?.(message, extra);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // Once the POST is answered its response is over.
    if (this.#closed || this.#done) return;
    const answer = isAnswer(message);
    const requestId = answer ? message.id : options?.relatedRequestId;
    if (requestId === undefined || !this.#answers.has(requestId)) {
      if (answer) throw new Error(`No request ${String(requestId)} in this POST to answer`);
      return;
    }
    if (answer) {
      // A batch that holds a request id twice gets one answer for it.
      if (this.#answers.get(requestId) !== undefined) return;
      this.#answers.set(requestId, message);
      this.#unanswered -= 1;
    }
    if (this.#stream) this.#response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    if (!answer || this.#unanswered > 0) return;
    this.#done = true;
    if (this.#stream) {
      this.#response.end();
    } else {
      const answers = [...this.#answers.values()];
      const body = JSON.stringify(answers.length === 1 ? answers[0] : answers);
      this.#response
        .writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
        .end(body);
    }
    clearInterval(this.#keepAlive);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    if (this.#stream && this.#response.headersSent && !this.#response.writableEnded) this.#response.end();
    // The server's close handling aborts the handlers still running and builds a "Connection closed" error (with its
    // stack, ≈ 0.09 ms of CPU per call) for any request of its own still waiting; once every request of the POST is
    // answered there is neither, and the per-request server is simply dropped.
    if (!this.#done) this.onclose?.();
  }
}
