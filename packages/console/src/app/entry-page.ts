/**
 * One entry (rendered Markdown, metadata, tags, trust state, thread, the grants the caller made on it) and its
 * history: versions, a diff, restore.
 */
import { api } from "./api.js";
import { button, field, h, replace, when } from "./dom.js";
import { lineDiff } from "./line-diff.js";
import { renderMarkdown } from "./markdown.js";
import { entryHref, loading, notice, problemBox, tagList, trustBadge } from "./views.js";

interface Entry {
  id: string;
  thread_id: string;
  source: string;
  owner: string;
  visibility: string;
  content_type: string;
  kind: string;
  title: string | null;
  summary: string;
  metadata: Record<string, unknown>;
  tags: string[];
  version: number;
  trust_state: string;
  trust_reasons: string[];
  created_at: string | null;
  updated_at: string | null;
  text: string;
  images: { ordinal: number; mime_type: string; byte_size: number; data?: string }[];
}

interface Version {
  version: number;
  current: boolean;
  text: string;
  change: string;
  restored_from: number | null;
  written_by: string;
  written_at: string | null;
  title: string | null;
}
interface History {
  context_id: string;
  latest_version: number;
  deleted: boolean;
  versions: Version[];
}

/** A grant as GET /sharing/grants lists it. */
interface Grant {
  context_id: string | null;
  thread_id: string | null;
  grantee_kind: "subject" | "group";
  grantee: string;
  permission: "read" | "write";
  grantor: string;
  created_at: string | null;
}

/** Image types a browser shows without running anything (no SVG: it can carry script). */
const safeImageTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

function metaList(rows: [string, Node | string][]): HTMLElement {
  return h(
    "dl",
    { class: "meta" },
    rows.flatMap(([name, value]) => [h("dt", {}, name), h("dd", {}, value)]),
  );
}

export function entryPage(view: HTMLElement, id: string): void {
  replace(view, loading());
  api<Entry>("GET", `/entries/${encodeURIComponent(id)}`, {
    query: { include_quarantined: true, include_images: true },
  }).then(
    ({ body: entry }) => {
      const images = entry.images
        .filter((image) => image.data !== undefined && safeImageTypes.has(image.mime_type))
        .map((image) =>
          h("img", {
            src: `data:${image.mime_type};base64,${image.data ?? ""}`,
            alt: `Image ${image.ordinal + 1} of the entry`,
          }),
        );
      replace(
        view,
        h("h1", {}, entry.title ?? "(untitled entry)"),
        h("p", {}, h("a", { href: `${entryHref(entry.id)}/history` }, "History and restore")),
        metaList([
          ["Id", entry.id],
          ["Kind", entry.kind],
          ["Thread", h("a", { href: `#/thread/${encodeURIComponent(entry.thread_id)}` }, entry.thread_id)],
          ["Trust state", trustBadge(entry.trust_state)],
          ["Trust reasons", entry.trust_reasons.length === 0 ? "none" : entry.trust_reasons.join(", ")],
          ["Version", String(entry.version)],
          ["Source", entry.source],
          ["Owner", entry.owner],
          ["Visibility", entry.visibility],
          ["Content type", entry.content_type],
          ["Created", when(entry.created_at)],
          ["Updated", when(entry.updated_at)],
          ["Tags", tagList(entry.tags)],
          ["Summary", entry.summary === "" ? "—" : entry.summary],
          ["Metadata", h("pre", {}, JSON.stringify(entry.metadata, null, 2))],
        ]),
        h("h2", {}, "Sharing"),
        sharingSection(entry),
        h("h2", {}, "Text"),
        renderMarkdown(entry.text),
        images.length === 0 ? null : h("div", { class: "images" }, images),
        h("details", {}, h("summary", {}, "Raw text"), h("pre", { class: "raw" }, entry.text)),
      );
    },
    (error: unknown) => replace(view, h("h1", {}, "Entry"), problemBox(error)),
  );
}

/**
 * The grants the caller made that reach the entry (on it, and its owner's on its thread; an administrator sees
 * everyone's), each with *Stop sharing*, which revokes that grant alone and lists them again.
 */
