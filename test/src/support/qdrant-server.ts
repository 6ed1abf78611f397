/**
 * A stand-in for Qdrant in tests: a local HTTP server speaking Qdrant's REST
 * protocol (request and response shapes of Qdrant's OpenAPI, as
 * @qdrant/js-client-rest sends and reads them) for exactly the endpoints the
 * store uses: the root, collections (exists, create, get, delete), payload
 * index creation, points (upsert, get by id, scroll, delete by id or filter, count)
 * and search (`points/query` and the older `points/search`) with filters
 * (`must`, `should`, `must_not`, nested filters, `match` value / any /
 * except, `range`, `has_id`). Scores are exact cosine similarities, ranked
 * best first (ties by id), so results are what a real Qdrant with exact
 * search returns. Data lives in memory for the server's life.
 *
 * `startQdrantTarget()` returns this server, or the real Qdrant at
 * QDRANT_URL when that is set, behind a TCP proxy that can cut the
 * connection (an outage) and restore it; the vector contract suite runs
 * against whichever it gets.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, createServer as createTcpServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

type Payload = Record<string, unknown>;

interface StoredPoint {
  id: string | number;
  vector: number[];
  /** The vector scaled to unit length, as Qdrant stores it for cosine distance. */
  unit: number[];
  payload: Payload;
}

interface Collection {
  size: number;
  distance: string;
  points: Map<string, StoredPoint>;
  payloadSchema: Record<string, unknown>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function normalise(vector: readonly number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return norm === 0 ? vector.map(() => 0) : vector.map((value) => value / norm);
}

const dot = (a: readonly number[], b: readonly number[]) =>
  a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);

/** Payload values at a key: an array's elements, or the value itself. */
function valuesAt(payload: Payload, key: string): unknown[] {
  const value = payload[key];
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function isFilter(condition: Record<string, unknown>): boolean {
  return "must" in condition || "should" in condition || "must_not" in condition;
}

function asList(value: unknown): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]) as Record<string, unknown>[];
}

function matchesCondition(point: StoredPoint, condition: Record<string, unknown>): boolean {
  if (isFilter(condition)) return matchesFilter(point, condition);
  if ("has_id" in condition) return (condition.has_id as unknown[]).map(String).includes(String(point.id));
  const key = condition.key;
  if (typeof key !== "string") throw new HttpError(400, "Format error in JSON body: condition without key");
  const values = valuesAt(point.payload, key);
  if ("match" in condition) {
    const match = condition.match as Record<string, unknown>;
    if ("value" in match) return values.some((value) => value === match.value);
    if ("any" in match) return values.some((value) => (match.any as unknown[]).includes(value));
    if ("except" in match)
      return values.length > 0 && values.every((value) => !(match.except as unknown[]).includes(value));
    throw new HttpError(400, "Format error in JSON body: unsupported match");
  }
  if ("range" in condition) {
    const range = condition.range as Record<string, number | null | undefined>;
    return values.some((raw) => {
      if (typeof raw !== "number") return false;
      if (range.gt != null && !(raw > range.gt)) return false;
      if (range.gte != null && !(raw >= range.gte)) return false;
      if (range.lt != null && !(raw < range.lt)) return false;
      if (range.lte != null && !(raw <= range.lte)) return false;
      return true;
    });
  }
  if ("is_empty" in condition)
    return valuesAt(point.payload, String((condition.is_empty as { key: string }).key)).length === 0;
  throw new HttpError(400, "Format error in JSON body: unsupported condition");
}

function matchesFilter(point: StoredPoint, filter: Record<string, unknown> | null | undefined): boolean {
  if (filter === null || filter === undefined) return true;
  const must = asList(filter.must);
  const should = asList(filter.should);
  const mustNot = asList(filter.must_not);
  if (!must.every((condition) => matchesCondition(point, condition))) return false;
  if (should.length > 0 && !should.some((condition) => matchesCondition(point, condition))) return false;
  return !mustNot.some((condition) => matchesCondition(point, condition));
}

function selectPayload(payload: Payload, selector: unknown): Payload | undefined {
  if (selector === false || selector === undefined || selector === null) return undefined;
  if (selector === true) return { ...payload };
  if (Array.isArray(selector))
    return Object.fromEntries(
      selector.filter((key: string) => key in payload).map((key: string) => [key, payload[key]]),
    );
  const include = (selector as { include?: string[] }).include;
  if (include !== undefined)
    return Object.fromEntries(include.filter((key) => key in payload).map((key) => [key, payload[key]]));
  return { ...payload };
}

const pointKey = (id: unknown) => String(id).toLowerCase();

export interface FakeQdrant {
  url: string;
  /** Points of a collection, for assertions (empty when it does not exist). */
  points(collection: string): { id: string; vector: number[]; payload: Payload }[];
  collections(): string[];
  /** Requests served so far, as `METHOD path`. */
  requests: string[];
  close(): Promise<void>;
}

