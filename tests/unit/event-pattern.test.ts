import { describe, expect, it } from 'vitest';
import { matchesPattern, UnsupportedPatternError } from '../../scripts/local/event-pattern';
import { decisionRulePattern, LOCAL_ACCOUNT_ID, streamFilterPatterns } from '../../scripts/local/template-patterns';

const decision = { source: 'bank.back-office', 'detail-type': 'TerminationRequestStatusChanged', account: LOCAL_ACCOUNT_ID, detail: {} };

describe('matchesPattern (the subset of EventBridge patterns the template uses)', () => {
  it('matches when every named field holds one of the allowed values', () => {
    const pattern = { source: ['bank.back-office'], 'detail-type': ['TerminationRequestStatusChanged'] };
    expect(matchesPattern(pattern, decision)).toBe(true);
    expect(matchesPattern(pattern, { ...decision, source: 'bank.contract-termination' })).toBe(false);
    expect(matchesPattern(pattern, { 'detail-type': 'TerminationRequestStatusChanged' })).toBe(false);
  });

  it('matches nested fields, and an array value when any element is allowed', () => {
    const pattern = { dynamodb: { NewImage: { kind: { S: ['REQUEST'] } } } };
    expect(matchesPattern(pattern, { dynamodb: { NewImage: { kind: { S: 'REQUEST' } } } })).toBe(true);
    expect(matchesPattern(pattern, { dynamodb: { NewImage: { kind: { S: 'ACTIVE_SLOT' } } } })).toBe(false);
    expect(matchesPattern(pattern, { dynamodb: { OldImage: { kind: { S: 'REQUEST' } } } })).toBe(false);
    expect(matchesPattern({ resources: ['a'] }, { resources: ['b', 'a'] })).toBe(true);
  });

  it('refuses operators it does not implement instead of guessing', () => {
    expect(() => matchesPattern({ source: [{ prefix: 'bank.' }] }, decision)).toThrow(UnsupportedPatternError);
  });
});

describe("the template's own patterns, with the local stage's values", () => {
  it("routes the back office's decisions from the back office's account", () => {
    expect(decisionRulePattern({})).toEqual({
      source: ['bank.back-office'],
      'detail-type': ['TerminationRequestStatusChanged'],
      account: [LOCAL_ACCOUNT_ID],
    });
    expect(decisionRulePattern({ BACK_OFFICE_ACCOUNT_ID: '210987654321', DECISION_SOURCE: 'bank.bo' })).toMatchObject({
      source: ['bank.bo'],
      account: ['210987654321'],
    });
  });

  it("filters the stream to the request items, as the mapping's FilterCriteria", () => {
    expect(streamFilterPatterns()).toEqual([{ dynamodb: { NewImage: { kind: { S: ['REQUEST'] } } } }]);
  });
});
