// GET / and GET /assets/:file: the dashboard (docs/dashboard.md). Public in every mode
// (src/server/permissions.ts): the page holds no data; everything it shows comes from the API with
// the caller's own credential. The guard's Host/Origin checks still apply.
import { Elysia } from "elysia";
import { ENDPOINTS } from "../../contracts/routes";
import { ASSET_PREFIX, dashboardAssets, type DashboardFile } from "../dashboard-assets";
import { errorResponse } from "../http-errors";

// The page runs only its own bundled script and talks only to this daemon; no framing (clickjacking).
const PAGE_HEADERS = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

function serve(file: DashboardFile, cache: string): Response {
  return new Response(file.body, { headers: { ...PAGE_HEADERS, "content-type": file.contentType, "cache-control": cache } });
}

export function dashboardRoutes() {
  return new Elysia()
    .get(ENDPOINTS.dashboardPage.path, async () => serve((await dashboardAssets()).html, "no-cache"))
    .get(`${ASSET_PREFIX}:file`, async ({ params }) => {
      const name = (params as { file: string }).file;
      const file = (await dashboardAssets()).assets.get(name);
      // Names carry a content hash, so a file never changes under its name.
      return file ? serve(file, "public, max-age=31536000, immutable") : errorResponse("not_found", `no dashboard asset ${name}`);
    });
}
