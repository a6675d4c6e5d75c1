import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import type { ExtraRoutes } from './jwks-server';
import { OPENAPI_PATH } from '../openapi';

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.html': 'text/html' };

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Contract early-termination API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.yaml', dom_id: '#ui' });</script>
</body></html>`;

/** The API description (docs/openapi.yaml) and Swagger UI from npm (no CDN), under /docs/. */
export const docsRoutes: ExtraRoutes = (req, res) => {
  const path = (req.url ?? '').split('?')[0] ?? '';
  if (req.method !== 'GET') return false;
  if (path === '/openapi.yaml') {
    res.writeHead(200, { 'Content-Type': 'application/yaml; charset=utf-8' }).end(readFileSync(OPENAPI_PATH));
    return true;
  }
  if (path === '/docs' || path === '/docs/') {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
    return true;
  }
  const file = normalize(path.slice('/docs/'.length));
  if (!path.startsWith('/docs/') || file.startsWith('..') || !/^[\w.-]+$/.test(file)) return false;
  try {
    const ext = file.slice(file.lastIndexOf('.'));
    res.writeHead(200, { 'Content-Type': TYPES[ext] ?? 'application/octet-stream' }).end(readFileSync(join(swaggerDir, file)));
    return true;
  } catch {
    return false;
  }
};
