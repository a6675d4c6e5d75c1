import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/list-termination-reasons';
import { REASON_CODES, terminationRequestInputSchema } from '../../lib/api-model/schemas';
import { textsFor } from '../../lib/http/texts';
import { REASON_NEEDING_COMMENT } from '../../lib/termination/reason-rules';
import { validateTerminationInput } from '../../lib/api-model/validator';
import { apiEvent } from '../../scripts/local/api-event';
import { validBody } from '../support/bodies';
import { parsedObject } from '../support/json';

/*
 * GET /api/v1/termination-reasons: the reasons of the create's own validator,
 * labelled by Accept-Language, cacheable. The handler reads no table: a unit test.
 */

function reasonsEvent(language?: string) {
  const event = apiEvent({ method: 'GET', headers: language === undefined ? {} : { 'Accept-Language': language } });
  const resource = '/api/v1/termination-reasons';
  return {
    ...event,
    resource,
    path: resource,
    pathParameters: null,
    requestContext: { ...event.requestContext, resourcePath: resource, path: `/dev${resource}` },
  };
}

describe('GET /api/v1/termination-reasons', () => {
  it("answers every reasonCode the create accepts, in its order, labelled in English, the comment's rule with it", async () => {
    const answer = await handler(reasonsEvent());
    expect(answer.statusCode).toBe(200);
    const items = parsedObject(answer.body)['items'];
    expect(items).toEqual(
      REASON_CODES.map((reasonCode) => ({ reasonCode, label: expect.any(String), commentRequired: reasonCode === 'OTHER' })),
    );
    expect(items).toContainEqual({ reasonCode: 'RELOCATION', label: 'Relocation', commentRequired: false });
    // One source: each code it lists is one the create's validator takes.
    for (const reasonCode of REASON_CODES) {
      expect(validateTerminationInput(validBody({ reasonCode, comment: 'Because' })).ok).toBe(true);
    }
  });

  it('labels them in Russian for Accept-Language: ru, and may be kept an hour per language', async () => {
    const answer = await handler(reasonsEvent('ru-RU,ru;q=0.9'));
    expect(parsedObject(answer.body)['items']).toContainEqual({ reasonCode: 'RELOCATION', label: 'Переезд', commentRequired: false });
    expect(answer.headers).toMatchObject({ 'Cache-Control': 'private, max-age=3600', Vary: 'Accept-Language, Origin' });
  });

  it('answers 401 without a customer, as every route', async () => {
    const event = reasonsEvent();
    const answer = await handler({ ...event, requestContext: { ...event.requestContext, authorizer: null } });
    expect(answer.statusCode).toBe(401);
  });
});

describe('the reason that needs a comment: one rule, in reason-rules.ts', () => {
  it("the API description's comment and the texts of COMMENT_REQUIRED name that reason and no other", () => {
    const named = (text: string) => REASON_CODES.filter((code) => new RegExp(`\\b${code}\\b`).test(text));
    expect(named(terminationRequestInputSchema.properties.comment.description)).toEqual([REASON_NEEDING_COMMENT]);
    for (const language of ['en', 'ru'] as const) {
      expect(named(textsFor(language).problem({ field: 'comment', code: 'commentRequired' }))).toEqual([REASON_NEEDING_COMMENT]);
    }
  });
});
