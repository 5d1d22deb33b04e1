interface PageContext {
  root: HTMLElement;
  /** Path segments after the page name (`#/memories/<id>`). */
  args: string[];
  refreshMs: number;
}

/** Renders into root; returns a function that stops its timers when the page is left. */
export type Page = (ctx: PageContext) => (() => void) | undefined;
