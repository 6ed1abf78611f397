/** API keys for administrators: create (the key is shown once), list, revoke. */
import { api } from "./api.js";
import { button, field, h, replace, when } from "./dom.js";
import { loading, notice, problemBox } from "./views.js";

interface ApiKey {
  id: string;
  hint: string;
  subject: string;
  groups: string[];
  scopes: string[];
  description: string;
  expires_at: string | null;
  created_at: string | null;
  revoked_at: string | null;
}

const allScopes = ["context:read", "context:write", "context:review", "context:admin"];

export function keysPage(view: HTMLElement): void {
  const inputs = keyInputs();
  const created = h("div", { "aria-live": "polite" });
  const list = h("div", {}, loading());
  const form = keyForm(inputs);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    api<ApiKey & { key: string }>("POST", "/api-keys", { body: keyRequest(inputs) }).then(
      ({ body: key }) => {
        showNewKey(created, key);
        form.reset();
        refresh();
      },
      (error: unknown) => replace(created, problemBox(error)),
    );
  });
  const refresh = () => {
    api<{ keys: ApiKey[] }>("GET", "/api-keys", { query: { include_revoked: true } }).then(
      ({ body }) => replace(list, keyTable(body.keys, created, refresh)),
      (error: unknown) => replace(list, problemBox(error)),
    );
  };
  replace(view, h("h1", {}, "API keys"), created, form, h("h2", {}, "Keys of your tenant"), list);
  refresh();
}

/** The controls of the create form. */
interface KeyInputs {
  subject: HTMLInputElement;
  groups: HTMLInputElement;
  description: HTMLInputElement;
  scopeBoxes: HTMLInputElement[];
}

function keyInputs(): KeyInputs {
  const subject = h("input", { type: "text", id: "key-subject", required: true, maxlength: 256 });
  const groups = h("input", { type: "text", id: "key-groups", placeholder: "comma-separated" });
  const description = h("input", { type: "text", id: "key-description", class: "wide", maxlength: 1000 });
  const scopeBoxes = allScopes.map((scope) =>
    h("input", {
      type: "checkbox",
      id: `scope-${scope.replace(":", "-")}`,
      value: scope,
      checked: scope === "context:read" || scope === "context:write",
    }),
  );
  return { subject, groups, description, scopeBoxes };
}

function keyForm({ subject, groups, description, scopeBoxes }: KeyInputs): HTMLFormElement {
  return h(
    "form",
    { class: "stack", id: "create-key" },
    h("h2", {}, "Create a key"),
    field("Subject", subject),
    field("Groups", groups),
    field("Description", description),
    h(
      "fieldset",
      {},
      h("legend", {}, "Scopes"),
      scopeBoxes.map((box) => h("label", { for: box.id }, box, ` ${box.value}`)),
    ),
    h("button", { type: "submit", class: "primary" }, "Create key"),
  );
}

/** The body of `POST /api-keys` from the form's controls. */
function keyRequest({ subject, groups, description, scopeBoxes }: KeyInputs) {
  return {
    subject: subject.value,
    groups: groups.value
      .split(",")
      .map((group) => group.trim())
      .filter((group) => group !== ""),
    scopes: scopeBoxes.filter((box) => box.checked).map((box) => box.value),
    ...(description.value === "" ? {} : { description: description.value }),
  };
}

/** Shows a new key once, selected for copying, in `created`. */
function showNewKey(created: HTMLElement, key: ApiKey & { key: string }): void {
  const secret = h("input", { type: "text", id: "new-key", class: "once", readonly: true });
  secret.value = key.key;
  replace(
    created,
    h(
      "div",
      { class: "notice", role: "status" },
      h("p", {}, h("strong", {}, `Key created for ${key.subject}.`), " Copy it now: it is shown only once."),
      field("New key", secret),
      button("Done", () => replace(created)),
    ),
  );
  secret.select();
}

/** The tenant's keys, revoked ones included; revoking one reports in `created` and calls `refresh`. */
function keyTable(keys: ApiKey[], created: HTMLElement, refresh: () => void): HTMLTableElement {
  return h(
    "table",
    { id: "key-list" },
    h("caption", { class: "muted" }, `${keys.length} key(s)`),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Hint", "Subject", "Scopes", "Description", "Created", "Revoked", ""].map((name) =>
          h("th", { scope: "col" }, name),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      keys.map((key) => keyRow(key, created, refresh)),
    ),
  );
}

function keyRow(key: ApiKey, created: HTMLElement, refresh: () => void): HTMLTableRowElement {
  return h(
    "tr",
    { "data-key-id": key.id },
    h("td", {}, h("code", {}, key.hint)),
    h("td", {}, key.subject),
    h("td", {}, key.scopes.join(", ")),
    h("td", {}, key.description),
    h("td", {}, when(key.created_at)),
    h("td", { class: "revoked" }, key.revoked_at === null ? "—" : when(key.revoked_at)),
    h(
      "td",
      {},
      key.revoked_at !== null
        ? null
        : button(
            `Revoke ${key.hint}`,
            () =>
              api("DELETE", `/api-keys/${encodeURIComponent(key.id)}`).then(
                () => {
                  replace(created, notice(`Revoked the key ${key.hint} of ${key.subject}.`));
                  refresh();
                },
                (error: unknown) => replace(created, problemBox(error)),
              ),
            { class: "danger" },
          ),
    ),
  );
}
