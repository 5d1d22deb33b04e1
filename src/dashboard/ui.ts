// Small DOM helpers: elements are built with text nodes only (no innerHTML), so stored content can
// never become markup.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el: Element, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

export function replace(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  append(el, children);
}

export function empty(message: string): HTMLElement {
  return h("p", { class: "empty" }, message);
}

export function errorLine(err: unknown): HTMLElement {
  return h("p", { class: "error", role: "alert" }, err instanceof Error ? err.message : String(err));
}

/** Text cut to `max` characters, with an ellipsis when it was longer. */
export function excerpt(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

const SVG = "http://www.w3.org/2000/svg";

/** A sparkline of the values as an inline SVG, labelled for screen readers. */
export function sparkline(values: number[], label: string, width = 120, height = 28): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "spark");
  svg.setAttribute("width", String(width));
  svg.setAttribute("height", String(height));
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? (width - 4) / (values.length - 1) : 0;
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", values.map((v, i) => `${(2 + i * step).toFixed(1)},${(height - 2 - (v / max) * (height - 4)).toFixed(1)}`).join(" "));
  svg.append(line);
  return svg;
}

/** A labelled horizontal bar: value against max. */
export function bar(label: string, value: number, max: number, text: string, kind = ""): HTMLElement {
  const pct = max > 0 ? Math.min(100, (value / max) * 100) : 0;
  const fill = h("span", { class: `fill ${kind}` });
  // Through the CSSOM: the page's CSP allows no inline style attributes.
  fill.style.display = "block";
  fill.style.width = `${pct.toFixed(1)}%`;
  return h("div", { class: "bar" }, h("span", {}, label), h("span", { class: "track", role: "img", "aria-label": `${label} ${text}` }, fill), h("span", {}, text));
}
