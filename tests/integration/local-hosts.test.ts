import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startAwsStandIn, type AwsStandIn } from '../../scripts/local/aws-stand-in';
import { docsRoutes } from '../../scripts/local/docs-routes';
import { foreignHostRefusal } from '../../scripts/local/host-guard';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { demoPageConfig, startPageServer, type PageServer } from '../../scripts/local/page-server';
import { startHttpStack, type HttpStack } from '../support/http-stack';
import { useFreshTables } from '../support/local-tables';

/*
 * Every listener of npm start answers only requests that name it by loopback (or an address it
 * was told to listen on): a web page on a domain that resolves to 127.0.0.1 (DNS rebinding) sends
 * its own name as Host, and is refused with 403 before anything runs or is read
 * (scripts/local/host-guard.ts, scripts/local/java/LoopbackDynamoDbLocal.java). Each listener is
 * sent the same request twice, with `Host: attacker.example` and with its own loopback Host.
 * serverless offline's own HTTP API is behind the local gateway on a Unix socket, as its Lambda
 * API is behind the guard: no browser reaches either but through those two.
 */

/** The status a request to `url` answers with, sent with this Host header. */
function statusWith(url: string, host: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<number>((resolve, reject) => {
    const sent = request(url, { method: options.method ?? 'GET', headers: { ...options.headers, Host: host } }, (answer) => {
      answer.resume();
      resolve(answer.statusCode ?? 0);
    });
    sent.on('error', reject);
    sent.end(options.body);
  });
}

const hostOf = (url: string) => new URL(url).host;
const FOREIGN = 'attacker.example';

let http: HttpStack;
let page: PageServer;
let standIn: AwsStandIn;
let jwks: Awaited<ReturnType<typeof startJwksServer>>;

beforeAll(async () => {
  const tables = await useFreshTables();
  http = await startHttpStack({ dynamoDbEndpoint: tables.endpoint, tables: tables.names });
  jwks = await startJwksServer(http.key.jwks, 0);
  standIn = await startAwsStandIn();
  page = await startPageServer({
    port: 0,
    config: (customer) => demoPageConfig(http.key, http.offline.url, customer),
    routes: docsRoutes(http.offline.url),
  });
}, 120_000);

afterAll(async () => {
  await page.stop();
  await standIn.stop();
  await jwks.stop();
  await http.stop();
});

describe('a request naming a foreign Host', () => {
  it('is refused by the API (the local gateway in front of serverless offline)', async () => {
    const url = `${http.offline.url}/api/v1/termination-reasons`;
    expect(await statusWith(url, FOREIGN)).toBe(403);
    // Its own name passes on (to the authorizer, which wants a token).
    expect(await statusWith(url, hostOf(url))).toBe(401);
  });

  it("is refused by serverless offline's Lambda API (the guard in front of it)", async () => {
    const url = `http://127.0.0.1:${http.lambdaPort}/2015-03-31/functions/listTerminationReasons/invocations`;
    expect(await statusWith(url, FOREIGN, { method: 'POST', body: '{}' })).toBe(403);
  });

  it('is refused by the page, its config (a token) and its API reference', async () => {
    for (const path of ['', 'config.json', 'docs/']) expect([path, await statusWith(`${page.url}${path}`, FOREIGN)]).toEqual([path, 403]);
    expect(await statusWith(`${page.url}config.json`, hostOf(page.url))).toBe(200);
  });

  it('is refused by the JWKS', async () => {
    expect(await statusWith(jwks.uri, FOREIGN)).toBe(403);
    expect(await statusWith(jwks.uri, hostOf(jwks.uri))).toBe(200);
  });

  it('is refused by the EventBridge/SQS stand-in: no decision put on its bus', async () => {
    const putEvents = {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AWSEvents.PutEvents' },
      body: JSON.stringify({ Entries: [{ Source: 'test.local-hosts', DetailType: 'Probe', Detail: '{}' }] }),
    };
    expect(await statusWith(standIn.endpoint, FOREIGN, putEvents)).toBe(403);
    expect(await statusWith(standIn.endpoint, hostOf(standIn.endpoint), putEvents)).toBe(200);
  });

  it('is refused by DynamoDB Local (its launcher, LoopbackDynamoDbLocal.java)', async () => {
    const endpoint = inject('dynamoDbEndpoint');
    const listTables = {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.ListTables',
        Authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/eu-central-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x',
      },
      body: '{}',
    };
    expect(await statusWith(endpoint, FOREIGN, listTables)).toBe(403);
    expect(await statusWith(endpoint, `${FOREIGN}:${new URL(endpoint).port}`, listTables)).toBe(403);
    expect(await statusWith(endpoint, hostOf(endpoint), listTables)).toBe(200);
  });
});

describe('the hosts a listener answers to', () => {
  it('are loopback, and the address it was told to bind, never a name', () => {
    for (const host of ['127.0.0.1:3000', 'localhost:3000', '[::1]:3000', '127.0.0.1'])
      expect([host, foreignHostRefusal(host, '127.0.0.1')]).toEqual([host, undefined]);
    expect(foreignHostRefusal('192.168.1.20:3000', '192.168.1.20')).toBeUndefined();
    for (const host of ['attacker.example', 'attacker.example:3000', '127.0.0.1.attacker.example', '192.168.1.20', '', undefined])
      expect([host, foreignHostRefusal(host, '127.0.0.1')]).toEqual([host, expect.any(String)]);
  });
});