/** Starts the stand-in on a free loopback port. */
export async function startFakeQdrant(): Promise<FakeQdrant> {
  const collections = new Map<string, Collection>();
  const requests: string[] = [];
  let operation = 0;

  function collectionOf(name: string): Collection {
    const found = collections.get(name);
    if (found === undefined) throw new HttpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return found;
  }

  function search(collection: Collection, body: Record<string, unknown>, vectorField: "query" | "vector") {
    let raw = body[vectorField];
    if (raw !== null && typeof raw === "object" && !Array.isArray(raw) && "nearest" in raw)
      raw = (raw as { nearest: unknown }).nearest;
    if (!Array.isArray(raw))
      throw new HttpError(400, "Format error in JSON body: this stand-in supports only a dense vector query");
    if (raw.length !== collection.size)
      throw new HttpError(
        400,
        `Wrong input: Vector dimension error: expected dim: ${collection.size}, got ${raw.length}`,
      );
    const query = normalise(raw as number[]);
    const limit = Number(body.limit ?? 10);
    const offset = Number(body.offset ?? 0);
    const threshold = body.score_threshold as number | undefined | null;
    const scored = [...collection.points.values()]
      .filter((point) => matchesFilter(point, body.filter as Record<string, unknown> | undefined))
      .map((point) => ({ point, score: dot(query, point.unit) }))
      .filter((hit) => threshold == null || hit.score >= threshold)
      .sort((a, b) => b.score - a.score || (pointKey(a.point.id) < pointKey(b.point.id) ? -1 : 1))
      .slice(offset, offset + limit);
    return scored.map(({ point, score }) => {
      const payload = selectPayload(point.payload, body.with_payload ?? (vectorField === "query" ? true : false));
      return {
        id: point.id,
        version: 0,
        score,
        ...(payload === undefined ? {} : { payload }),
        ...(body.with_vector === true ? { vector: point.vector } : {}),
      };
    });
  }

  function route(method: string, path: string, body: Record<string, unknown>): unknown {
    if (method === "GET" && path === "/")
      return { title: "qdrant - vector search engine (test stand-in)", version: "1.17.0" };
    const parts = path
      .split("/")
      .filter((part) => part !== "")
      .map(decodeURIComponent);
    if (parts[0] !== "collections") throw new HttpError(404, `Not found: ${path}`);
    if (parts.length === 1 && method === "GET")
      return { collections: [...collections.keys()].map((name) => ({ name })) };
    const name = parts[1] ?? "";
    const rest = parts.slice(2).join("/");
    const ack = () => ({ operation_id: (operation += 1), status: "completed" });
    switch (`${method} ${rest}`) {
      case "GET exists":
        return { exists: collections.has(name) };
      case "PUT ": {
        if (collections.has(name)) throw new HttpError(409, `Wrong input: Collection \`${name}\` already exists!`);
        const vectors = body.vectors as { size?: number; distance?: string } | undefined;
        if (vectors === undefined || typeof vectors.size !== "number" || vectors.size < 1)
          throw new HttpError(400, "Format error in JSON body: vectors.size is required");
        if (vectors.distance !== "Cosine") throw new HttpError(400, "this stand-in supports only Cosine distance");
        collections.set(name, { size: vectors.size, distance: vectors.distance, points: new Map(), payloadSchema: {} });
        return true;
      }
      case "GET ": {
        const collection = collectionOf(name);
        return {
          status: "green",
          optimizer_status: "ok",
          points_count: collection.points.size,
          indexed_vectors_count: collection.points.size,
          segments_count: 1,
          config: { params: { vectors: { size: collection.size, distance: collection.distance } } },
          payload_schema: collection.payloadSchema,
        };
      }
      case "DELETE ":
        return collections.delete(name);
      case "PUT index": {
        const collection = collectionOf(name);
        if (typeof body.field_name !== "string")
          throw new HttpError(400, "Format error in JSON body: field_name is required");
        collection.payloadSchema[body.field_name] = {
          data_type:
            typeof body.field_schema === "string" ? body.field_schema : (body.field_schema as { type: string }).type,
          points: collection.points.size,
        };
        return ack();
      }
      case "PUT points": {
        const collection = collectionOf(name);
        const points = body.points as { id: string | number; vector: number[]; payload?: Payload }[] | undefined;
        if (!Array.isArray(points))
          throw new HttpError(400, "Format error in JSON body: this stand-in supports the points list form");
        for (const point of points) {
          if (!Array.isArray(point.vector) || point.vector.length !== collection.size) {
            throw new HttpError(
              400,
              `Wrong input: Vector dimension error: expected dim: ${collection.size}, got ${Array.isArray(point.vector) ? point.vector.length : 0}`,
            );
          }
        }
        for (const point of points)
          collection.points.set(pointKey(point.id), {
            id: point.id,
            vector: point.vector,
            unit: normalise(point.vector),
            payload: point.payload ?? {},
          });
        return ack();
      }
      case "POST points": {
        const collection = collectionOf(name);
        const ids = (body.ids as unknown[] | undefined) ?? [];
        return ids.flatMap((id) => {
          const point = collection.points.get(pointKey(id));
          if (point === undefined) return [];
          const payload = selectPayload(point.payload, body.with_payload ?? true);
          return [
            {
              id: point.id,
              ...(payload === undefined ? {} : { payload }),
              ...(body.with_vector === true ? { vector: point.vector } : {}),
            },
          ];
        });
      }
      case "POST points/delete": {
        const collection = collectionOf(name);
        if (Array.isArray(body.points)) {
          for (const id of body.points) collection.points.delete(pointKey(id));
        } else if (body.filter !== undefined) {
          for (const [key, point] of collection.points)
            if (matchesFilter(point, body.filter as Record<string, unknown>)) collection.points.delete(key);
        } else {
          throw new HttpError(400, "Format error in JSON body: points or filter is required");
        }
        return ack();
      }
      case "POST points/scroll": {
        const collection = collectionOf(name);
        const limit = Number(body.limit ?? 10);
        const sorted = [...collection.points.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        const from =
          body.offset === undefined || body.offset === null
            ? 0
            : sorted.findIndex(([key]) => key >= pointKey(body.offset));
        const page = sorted
          .slice(from < 0 ? sorted.length : from)
          .filter(([, point]) => matchesFilter(point, body.filter as Record<string, unknown> | undefined))
          .slice(0, limit + 1);
        return {
          points: page.slice(0, limit).map(([, point]) => {
            const payload = selectPayload(point.payload, body.with_payload ?? true);
            return {
              id: point.id,
              ...(payload === undefined ? {} : { payload }),
              ...(body.with_vector === true ? { vector: point.vector } : {}),
            };
          }),
          next_page_offset: page[limit]?.[1].id ?? null,
        };
      }
      case "POST points/count": {
        const collection = collectionOf(name);
        return {
          count: [...collection.points.values()].filter((point) =>
            matchesFilter(point, body.filter as Record<string, unknown> | undefined),
          ).length,
        };
      }
      case "POST points/query":
        return { points: search(collectionOf(name), body, "query") };
      case "POST points/search":
        return search(collectionOf(name), body, "vector");
      default:
        throw new HttpError(404, `Not found: ${method} ${path} is not served by this stand-in`);
    }
  }

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const started = performance.now();
      const path = new URL(request.url ?? "/", "http://qdrant").pathname;
      requests.push(`${request.method ?? "GET"} ${path}`);
      let status = 200;
      let reply: unknown;
      try {
        const text = Buffer.concat(chunks).toString("utf8");
        const body = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
        reply = {
          result: route(request.method ?? "GET", path, body),
          status: "ok",
          time: (performance.now() - started) / 1000,
        };
        if (path === "/") reply = (reply as { result: unknown }).result;
      } catch (error) {
        status = error instanceof HttpError ? error.status : error instanceof SyntaxError ? 400 : 500;
        reply = {
          status: { error: error instanceof Error ? error.message : String(error) },
          time: (performance.now() - started) / 1000,
        };
      }
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    points(collection) {
      return [...(collections.get(collection)?.points.values() ?? [])].map((point) => ({
        id: String(point.id),
        vector: point.vector,
        payload: point.payload,
      }));
    },
    collections: () => [...collections.keys()],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A TCP proxy whose link can be cut: while down, connections are refused (closed at once) and open ones are dropped. */
export interface OutageProxy {
  url: string;
  /** Cuts every connection and refuses new ones until `restore`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startOutageProxy(targetUrl: string): Promise<OutageProxy> {
  const target = new URL(targetUrl);
  const targetPort = Number(target.port || (target.protocol === "https:" ? 443 : 80));
  const sockets = new Set<Socket>();
  let down = false;
  const server = createTcpServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, target.hostname);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${target.protocol}//127.0.0.1:${port}`,
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Qdrant for a test: the real one at QDRANT_URL when set, else the stand-in; `fake` is set only for the stand-in. */
export interface QdrantTarget {
  url: string;
  apiKey: string;
  kind: "real" | "stand-in";
  fake: FakeQdrant | undefined;
  close(): Promise<void>;
}

export async function startQdrantTarget(): Promise<QdrantTarget> {
  const real = process.env.QDRANT_URL;
  if (real !== undefined && real !== "") {
    return {
      url: real,
      apiKey: process.env.QDRANT_API_KEY ?? "",
      kind: "real",
      fake: undefined,
      close: async () => undefined,
    };
  }
  const fake = await startFakeQdrant();
  return { url: fake.url, apiKey: "", kind: "stand-in", fake, close: () => fake.close() };
}
