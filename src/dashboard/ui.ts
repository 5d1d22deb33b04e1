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

/**
 * Text cut to `max` characters, with an ellipsis when it was longer. Characters are code points, so
 * the cut never splits a surrogate pair (half an emoji would show as U+FFFD).
 */
export function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  for (let kept = 0; kept < max && end < text.length; kept++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return end < text.length ? `${text.slice(0, end)}…` : text;
}

/**
 * Calls `show` with what the browser's own form validation refused (each field by its label and the
 * browser's reason), so a form that does not submit always says why: headless and some browsers
 * show no bubble of their own.
 */
export function whenInvalid(form: HTMLFormElement, show: (message: string) => void): void {
  let problems: string[] = [];
  form.addEventListener(
    "invalid",
    (e) => {
      const input = e.target as HTMLInputElement;
      // The browser fires one event per refused field, each its own task step: gather them, then say it once.
      if (problems.length === 0) setTimeout(() => {
        show(`Not sent: ${problems.join("; ")}`);
        problems = [];
      });
      const label = input.closest("label")?.firstChild?.textContent?.trim() || input.name;
      problems.push(`${label}: ${input.validationMessage}`);
    },
    true,
  );
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

interface Satellite {
  label: string;
  /** 0..1: the stronger, the nearer the centre and the thicker its line. */
  weight: number;
  href: string;
}

/**
 * A star of related items around a centre, as an inline SVG. It is a picture for the eye only
 * (hidden from assistive technology, its links out of the tab order): the page lists the same
 * items, with the same links, as text next to it.
 */
export function star(centre: string, satellites: Satellite[]): SVGSVGElement {
  const [width, height] = [480, 300];
  const [cx, cy] = [width / 2, height / 2];
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "star");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("aria-hidden", "true");
  /** A dot with its label below it, or above it (`above`) where the label would sit on its line. */
  const node = (x: number, y: number, label: string, title: string, above = false): SVGElement[] => {
    const circle = document.createElementNS(SVG, "circle");
    circle.setAttribute("cx", x.toFixed(1));
    circle.setAttribute("cy", y.toFixed(1));
    circle.setAttribute("r", "7");
    const text = document.createElementNS(SVG, "text");
    text.setAttribute("x", x.toFixed(1));
    text.setAttribute("y", (above ? y - 12 : y + 20).toFixed(1));
    text.textContent = excerpt(label, 18);
    const tip = document.createElementNS(SVG, "title");
    tip.textContent = title;
    return [tip, circle, text];
  };
  const lines = document.createElementNS(SVG, "g");
  const nodes = document.createElementNS(SVG, "g");
  satellites.forEach((s, i) => {
    const weight = Math.min(1, Math.max(0, s.weight));
    const angle = (2 * Math.PI * i) / satellites.length - Math.PI / 2;
    // On an ellipse that fits the labels: the weakest at its rim, the strongest at about half of it.
    const reach = 1 - 0.45 * weight;
    const [x, y] = [cx + Math.cos(angle) * (cx - 70) * reach, cy + Math.sin(angle) * (cy - 40) * reach];
    const line = document.createElementNS(SVG, "line");
    for (const [k, v] of [["x1", cx], ["y1", cy], ["x2", x], ["y2", y]] as const) line.setAttribute(k, v.toFixed(1));
    line.setAttribute("stroke-width", (1 + 5 * weight).toFixed(1));
    lines.append(line);
    const link = document.createElementNS(SVG, "a");
    link.setAttribute("href", s.href);
    link.setAttribute("tabindex", "-1");
    link.append(...node(x, y, s.label, `${s.label} (${weight.toFixed(2)})`, Math.sin(angle) < -0.3));
    nodes.append(link);
  });
  const middle = document.createElementNS(SVG, "g");
  middle.setAttribute("class", "centre");
  middle.append(...node(cx, cy, centre, centre));
  svg.append(lines, nodes, middle);
  return svg;
}
