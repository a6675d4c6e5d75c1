import { renderTemplate } from './local/gateway';
import { at, gatewayResponses, templateFile } from './local/template-file';

/*
 * The answers API Gateway and the WAF make themselves, before or instead of a function, read
 * from the deployed definitions (resources/api.yml's gateway responses, resources/waf.yml's
 * custom responses): their status, errorCode, body and headers, for the API description.
 */

/** One answer the edge makes itself. */
export interface EdgeAnswer {
  /** API Gateway (a gateway response), or the WAF (prod; a rule's custom response). */
  source: 'gateway' | 'waf';
  /** What answers it: the gateway response type, or the WAF rule. */
  name: string;
  /** Its status; '5XX' for DEFAULT_5XX, which keeps the status the gateway had (e.g. 502). */
  status: string;
  errorCode: string;
  /** The body, as it reaches a client (the gateway's with `requestId` as its id). */
  body: Record<string, unknown>;
  /** The headers it sets, by name, with their values (the gateway's X-Correlation-Id is its request id). */
  headers: Record<string, string>;
}

function jsonObject(text: string, where: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${where}: the body is no JSON object`);
  return Object.fromEntries(Object.entries(parsed));
}

/**
 * API Gateway's own answers. DEFAULT_4XX is left out: its errorCode is the gateway's response
 * type, and none of those can be caused by a call to these routes as configured (no API keys,
 * usage plans, IAM authorization or request models: docs/decisions/0011-error-body.md).
 */
export function gatewayAnswers(requestId: string): EdgeAnswer[] {
  return gatewayResponses()
    .filter((response) => response.type !== 'DEFAULT_4XX')
    .map((response) => {
      const where = `resources/api.yml ${response.logicalId}`;
      const status = response.statusCode ?? (response.type === 'DEFAULT_5XX' ? '5XX' : undefined);
      if (status === undefined) throw new Error(`${where}: no StatusCode`);
      const body = jsonObject(
        renderTemplate(response.type, response.template, {
          requestId,
          responseType: response.type,
          // API Gateway's own text for its only templated message (THROTTLED).
          messageString: JSON.stringify('Too Many Requests'),
        }),
        where,
      );
      const errorCode = body['errorCode'];
      if (typeof errorCode !== 'string') throw new Error(`${where}: no errorCode`);
      const headers = Object.fromEntries(
        Object.entries(response.parameters)
          .filter(([key]) => key.startsWith('gatewayresponse.header.'))
          .map(([key, value]) => [
            key.slice('gatewayresponse.header.'.length),
            value === 'context.requestId' ? requestId : value.replace(/^'(.*)'$/, '$1'),
          ]),
      );
      return { source: 'gateway', name: response.type, status, errorCode, body, headers };
    });
}

/** The WAF's own answers (its rules that block with a custom response), in English. */
export function wafAnswers(): EdgeAnswer[] {
  const acl = at(templateFile('waf.yml'), 'Resources', 'WebAcl', 'Properties');
  const bodies = at(acl, 'CustomResponseBodies');
  const rules = at(acl, 'Rules');
  return (Array.isArray(rules) ? rules : []).flatMap((rule): EdgeAnswer[] => {
    const response = at(rule, 'Action', 'Block', 'CustomResponse');
    const key = at(response, 'CustomResponseBodyKey');
    // The Russian twin of a rule says the same in other words.
    if (response === undefined || typeof key !== 'string' || key.endsWith('-ru')) return [];
    const name = String(at(rule, 'Name'));
    const body = jsonObject(String(at(bodies, key, 'Content')), `resources/waf.yml ${name}`);
    const headers = at(response, 'ResponseHeaders');
    return [
      {
        source: 'waf',
        name,
        status: String(at(response, 'ResponseCode')),
        errorCode: String(body['errorCode']),
        body,
        headers: Object.fromEntries((Array.isArray(headers) ? headers : []).map((h) => [String(at(h, 'Name')), String(at(h, 'Value'))])),
      },
    ];
  });
}

/** Every answer the edge makes itself: API Gateway's, then the WAF's. */
export function edgeAnswers(requestId: string): EdgeAnswer[] {
  return [...gatewayAnswers(requestId), ...wafAnswers()];
}
