import path from "node:path";
import express, { type Router } from "express";
import { strictRouter } from "../http/strict-router";

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SMS platform API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;

/** GET /openapi.json and GET /docs (Swagger UI served from our own copy: no CDN, CSP-friendly). */
export function docsRoutes(document: object, docsEnabled: boolean): Router {
  const router = strictRouter();
  router.get("/openapi.json", (_req, res) => res.json(document));
  if (!docsEnabled) return router;
  const assets = path.dirname(require.resolve("swagger-ui-dist/package.json"));
  router.use("/docs/assets", express.static(assets, { index: false, maxAge: "1d" }));
  router.get("/docs/init.js", (_req, res) =>
    res.type("application/javascript").send('SwaggerUIBundle({url: "/openapi.json", dom_id: "#ui"});'),
  );
  router.get("/docs", (_req, res) => res.type("html").send(PAGE));
  return router;
}
