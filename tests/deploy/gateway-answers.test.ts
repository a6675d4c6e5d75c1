import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import cors from '../../resources/cors.json' with { type: 'json' };
import { validateTerminationInput } from '../../lib/api-model/validator';
import { SECURITY_HEADERS } from '../../lib/http/answers';
import { MAX_BODY_BYTES, readJsonObjectBody } from '../../lib/http/request';
import { textsFor } from '../../lib/http/texts';
import { bearerToken } from '../../lib/auth/token-verifier';
import { makeSigningKey, signToken } from '../../scripts/local/signing-key';
import { refusedAuthorizations } from '../support/jwt-attacks';
import { at, jsonObject, parsedObject } from '../support/json';
import { largestValidBody } from '../support/largest-body';
import { ofType, resource, templatePackager, type Json } from '../support/packaged-template';
import { transformed } from '../support/waf-transformations';

/*
 * What API Gateway and the WAF answer themselves, and the limits in front of the functions, as
 * packaged for prod and dev (docs/decisions/0011-error-body.md).
 */

const { packageStage, cleanUp } = templatePackager();
const en = textsFor('en');
const ru = textsFor('ru');
let prod: Json;
let dev: Json;

beforeAll(async () => {
  // One after the other: two packagings at once share the framework's working files.
  prod = await packageStage('prod', { CONTRACTS_TABLE_NAME: 'contracts-owned-elsewhere' });
  dev = await packageStage('dev', {
    ALLOWED_ORIGINS: 'https://lk.bank.example,https://m.bank.example',
    GET_RESERVED_CONCURRENCY: '7',
  });
}, 120_000);

afterAll(() => cleanUp());

const gatewayResponses = (template: Json) =>
  ofType(template, 'AWS::ApiGateway::GatewayResponse').map(([, r]) => ({
    type: String(at(r, 'Properties', 'ResponseType')),
    status: at(r, 'Properties', 'StatusCode'),
    parameters: jsonObject(at(r, 'Properties', 'ResponseParameters')),
    template: String(at(r, 'Properties', 'ResponseTemplates', 'application/json')),
  }));

const response = (template: Json, type: string) => {
  const found = gatewayResponses(template).find((r) => r.type === type);
  if (!found) throw new Error(`no gateway response ${type}`);
  return found;
};

/** A template's body as API Gateway fills it: its request id and its own message. */
const bodyOf = (template: string) =>
  parsedObject(template.replaceAll('$context.requestId', 'req-1').replaceAll('$context.error.messageString', '"Its own text"'));

