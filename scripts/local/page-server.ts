import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { DEFAULT_BUSINESS_TIME_ZONE } from '../../lib/config';
import { USABLE_DOCUMENT_STATUS } from '../../lib/termination/documents';
import { DEMO_CONTRACTS, DEMO_CUSTOMERS, DEMO_DOCUMENTS, demoContractDisplay, type Contract, type ContractDisplay } from './demo-data';
import type { ExtraRoutes } from './jwks-server';
import { signToken, type SigningKey } from './signing-key';
import { refusedForeignHost } from './host-guard';

/*
 * The demo page (web/) on an origin of its own, as a bank's web personal account would call the
 * API from: `/` the form, `/page.js` its bundle (built here at start with esbuild), `/page.css`,
 * and `/config.json` telling the page where the API is, whose token to send, which contracts
 * and documents to offer, and the business time zone the service decides "today" in. npm start serves it on localDefaults.pagePort; the browser tests on ports of their own.
 *
 * The contracts come as a personal account knows them: status and end date as the contracts
 * table has them, and a product name and a masked number to show. The API never answers with
 * contracts (another system owns them), so a real personal account has them from its own
 * back end; locally this config, built from the demo data, stands in for it.
 */

export interface PageContract extends ContractDisplay {
  contractId: string;
  status: string;
  endDate?: string;
}

/** A contract as the page gets it: the table's status and end date, and how to show it. */
export function pageContract(contract: Pick<Contract, 'contractId' | 'status' | 'endDate'>, display: ContractDisplay): PageContract {
  const { contractId, status, endDate } = contract;
  return { contractId, status, ...(endDate === undefined ? {} : { endDate }), ...display };
}

export interface PageConfig {
  apiUrl: string;
  /** The customer's access token. */
  token: string;
  customerId: string;
  contracts: PageContract[];
  /**
   * The customer's uploaded, usable documents, by file name: what a personal account lists from
   * the documents service (the API never answers with documents; docs/decisions/0019-documents.md).
   */
  documents?: { documentId: string; fileName: string }[];
  /** Bank details the form starts with, so the demo submits in one click. */
  bankDetails?: { bik: string; accountNumber: string; recipientName: string };
  /** How often the list of requests is read again, so statuses change without a reload (default 10). */
  refreshSeconds?: number;
  /** The demo customers the page offers a switch between (`/?customer=<id>`), each named in each language, and the one this config is for. */
  customers?: { id: string; name: { en: string; ru: string } }[];
  customer?: string;
}

export interface PageServer {
  url: string;
  /** The page's origin, as a browser sends it in Origin. */
  origin: string;
  stop: () => Promise<void>;
}

const webFile = (name: string) => fileURLToPath(new URL(`../../web/${name}`, import.meta.url));

/** web/main.ts (and the modules it imports) with the client and openapi-fetch in one ES module for the browser. */
export async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [webFile('main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild wrote no bundle for web/main.ts');
  return output.text;
}

const isDemoCustomer = (id: string | undefined): id is keyof typeof DEMO_CUSTOMERS => id === 'anna' || id === 'boris';

/**
 * A demo customer's page (Anna's unless `customer` names Boris): their contracts as the contracts
 * table holds them now (`readContracts`: the contracts service closes one once its termination is
 * done), their own account, a token for them signed with the local key, and the switch to the
 * other one. Demo only: a real page gets its token from the bank's sign-in, never from a file a
 * server hands to anyone asking.
 */
export async function demoPageConfig(
  key: SigningKey,
  apiUrl: string,
  customer: string | undefined,
  readContracts: (contractIds: string[]) => Promise<Contract[]>,
): Promise<PageConfig> {
  const id = isDemoCustomer(customer) ? customer : 'anna';
  const { customerId, bankDetails } = DEMO_CUSTOMERS[id];
  const contracts = await readContracts(DEMO_CONTRACTS.filter((contract) => contract.customerId === customerId).map((c) => c.contractId));
  return {
    apiUrl,
    token: signToken(key, { customerId, expiresIn: 12 * 3600 }),
    customerId,
    contracts: contracts.map((contract) => pageContract(contract, demoContractDisplay(contract.contractId))),
    // The customer's uploaded, usable documents, as the personal account lists them from the documents service.
    documents: DEMO_DOCUMENTS.filter((document) => document.customerId === customerId && document.status === USABLE_DOCUMENT_STATUS).map(
      ({ documentId, fileName }) => ({ documentId, fileName }),
    ),
    bankDetails: { ...bankDetails },
    customers: Object.entries(DEMO_CUSTOMERS).map(([demo, { name }]) => ({ id: demo, name: { ...name } })),
    customer: id,
  };
}

/**
 * The zone the local functions decide "today" in: serverless.yml gives them BUSINESS_TIME_ZONE
 * from the environment npm start runs in, lib/config.ts's default when it is unset.
 */
export const localBusinessTimeZone = (): string => process.env['BUSINESS_TIME_ZONE'] || DEFAULT_BUSINESS_TIME_ZONE;

/**
 * Serves the page on host:port (port 0: any free one); `config` is asked on every /config.json,
 * with its `?customer=`. `routes` answers what else the origin serves (npm start: the API
 * reference under /docs/).
 */
export async function startPageServer(options: {
  port: number;
  host?: string;
  config: (customer: string | undefined) => PageConfig | Promise<PageConfig>;
  routes?: ExtraRoutes;
  /** The service's business time zone, told to the page with its config (localBusinessTimeZone() unless given). */
  businessTimeZone?: string;
}): Promise<PageServer> {
  const businessTimeZone = options.businessTimeZone ?? localBusinessTimeZone();
  const host = options.host ?? '127.0.0.1';
  const files: Record<string, { type: string; body: string }> = {
    '/': { type: 'text/html; charset=utf-8', body: readFileSync(webFile('index.html'), 'utf8') },
    '/page.css': { type: 'text/css; charset=utf-8', body: readFileSync(webFile('page.css'), 'utf8') },
    '/page.js': { type: 'text/javascript; charset=utf-8', body: await bundlePage() },
  };
  const headers = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (refusedForeignHost(req, res, host)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, Allow: 'GET, HEAD' }).end();
      return;
    }
    if (options.routes?.(req, res)) return;
    const url = new URL(req.url ?? '/', 'http://page');
    const path = url.pathname;
    const customer = url.searchParams.get('customer') ?? undefined;
    const file =
      path === '/config.json'
        ? { type: 'application/json', body: JSON.stringify({ ...(await options.config(customer)), businessTimeZone }) }
        : files[path];
    if (!file) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': file.type }).end(req.method === 'HEAD' ? undefined : file.body);
  };
  // Whatever one call meets (a route that throws, a config that cannot be read), the server stays up for the next.
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    answer(req, res).catch((error: unknown) => {
      console.error(`The page server could not answer ${req.method ?? ''} ${req.url ?? ''}: ${String(error)}`);
      if (res.headersSent) res.destroy();
      else res.writeHead(500, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end('The page server could not answer');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, resolve);
  });
  const address = server.address();
  const port = address !== null && typeof address === 'object' ? address.port : options.port;
  const origin = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  return {
    url: `${origin}/`,
    origin,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
