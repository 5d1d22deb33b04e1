// The dashboard's files (docs/dashboard.md), held in memory: the page is an HTML import, so
// `bun build --compile` bundles its TypeScript and CSS into the binary (page.files, read from the
// binary's embedded file system); run from source (`bun run`, `bun test`) the same page is bundled
// once in memory with Bun.build. Either way the files are served at /assets/<name> through the one
// guard, never straight by Bun.serve's static routes (those would skip it).
import { basename } from "node:path";
import { ENDPOINTS } from "../contracts/routes";
import page from "../dashboard/index.html";

export interface DashboardFile {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
}

export interface DashboardAssets {
  html: DashboardFile;
  /** By file name: `/assets/<name>`. */
  assets: Map<string, DashboardFile>;
}

/** `/assets/`: the endpoint's tree without its `**`. */
export const ASSET_PREFIX = ENDPOINTS.dashboardAssets.path.slice(0, -"**".length);

/** Points the page's references to its chunks (`/chunk-x.js`, `./chunk-x.js`) at /assets/. */
function rewriteReferences(html: string, names: string[]): string {
  let out = html;
  for (const name of names) out = out.replace(new RegExp(`(["'])(?:\\.?/)?(?:assets/)?${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\1`, "g"), `$1${ASSET_PREFIX}${name}$1`);
  return out;
}

async function fromBinary(files: NonNullable<typeof page.files>): Promise<DashboardAssets> {
  const assets = new Map<string, DashboardFile>();
  let html: string | undefined;
  for (const file of files) {
    const bytes = new Uint8Array(await Bun.file(file.path).arrayBuffer());
    if (file.loader === "html") html = new TextDecoder().decode(bytes);
    else assets.set(basename(file.path), { body: bytes, contentType: file.headers["content-type"] });
  }
  if (html === undefined) throw new Error("the dashboard bundle has no HTML file");
  const text = rewriteReferences(html, [...assets.keys()]);
  return { html: { body: new TextEncoder().encode(text), contentType: "text/html;charset=utf-8" }, assets };
}

async function fromSource(): Promise<DashboardAssets> {
  const built = await Bun.build({ entrypoints: [page.index], minify: true, publicPath: ASSET_PREFIX, naming: "[name]-[hash].[ext]" });
  if (!built.success) throw new Error(`building the dashboard failed: ${built.logs.map(String).join("; ")}`);
  const assets = new Map<string, DashboardFile>();
  let html: DashboardFile | undefined;
  for (const output of built.outputs) {
    const file = { body: new Uint8Array(await output.arrayBuffer()), contentType: output.type };
    if (output.type.startsWith("text/html")) html = file;
    else assets.set(basename(output.path), file);
  }
  if (!html) throw new Error("the dashboard bundle has no HTML file");
  return { html, assets };
}

let loading: Promise<DashboardAssets> | undefined;

/** The dashboard's files, loaded on first use and kept. */
export function dashboardAssets(): Promise<DashboardAssets> {
  loading ??= page.files?.length ? fromBinary(page.files) : fromSource();
  loading.catch(() => (loading = undefined));
  return loading;
}
