/**
 * The MCP App view of search results: the document a host that renders MCP
 * Apps (the ext-apps extension) shows beside a search tool's result. It
 * speaks the host side's JSON-RPC over postMessage by hand (`ui/initialize`,
 * then `ui/notifications/initialized`), takes the tool's arguments from
 * `ui/notifications/tool-input` and its result from
 * `ui/notifications/tool-result`, and renders each hit with the console's
 * own hit view: every stored string becomes text, never markup. It loads
 * nothing and connects nowhere; the gateway inlines it into one HTML
 * document (packages/console/src/mcp-app.ts).
 */
import { h, replace } from "./dom.js";
import { hitView, type Hit, type Leg } from "./search-hits.js";

/** The MCP Apps revision this view speaks. */
const protocolVersion = "2026-01-26";

type Json = Record<string, unknown>;
interface Message {
  jsonrpc: "2.0";
  id?: string | number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

const view = document.getElementById("view") ?? document.body;
let query: string | undefined;
let initialized = false;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const number = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

function post(message: Omit<Message, "jsonrpc">): void {
  // The host's origin is not known inside the host's sandbox; what is sent is the view's own state, never a secret.
  window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
}

let nextId = 1;
const pending = new Map<string | number, (message: Message) => void>();

function request(method: string, params: Json): Promise<Message> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    post({ id, method, params });
  });
}

/** One leg of a hit's explain, or null when absent or not shaped as one. */
function legOf(value: unknown): Leg | null {
  if (!isObject(value)) return null;
  const rank = number(value.rank);
  const score = number(value.score);
  if (rank === undefined || score === undefined) return null;
  return { rank, score, contribution: number(value.contribution) ?? null };
}

/**
 * A result of any of the search tools as a hit: entries (full text,
 * semantic, hybrid) carry a preview and a rank; deep_search's passages carry
 * their text and are shown in their order. Anything not shaped as expected
 * is shown as missing rather than trusted.
 */
function hitOf(value: unknown, index: number): Hit | undefined {
  if (!isObject(value)) return undefined;
  const id = text(value.id) ?? "";
  const explain = isObject(value.explain)
    ? {
        fts: legOf(value.explain.fts),
        semantic: legOf(value.explain.semantic),
        fused: number(value.explain.fused) ?? null,
        rerank: legOf(value.explain.rerank),
      }
    : undefined;
  return {
    id,
    title: text(value.title) ?? null,
    kind: text(value.kind) ?? "entry",
    thread_id: text(value.thread_id) ?? "—",
    trust_state: text(value.trust_state) ?? "unknown",
    preview: text(value.preview) ?? text(value.text) ?? text(value.summary) ?? "",
    rank: number(value.rank) ?? index + 1,
    score: number(value.score) ?? 0,
    ...(explain === undefined ? {} : { explain }),
  };
}

/** Arrow keys, Home and End move between the hits; Tab reaches each of them too. */
function moveFocus(list: HTMLElement, event: KeyboardEvent): void {
  const items = [...list.querySelectorAll<HTMLElement>(":scope > li")];
  const at = items.indexOf(document.activeElement as HTMLElement);
  if (at < 0) return;
  const target =
    event.key === "ArrowDown"
      ? items[Math.min(at + 1, items.length - 1)]
      : event.key === "ArrowUp"
        ? items[Math.max(at - 1, 0)]
        : event.key === "Home"
          ? items[0]
          : event.key === "End"
            ? items[items.length - 1]
            : undefined;
  if (target === undefined) return;
  event.preventDefault();
  target.focus();
}

function showResult(params: unknown): void {
  const result = isObject(params) ? params : {};
  if (result.isError === true) {
    const content = Array.isArray(result.content) ? result.content : [];
    const message = content.map((part) => (isObject(part) ? (text(part.text) ?? "") : "")).join("\n");
    replace(view, h("div", { class: "problem", role: "alert" }, h("p", {}, "The search failed: ", message)));
    return;
  }
  const structured = isObject(result.structuredContent) ? result.structuredContent : {};
  const raw: unknown[] = Array.isArray(structured.results) ? structured.results : [];
  const hits = raw.map(hitOf).filter((hit): hit is Hit => hit !== undefined);
  const warnings = (Array.isArray(structured.warnings) ? structured.warnings : []).filter(
    (warning): warning is string => typeof warning === "string",
  );
  const list = h(
    "ol",
    { class: "hits", "aria-label": "Search results" },
    hits.map((hit) => hitView(hit, hit.title === null || hit.title === "" ? hit.id : hit.title, { tabindex: 0 })),
  );
  list.addEventListener("keydown", (event) => moveFocus(list, event));
  replace(
    view,
    h(
      "p",
      { class: "muted", id: "result-count" },
      `${hits.length} result(s)`,
      query === undefined ? "" : ` for “${query}”`,
      structured.has_more === true ? "; more on the next page" : "",
    ),
    warnings.length === 0
      ? null
      : h(
          "ul",
          { class: "notice", "aria-label": "Warnings" },
          warnings.map((line) => h("li", {}, line)),
        ),
    list,
  );
}

function onNotification(method: string, params: unknown): void {
  switch (method) {
    case "ui/notifications/tool-input": {
      const args = isObject(params) && isObject(params.arguments) ? params.arguments : {};
      query = text(args.query);
      replace(
        view,
        h(
          "p",
          { class: "muted", "aria-busy": "true" },
          query === undefined ? "Searching…" : `Searching for “${query}”…`,
        ),
      );
      break;
    }
    case "ui/notifications/tool-result":
      showResult(params);
      break;
    case "ui/notifications/tool-cancelled":
      replace(view, h("p", { class: "muted" }, "The search was cancelled."));
      break;
    default:
      // Host context changes and anything newer: nothing this view shows depends on them.
      break;
  }
}

function onRequest(id: string | number, method: string): void {
  if (method === "ui/resource-teardown" || method === "ping") post({ id, result: {} });
  else post({ id, error: { code: -32601, message: `Method not found: ${method}` } });
}

window.addEventListener("message", (event: MessageEvent) => {
  if (event.source !== window.parent) return;
  const message: unknown = event.data;
  if (!isObject(message) || message.jsonrpc !== "2.0") return;
  const id = typeof message.id === "string" || typeof message.id === "number" ? message.id : undefined;
  const method = text(message.method);
  if (method === undefined) {
    if (id === undefined) return;
    const resolve = pending.get(id);
    pending.delete(id);
    resolve?.(message as unknown as Message);
  } else if (id === undefined) onNotification(method, message.params);
  else onRequest(id, method);
});

/** Tells the host the document's size, so a host that sizes the frame to its content can. */
function reportSize(): void {
  if (!initialized) return;
  const root = document.documentElement;
  post({ method: "ui/notifications/size-changed", params: { width: root.scrollWidth, height: root.scrollHeight } });
}

void request("ui/initialize", {
  protocolVersion,
  appInfo: { name: "context-hub-search-results", version: "1.0.0" },
  appCapabilities: { availableDisplayModes: ["inline"] },
}).then((answer) => {
  if (answer.error !== undefined) {
    replace(
      view,
      h("div", { class: "problem", role: "alert" }, h("p", {}, "The host refused the view: ", answer.error.message)),
    );
    return;
  }
  initialized = true;
  post({ method: "ui/notifications/initialized", params: {} });
  new ResizeObserver(reportSize).observe(document.documentElement);
});
