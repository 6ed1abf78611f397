/**
 * The console's entry point: sign-in with an API key or, when the gateway
 * offers it, with its OIDC issuer; the navigation and a hash router over the
 * pages. Every page talks to /api/v1 only.
 */
import { api, forgetKey, storedKey, storeKey, unauthenticatedEvent } from "./api.js";
import { auditPage } from "./audit-page.js";
import { button, field, h, replace } from "./dom.js";
import { entryPage, historyPage } from "./entry-page.js";
import { keysPage } from "./keys-page.js";
import { finishOidcSignIn, issuerHost, loadOidcSignIn, startOidcSignIn } from "./oidc-sign-in.js";
import { reviewPage } from "./review-page.js";
import { searchPage } from "./search-page.js";
import { statisticsPage } from "./statistics-page.js";
import { threadPage, threadsPage } from "./threads-page.js";
import { problemBox } from "./views.js";

interface Whoami {
  tenant: string;
  subject: string;
  scopes: string[];
}

const main = document.getElementById("main") as HTMLElement;
const nav = document.getElementById("nav") as HTMLElement;
let caller: Whoami | undefined;
/** The gateway's OIDC sign-in, read once at start; undefined: API keys only. */
const oidc = await loadOidcSignIn();

const pages: { route: string; label: string; scope?: string }[] = [
  { route: "search", label: "Search" },
  { route: "threads", label: "Threads" },
  { route: "review", label: "Review queue", scope: "context:review" },
  { route: "keys", label: "API keys", scope: "context:admin" },
  { route: "audit", label: "Audit log", scope: "context:admin" },
  { route: "statistics", label: "Statistics" },
];

function signInPage(message?: unknown): void {
  replace(nav);
  const key = h("input", { type: "password", id: "api-key", required: true, autocomplete: "off", class: "wide" });
  const form = h(
    "form",
    { class: "stack", id: "sign-in" },
    h(
      "p",
      {},
      "Sign in with an API key. It is kept in this tab's session storage only and sent as a bearer credential.",
    ),
    field("API key", key),
    h("button", { type: "submit", class: "primary" }, "Sign in"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    storeKey(key.value.trim());
    signIn().then(route, signInFailed);
  });
  const issuer =
    oidc === undefined
      ? null
      : h(
          "div",
          { class: "stack", id: "oidc" },
          h("p", {}, "Or sign in with your organisation's account; the access token is kept the same way."),
          button(
            `Sign in with ${issuerHost(oidc)}`,
            () => {
              startOidcSignIn(oidc).catch((error: unknown) => signInPage(error));
            },
            { id: "oidc-sign-in", class: "primary" },
          ),
        );
  replace(main, h("h1", {}, "Sign in"), message === undefined ? null : problemBox(message), form, issuer);
  key.focus();
}

/** Back to sign-in with why; a 401 has already done so (the unauthenticated event), any other failure does it here. */
function signInFailed(error: unknown): void {
  if (storedKey() === null) return;
  forgetKey();
  signInPage(error);
}

async function signIn(): Promise<void> {
  caller = (await api<Whoami>("GET", "/whoami")).body;
}

function signOut(): void {
  forgetKey();
  caller = undefined;
  // Clearing a hash fires hashchange, whose route() draws the sign-in page; drawing it here as well would draw it
  // twice, and a key typed into the first form would be lost to the second.
  if (location.hash === "" || location.hash === "#") signInPage();
  else location.hash = "";
}

function drawNav(current: string): void {
  if (caller === undefined) return;
  const scopes = caller.scopes;
  replace(
    nav,
    h(
      "ul",
      {},
      pages
        .filter((page) => page.scope === undefined || scopes.includes(page.scope))
        .map((page) =>
          h(
            "li",
            {},
            h("a", { href: `#/${page.route}`, "aria-current": page.route === current ? "page" : false }, page.label),
          ),
        ),
      h("li", { class: "muted", id: "signed-in-as" }, `${caller.subject} @ ${caller.tenant}`),
      h("li", {}, button("Sign out", signOut, { id: "sign-out" })),
    ),
  );
}

/** Shows the page the hash names: `#/search?q=…`, `#/entry/<id>`, `#/entry/<id>/history`, `#/thread/<id>`, … */
function route(): void {
  if (caller === undefined) {
    signInPage();
    return;
  }
  const hash = location.hash.replace(/^#\/?/, "");
  const [path = "", queryText = ""] = hash.split("?", 2);
  const params = new URLSearchParams(queryText);
  const segments = path.split("/").map((segment) => decodeURIComponent(segment));
  const [name = "", id = "", sub = ""] = segments;
  drawNav(name === "" || name === "entry" ? "search" : name === "thread" ? "threads" : name);
  const view = h("div");
  replace(main, view);
  switch (name) {
    case "entry":
      if (sub === "history") historyPage(view, id);
      else entryPage(view, id);
      break;
    case "thread":
      threadPage(view, id, params.get("cursor") ?? undefined);
      break;
    case "threads":
      threadsPage(view, params.get("cursor") ?? undefined);
      break;
    case "review":
      reviewPage(view);
      break;
    case "keys":
      keysPage(view);
      break;
    case "audit":
      auditPage(view, params.get("cursor") ?? undefined);
      break;
    case "statistics":
      statisticsPage(view);
      break;
    default:
      searchPage(view, params);
  }
  main.focus();
}

window.addEventListener("hashchange", route);
window.addEventListener(unauthenticatedEvent, (event) => {
  forgetKey();
  caller = undefined;
  signInPage((event as CustomEvent<unknown>).detail);
});
// A return from the issuer (?code=…&state=… or ?error=…) is finished first; a refused one leaves nothing stored.
finishOidcSignIn(oidc).then(
  () => {
    if (storedKey() === null) signInPage();
    else signIn().then(route, signInFailed);
  },
  (error: unknown) => {
    forgetKey();
    signInPage(error);
  },
);