function sharingSection(entry: Entry): HTMLElement {
  const section = h("div", { id: "sharing" }, loading());
  const show = (message?: string) =>
    api<{ grants: Grant[] }>("GET", "/sharing/grants", { query: { context_id: entry.id, limit: 100 } }).then(
      ({ body }) =>
        replace(
          section,
          message === undefined ? null : notice(message),
          body.grants.length === 0
            ? h("p", { class: "muted" }, "No grants of yours reach this entry.")
            : h(
                "ul",
                {},
                body.grants.map((grant) => {
                  const who = `${grant.grantee} (${grant.grantee_kind === "group" ? "group" : "person"})`;
                  const where =
                    grant.thread_id === null ? "this entry" : `${grant.grantor}'s entries in thread ${grant.thread_id}`;
                  return h(
                    "li",
                    {},
                    `${who} may ${grant.permission} ${where} (granted by ${grant.grantor}, ${when(grant.created_at)}) `,
                    button(
                      "Stop sharing",
                      () => {
                        api<{ revoked_count: number }>("POST", "/sharing/revocations", {
                          body: {
                            ...(grant.thread_id === null
                              ? { context_ids: [entry.id] }
                              : { thread_id: grant.thread_id }),
                            ...(grant.grantee_kind === "group"
                              ? { groups: [grant.grantee] }
                              : { subjects: [grant.grantee] }),
                            permission: grant.permission,
                          },
                        }).then(
                          ({ body: revoked }) => show(`Revoked ${revoked.revoked_count} grant(s).`),
                          (error: unknown) => replace(section, problemBox(error)),
                        );
                      },
                      { "aria-label": `Stop sharing with ${who}` },
                    ),
                  );
                }),
              ),
        ),
      (error: unknown) => replace(section, problemBox(error)),
    );
  void show();
  return section;
}

export function historyPage(view: HTMLElement, id: string, message?: string): void {
  replace(view, loading());
  const path = `/entries/${encodeURIComponent(id)}`;
  api<History>("GET", `${path}/versions`, { query: { limit: 100 } }).then(
    ({ body: history }) => showHistory(view, id, path, history, message),
    (error: unknown) => replace(view, h("h1", {}, "History"), problemBox(error)),
  );
}

/** The history page of entry `id`: its versions, each but the current one restorable, and a diff of two. */
function showHistory(view: HTMLElement, id: string, path: string, history: History, message: string | undefined): void {
  const status = h("div", { "aria-live": "polite" }, message === undefined ? null : notice(message));
  const restore = (version: number) => {
    api<{ version: number }>("POST", `${path}/versions/${version}/restore`, {
      headers: { "if-match": `"${history.latest_version}"` },
    }).then(
      ({ body }) => historyPage(view, id, `Restored version ${version}; it is now version ${body.version}.`),
      (error: unknown) => replace(status, problemBox(error)),
    );
  };
  const rows = history.versions.map((version) => versionRow(version, restore));
  const options = () =>
    history.versions.map((version) => h("option", { value: version.version }, `Version ${version.version}`));
  const from = h("select", { id: "diff-from" }, options());
  const to = h("select", { id: "diff-to" }, options());
  // Newest first: compare the previous version with the current one unless the reader picks others.
  from.selectedIndex = Math.min(1, history.versions.length - 1);
  to.selectedIndex = 0;
  const diffOutput = h("div", { "aria-live": "polite" });
  replace(
    view,
    h("h1", {}, "History"),
    h("p", {}, h("a", { href: entryHref(id) }, "Back to the entry"), history.deleted ? " · this entry is deleted" : ""),
    status,
    versionTable(history, rows),
    h("h2", {}, "Compare versions"),
    h(
      "form",
      { class: "stack", id: "diff-form" },
      field("From", from),
      field("To", to),
      h("button", { type: "submit" }, "Show diff"),
    ),
    diffOutput,
  );
  view.querySelector("#diff-form")?.addEventListener("submit", (event) => {
    event.preventDefault();
    showDiff(history.versions, from.value, to.value, diffOutput);
  });
}

/** One version as a row of the history table, with *Restore* unless it is the current one. */
function versionRow(version: Version, restore: (version: number) => void): HTMLTableRowElement {
  return h(
    "tr",
    {},
    h("td", {}, String(version.version), version.current ? " (current)" : ""),
    h("td", {}, version.change, version.restored_from === null ? "" : ` from ${version.restored_from}`),
    h("td", {}, version.written_by),
    h("td", {}, when(version.written_at)),
    h("td", {}, version.current ? null : button(`Restore version ${version.version}`, () => restore(version.version))),
  );
}

function versionTable(history: History, rows: HTMLTableRowElement[]): HTMLTableElement {
  return h(
    "table",
    {},
    h("caption", { class: "muted" }, `${history.versions.length} version(s), newest first`),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Version", "Change", "Written by", "Written at", ""].map((name) => h("th", { scope: "col" }, name)),
      ),
    ),
    h("tbody", {}, rows),
  );
}

/** The line diff from the version numbered `fromValue` to the one numbered `toValue`, in `diffOutput`. */
function showDiff(versions: Version[], fromValue: string, toValue: string, diffOutput: HTMLElement): void {
  const before = versions.find((version) => String(version.version) === fromValue);
  const after = versions.find((version) => String(version.version) === toValue);
  if (before === undefined || after === undefined) return;
  const lines = lineDiff(before.text, after.text);
  replace(
    diffOutput,
    h("h3", {}, `Version ${before.version} → version ${after.version}`),
    h(
      "div",
      { class: "diff", role: "region", "aria-label": "Line diff" },
      lines.map((line) =>
        h(
          line.kind === "same" ? "span" : line.kind === "added" ? "ins" : "del",
          { class: line.kind },
          `${line.kind === "same" ? "  " : line.kind === "added" ? "+ " : "- "}${line.text}`,
        ),
      ),
    ),
  );
}
