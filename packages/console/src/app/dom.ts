/**
 * Building DOM nodes without markup: every string becomes a text node or an
 * attribute value, never HTML, so stored text cannot turn into elements or
 * script. Event-handler and style attributes are refused outright.
 */

export type Child = Node | string | number | null | undefined | false;
export type Attributes = Record<string, string | number | boolean | null | undefined>;

/** An element with `attributes` (false/null/undefined leave one out, true sets it empty) and `children` as nodes or text. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  append(element, ...children);
  return element;
}

const svgNamespace = "http://www.w3.org/2000/svg";

/** An SVG element, with the same rules as `h`. */
export function svg(tag: string, attributes: Attributes = {}, ...children: (Child | Child[])[]): SVGElement {
  const element = document.createElementNS(svgNamespace, tag) as SVGElement;
  setAttributes(element, attributes);
  append(element, ...children);
  return element;
}

function setAttributes(element: Element, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (/^on/i.test(name) || name.toLowerCase() === "style") throw new Error(`refusing attribute ${name}`);
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
}

/** Appends children to `parent`: nodes as they are, strings and numbers as text. */
export function append(parent: Node, ...children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(
      typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child,
    );
  }
}

/** Replaces everything in `parent` with `children`. */
export function replace(parent: Node, ...children: (Child | Child[])[]): void {
  while (parent.firstChild !== null) parent.removeChild(parent.firstChild);
  append(parent, ...children);
}

/** A button that runs `action` when pressed (by mouse or keyboard). */
export function button(
  label: string,
  action: (event: MouseEvent) => void,
  attributes: Attributes = {},
): HTMLButtonElement {
  const element = h("button", { type: "button", ...attributes }, label);
  element.addEventListener("click", action);
  return element;
}

/** A labelled control: the label names the input through `for`. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): HTMLElement {
  if (control.id === "") control.id = uniqueId("field");
  return h("div", {}, h("label", { for: control.id }, label), control);
}

let nextId = 0;
/** An id unique within the page. */
export function uniqueId(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** A timestamp as the reader's locale shows it, or a dash. */
export function when(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