describe("the gateway's own answers", () => {
  it('answers every response type a client can cause in the error body, with one correlation id in the header and the body', () => {
    const answers = gatewayResponses(prod);
    expect(answers.map((r) => r.type)).toEqual(
      expect.arrayContaining([
        'UNAUTHORIZED',
        'ACCESS_DENIED',
        'MISSING_AUTHENTICATION_TOKEN',
        'RESOURCE_NOT_FOUND',
        'REQUEST_TOO_LARGE',
        'THROTTLED',
        'WAF_FILTERED',
        'AUTHORIZER_FAILURE',
        'AUTHORIZER_CONFIGURATION_ERROR',
        'INTEGRATION_TIMEOUT',
        'INTEGRATION_FAILURE',
        'DEFAULT_4XX',
        'DEFAULT_5XX',
      ]),
    );
    for (const answer of answers) {
      const body = bodyOf(answer.template);
      expect(Object.keys(body), answer.type).toEqual(['errorCode', 'message', 'correlationId', 'details']);
      expect(body, answer.type).toMatchObject({ errorCode: expect.any(String), message: expect.any(String), details: expect.any(Array) });
      // API Gateway's request id in both, so header and body never disagree, and the header is never missing.
      expect(body['correlationId'], answer.type).toBe('req-1');
      expect(answer.parameters['gatewayresponse.header.X-Correlation-Id'], answer.type).toBe('context.requestId');
      // Not VTL: API Gateway only substitutes variables in a gateway response's template.
      expect(answer.template, answer.type).not.toMatch(/#(if|set|foreach)|\$input|\$util/);
    }
  });

  it('answers a body over the gateway limit with 413 REQUEST_TOO_LARGE naming the service limit, not DEFAULT_4XX', () => {
    const tooLarge = response(prod, 'REQUEST_TOO_LARGE');
    expect(tooLarge.status).toBe('413');
    expect(bodyOf(tooLarge.template)).toEqual({
      errorCode: 'REQUEST_TOO_LARGE',
      message: 'The request is too large.',
      correlationId: 'req-1',
      details: [{ field: 'body', reason: en.problem({ field: 'body', code: 'tooLarge', limit: MAX_BODY_BYTES }) }],
    });
  });

  it('answers throttling with 429 THROTTLED and Retry-After, and a WAF block with 403 WAF_FILTERED', () => {
    const throttled = response(prod, 'THROTTLED');
    expect(throttled.status).toBe('429');
    expect(bodyOf(throttled.template)).toMatchObject({ errorCode: 'THROTTLED' });
    expect(throttled.parameters['gatewayresponse.header.Retry-After']).toBe("'1'");
    const filtered = response(prod, 'WAF_FILTERED');
    expect(filtered.status).toBe('403');
    expect(bodyOf(filtered.template)).toMatchObject({ errorCode: 'WAF_FILTERED', details: [] });
  });

  it('answers an integration that times out or cannot be invoked (a throttled function) as the handler answers an outage: 503 with Retry-After', () => {
    for (const type of ['INTEGRATION_TIMEOUT', 'INTEGRATION_FAILURE']) {
      const answer = response(prod, type);
      expect(answer.status).toBe('503');
      expect(bodyOf(answer.template)).toEqual({
        errorCode: 'SERVICE_UNAVAILABLE',
        message: en.error('SERVICE_UNAVAILABLE', {}),
        correlationId: 'req-1',
        details: [],
      });
      expect(answer.parameters['gatewayresponse.header.Retry-After']).toBe("'1'");
    }
  });

  it('carries the security headers, and lets a page on any origin read it: no customer data, no credentials', () => {
    for (const answer of gatewayResponses(prod)) {
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        expect(answer.parameters[`gatewayresponse.header.${name}`], `${answer.type} ${name}`).toBe(`'${value}'`);
      expect(answer.parameters['gatewayresponse.header.Access-Control-Allow-Origin'], answer.type).toBe("'*'");
      expect(answer.parameters['gatewayresponse.header.Access-Control-Expose-Headers'], answer.type).toBe(
        `'${cors.exposeHeaders.join(', ')}'`,
      );
      expect(answer.parameters['gatewayresponse.header.Access-Control-Allow-Credentials'], answer.type).toBeUndefined();
    }
  });

  // Fails while scripts/serverless/stage-settings.cjs overwrites Access-Control-Allow-Origin of
  // every gateway response with the stage's first origin: turn this into `it` once it no longer does.
  it('keeps "*" on a stage with allowed origins, so every one of them can read the gateway\'s answers', () => {
    for (const answer of gatewayResponses(dev)) {
      expect(answer.parameters['gatewayresponse.header.Access-Control-Allow-Origin'], answer.type).toBe("'*'");
    }
  });
});

describe('the WAF', () => {
  const acl = () => at(resource(prod, 'WebAcl'), 'Properties');
  const rules = () => {
    const list = at(acl(), 'Rules');
    return Array.isArray(list) ? list : [];
  };
  const rule = (name: string) => {
    const found: unknown = rules().find((r) => at(r, 'Name') === name);
    if (found === undefined) throw new Error(`no WAF rule ${name}`);
    return found;
  };
  const customBody = (key: unknown) => parsedObject(String(at(acl(), 'CustomResponseBodies', String(key), 'Content')));
  const headersOf = (custom: unknown) => {
    const list = at(custom, 'ResponseHeaders');
    return Object.fromEntries((Array.isArray(list) ? list : []).map((h) => [String(at(h, 'Name')), String(at(h, 'Value'))]));
  };
  const russian = {
    ByteMatchStatement: {
      FieldToMatch: { SingleHeader: { Name: 'accept-language' } },
      PositionalConstraint: 'STARTS_WITH',
      SearchString: 'ru',
      TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
    },
  };

  /** Whether the WAF lets the header through its no-bearer-token rule: its own transformations, then its pattern. */
  const wafAdmits = (authorization: string) => {
    const match = at(
      rule('no-bearer-token'),
      'Statement',
      'AndStatement',
      'Statements',
      1,
      'NotStatement',
      'Statement',
      'RegexMatchStatement',
    );
    return new RegExp(String(at(match, 'RegexString'))).test(transformed(authorization, at(match, 'TextTransformations')));
  };
  /** The counter the per-token rate rule keeps for a header: the header after the custom key's transformations. */
  const tokenCounter = (authorization: string) => {
    const keys = at(rule('rate-per-token'), 'Statement', 'RateBasedStatement', 'CustomKeys');
    expect(Array.isArray(keys) ? keys.length : 0).toBe(1);
    return transformed(authorization, at(keys, 0, 'Header', 'TextTransformations'));
  };

  it('admits the largest valid body: its own body rule at the service limit, the managed 8 KB rule only counting', () => {
    const body = largestValidBody();
    // Valid, and within what the handler reads.
    expect(validateTerminationInput(JSON.parse(body)).ok).toBe(true);
    expect(readJsonObjectBody({ headers: { 'Content-Type': 'application/json' }, body, isBase64Encoded: false }).kind).toBe('body');
    const sizeRule = at(rule('body-too-large'), 'Statement', 'SizeConstraintStatement');
    expect(at(sizeRule, 'ComparisonOperator')).toBe('GT');
    expect(at(sizeRule, 'Size')).toBe(MAX_BODY_BYTES);
    expect(Buffer.byteLength(body)).toBeGreaterThan(15_000);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(Number(at(sizeRule, 'Size')));
    // The WAF sees bodies of API Gateway up to this size; a larger one is oversize, and matches.
    expect(at(acl(), 'AssociationConfig', 'RequestBody', 'API_GATEWAY', 'DefaultSizeInspectionLimit')).toBe('KB_16');
    expect(Number(at(sizeRule, 'Size'))).toBeLessThanOrEqual(16 * 1024);
    expect(at(sizeRule, 'FieldToMatch', 'Body', 'OversizeHandling')).toBe('MATCH');
    // AWS's common rule set blocks bodies over 8 KB: that rule only counts here.
    const managed = at(rule('aws-common-rules'), 'Statement', 'ManagedRuleGroupStatement');
    expect(at(managed, 'Name')).toBe('AWSManagedRulesCommonRuleSet');
    expect(at(managed, 'RuleActionOverrides')).toEqual([{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }]);
  });

  it('answers a body over the limit with 413 REQUEST_TOO_LARGE in the error shape, in Russian when asked', () => {
    expect(at(rule('body-too-large-ru'), 'Statement', 'AndStatement', 'Statements')).toEqual([
      at(rule('body-too-large'), 'Statement'),
      russian,
    ]);
    for (const [name, texts] of [
      ['body-too-large', en],
      ['body-too-large-ru', ru],
    ] as const) {
      const custom = at(rule(name), 'Action', 'Block', 'CustomResponse');
      expect(at(custom, 'ResponseCode')).toBe(413);
      expect(customBody(at(custom, 'CustomResponseBodyKey'))).toEqual({
        errorCode: 'REQUEST_TOO_LARGE',
        message: name === 'body-too-large' ? 'The request is too large.' : 'Запрос слишком большой.',
        correlationId: '',
        details: [{ field: 'body', reason: texts.problem({ field: 'body', code: 'tooLarge', limit: MAX_BODY_BYTES }) }],
      });
    }
    // The Russian answer before the English one, which takes everything else.
    expect(at(rule('body-too-large-ru'), 'Priority')).toBeLessThan(Number(at(rule('body-too-large'), 'Priority')));
  });

  it('answers the rate limit with 429 THROTTLED and Retry-After, in Russian when asked, counting each address once', () => {
    const rate = rule('rate-per-ip');
    expect(at(rate, 'Statement', 'RateBasedStatement')).toMatchObject({ AggregateKeyType: 'IP', Limit: expect.anything() });
    // The one count labels the address's requests; the answers below pick the language.
    expect(at(rate, 'Action')).toEqual({ Count: {} });
    expect(at(rate, 'RuleLabels')).toEqual([{ Name: 'contract-termination:rate-limited' }]);
    const limited = { LabelMatchStatement: { Scope: 'LABEL', Key: 'contract-termination:rate-limited' } };
    expect(at(rule('rate-limited'), 'Statement')).toEqual(limited);
    expect(at(rule('rate-limited-ru'), 'Statement', 'AndStatement', 'Statements')).toEqual([limited, russian]);
    for (const name of ['rate-limited', 'rate-limited-ru']) {
      const custom = at(rule(name), 'Action', 'Block', 'CustomResponse');
      expect(at(custom, 'ResponseCode')).toBe(429);
      expect(headersOf(custom)['Retry-After']).toBe('60');
      expect(customBody(at(custom, 'CustomResponseBodyKey'))).toMatchObject({ errorCode: 'THROTTLED', correlationId: '', details: [] });
    }
    expect(customBody('throttled-ru')['message']).toMatch(/^Слишком много запросов/);
    const priority = (name: string) => Number(at(rule(name), 'Priority'));
    expect(priority('rate-per-ip')).toBeLessThan(priority('rate-limited-ru'));
    expect(priority('rate-limited-ru')).toBeLessThan(priority('rate-limited'));
  });

  it('counts each bearer token once too, beside each address: both label the calls the 429 answers stop', () => {
    const rate = rule('rate-per-token');
    expect(at(rate, 'Statement', 'RateBasedStatement')).toEqual({
      Limit: '300',
      EvaluationWindowSec: 300,
      AggregateKeyType: 'CUSTOM_KEYS',
      CustomKeys: [
        {
          Header: {
            Name: 'authorization',
            TextTransformations: [
              { Priority: 0, Type: 'LOWERCASE' },
              { Priority: 1, Type: 'COMPRESS_WHITE_SPACE' },
            ],
          },
        },
      ],
    });
    expect(at(rate, 'Action')).toEqual({ Count: {} });
    expect(at(rate, 'RuleLabels')).toEqual(at(rule('rate-per-ip'), 'RuleLabels'));
    const priority = (name: string) => Number(at(rule(name), 'Priority'));
    expect(priority('rate-per-token')).toBeLessThan(priority('rate-limited-ru'));
  });

  it('answers a call without a well-formed bearer token with 401 before the gateway, as the gateway would; a preflight passes', () => {
    const noToken = rule('no-bearer-token');
    const custom = at(noToken, 'Action', 'Block', 'CustomResponse');
    expect(at(custom, 'ResponseCode')).toBe(401);
    expect(headersOf(custom)['WWW-Authenticate']).toBe('Bearer');
    // The gateway's own 401, but for the request id only the gateway knows.
    expect(customBody(at(custom, 'CustomResponseBodyKey'))).toEqual({
      ...bodyOf(response(prod, 'UNAUTHORIZED').template),
      correlationId: '',
    });
    const [preflight, token] = [
      at(noToken, 'Statement', 'AndStatement', 'Statements', 0),
      at(noToken, 'Statement', 'AndStatement', 'Statements', 1),
    ];
    expect(at(preflight, 'NotStatement', 'Statement', 'ByteMatchStatement')).toMatchObject({
      FieldToMatch: { Method: {} },
      PositionalConstraint: 'EXACTLY',
      SearchString: 'OPTIONS',
    });
    expect(at(token, 'NotStatement', 'Statement', 'RegexMatchStatement', 'FieldToMatch')).toEqual({
      SingleHeader: { Name: 'authorization' },
    });
    expect(at(token, 'NotStatement', 'Statement', 'RegexMatchStatement', 'TextTransformations')).toEqual([
      { Priority: 0, Type: 'LOWERCASE' },
    ]);
    // Before the stage's throttle counts it: a WAF rule runs before API Gateway sees the call.
    expect(Number(at(noToken, 'Priority'))).toBeLessThan(Number(at(rule('aws-common-rules'), 'Priority')));
  });

  it('lets through every token the authorizer could accept, and stops only what it would refuse', () => {
    const key = makeSigningKey();
    const genuine = signToken(key, { customerId: 'customer-anna' });
    // As HTTP delivers a header: a field value has no leading or trailing whitespace (RFC 9110, 5.5).
    for (const header of [
      `Bearer ${genuine}`,
      `bearer ${genuine}`,
      `BEARER  ${genuine}`,
      `Bearer ${genuine.slice(0, genuine.lastIndexOf('.') + 1)}`,
    ])
      expect(wafAdmits(header), header.slice(0, 20)).toBe(true);
    const parses = (authorization: string): boolean => {
      try {
        const [header = '', claims = ''] = (bearerToken(authorization) ?? '').split('.');
        return [header, claims].every((part) => typeof JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) === 'object');
      } catch {
        return false;
      }
    };
    const attacks = refusedAuthorizations(key, 'customer-anna').map(([, header]) => header);
    const junk = [
      '',
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      'Bearer abc.def.ghi',
      'Bearer eyJ.e30',
      'Token eyJhbGciOiJub25lIn0.e30.',
      genuine,
    ];
    const stopped = [...attacks, ...junk].filter((header) => !wafAdmits(header));
    expect(stopped.length).toBeGreaterThan(junk.length - 2);
    // Whatever the WAF stops, the authorizer could not even read as a token of JSON parts.
    for (const header of stopped) expect(parses(header), header.slice(0, 40)).toBe(false);
  });

  it('counts one token once, however its scheme is written: every spelling the WAF lets through has the same counter', () => {
    const key = makeSigningKey();
    const token = signToken(key, { customerId: 'customer-anna' });
    const spellings = [
      `Bearer ${token}`,
      `bearer ${token}`,
      `BEARER ${token}`,
      `bEaReR    ${token}`,
      `Bearer  ${token}`,
      `BeArEr${' '.repeat(40)}${token}`,
    ];
    for (const header of spellings) expect(wafAdmits(header), header.slice(0, 50)).toBe(true);
    // The authorizer takes every one of them as the same token.
    expect(new Set(spellings.map((header) => bearerToken(header)))).toEqual(new Set([token]));
    expect(new Set(spellings.map(tokenCounter))).toEqual(new Set([`bearer ${token.toLowerCase()}`]));
    // Whitespace other than spaces, or after the token, never reaches the counter's callers: the
    // WAF refuses the header with 401 (and HTTP strips trailing whitespace before it anyway).
    for (const header of [`Bearer\t${token}`, `Bearer ${token} `, `Bearer ${token}\u00a0`, ` Bearer ${token}`])
      expect(wafAdmits(header), JSON.stringify(header.slice(0, 10))).toBe(false);
    // Another token, another counter; the token's own letters lower-cased stay in the count, which
    // merges a stolen token with its case variants (each refused by the authorizer) and nothing else.
    const other = signToken(key, { customerId: 'customer-boris' });
    expect(tokenCounter(`Bearer ${other}`)).not.toBe(tokenCounter(`Bearer ${token}`));
    expect(tokenCounter(`Bearer ${token.toUpperCase()}`)).toBe(tokenCounter(`Bearer ${token}`));
  });

  it('lets a page on any origin read every WAF answer, with the security headers', () => {
    const blocks = rules().flatMap((r) => {
      const custom = at(r, 'Action', 'Block', 'CustomResponse');
      return custom === undefined ? [] : [[String(at(r, 'Name')), custom] as const];
    });
    expect(blocks.map(([name]) => name).sort()).toEqual([
      'body-too-large',
      'body-too-large-ru',
      'no-bearer-token',
      'rate-limited',
      'rate-limited-ru',
    ]);
    for (const [name, custom] of blocks) {
      expect(headersOf(custom), name).toMatchObject({
        ...SECURITY_HEADERS,
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Expose-Headers': cors.exposeHeaders.join(', '),
      });
      expect(at(acl(), 'CustomResponseBodies', String(at(custom, 'CustomResponseBodyKey')), 'ContentType'), name).toBe('APPLICATION_JSON');
    }
  });
});

describe('reserved concurrency', () => {
  it('reserves concurrency for the get and list functions on prod (configurable), none by default elsewhere', () => {
    const reserved = (template: Json, fn: string) => at(resource(template, fn), 'Properties', 'ReservedConcurrentExecutions');
    expect(reserved(prod, 'GetTerminationRequestLambdaFunction')).toBe(50);
    expect(reserved(prod, 'ListTerminationRequestsLambdaFunction')).toBe(50);
    expect(reserved(dev, 'GetTerminationRequestLambdaFunction')).toBe(7);
    expect(reserved(dev, 'ListTerminationRequestsLambdaFunction')).toBeUndefined();
  });
});
