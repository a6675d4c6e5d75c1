import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import { parse } from 'yaml';
import type { ExtraRoutes } from './jwks-server';
import { OPENAPI_PATH } from '../openapi';

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.html': 'text/html' };

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Contract early-termination API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/docs/openapi.json', dom_id: '#ui' });</script>
</body></html>`;

/**
 * The API description as this stack serves it: docs/openapi.yaml with the running API first
 * among its servers. The shipped description names deployed stages only; locally, "Try it out"
 * calls the stack on its own port (API_PORT), from the demo page's origin, which its CORS allows.
 */
export function localDescription(apiUrl: string): Record<string, unknown> {
  const document: unknown = parse(readFileSync(OPENAPI_PATH, 'utf8'));
  if (typeof document !== 'object' || document === null) throw new Error(`${OPENAPI_PATH} holds no description`);
  const shipped: unknown[] = 'servers' in document && Array.isArray(document.servers) ? document.servers : [];
  return { ...document, servers: [{ url: apiUrl, description: 'local: npm start on this machine' }, ...shipped] };
}

/** The API reference under /docs/: Swagger UI from npm (no CDN) over the local description of the API at apiUrl. */
export function docsRoutes(apiUrl: string): ExtraRoutes {
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method !== 'GET') return false;
    if (path === '/docs/openapi.json') {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(localDescription(apiUrl)));
      return true;
    }
    if (path === '/docs' || path === '/docs/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
      return true;
    }
    const file = normalize(path.slice('/docs/'.length));
    if (!path.startsWith('/docs/') || file.startsWith('..') || !/^[\w.-]+$/.test(file)) return false;
    // Read before anything is written: a file that is not there (or cannot be read) is the page server's 404.
    let body: Buffer;
    try {
      body = readFileSync(join(swaggerDir, file));
    } catch {
      return false;
    }
    const ext = file.slice(file.lastIndexOf('.'));
    res.writeHead(200, { 'Content-Type': TYPES[ext] ?? 'application/octet-stream' }).end(body);
    return true;
  };
}
