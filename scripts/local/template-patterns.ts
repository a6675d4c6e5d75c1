import { at, templateFile } from './template-file';
import { assertSupportedPattern } from './event-pattern';

/*
 * The patterns the deployed stack routes by, read from the template itself
 * (resources/events.yml) with the local stage's values, so the local stack filters and routes
 * exactly as AWS will: the decision rule's EventPattern and the stream mappings' FilterCriteria.
 */

/**
 * The account the local stand-in reports as every sender's (EventBridge's `account` field), the
 * one the local stack's rule and consumer expect decisions from: AWS's example account, as in the
 * sample events of events/.
 */
export const LOCAL_ACCOUNT_ID = '123456789012';

/** serverless.yml's params as the local stage resolves them (the environment overrides, as there). */
function localParams(env: NodeJS.ProcessEnv): Record<string, string> {
  return {
    decisionSource: env['DECISION_SOURCE'] ?? 'bank.back-office',
    decisionDetailType: env['DECISION_DETAIL_TYPE'] ?? 'TerminationRequestStatusChanged',
    backOfficeAccountId: env['BACK_OFFICE_ACCOUNT_ID'] ?? '',
  };
}

const events = templateFile('events.yml');

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Resolves `${param:x}` and the few intrinsics the patterns use (Fn::If, Fn::Equals, Fn::Not, Ref AWS::AccountId and the template's parameters). */
function resolve(value: unknown, params: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{param:(\w+)\}/g, (_whole, name: string) => {
      const param = params[name];
      if (param === undefined) throw new Error(`resources/events.yml: no local value for \${param:${name}}`);
      return param;
    });
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, params));
  if (!isObject(value)) return value;
  const [[key, argument] = []] = Object.entries(value);
  if (Object.keys(value).length === 1 && key?.startsWith('Fn::')) return intrinsic(key, argument, params);
  if (Object.keys(value).length === 1 && key === 'Ref') {
    if (argument === 'AWS::AccountId') return LOCAL_ACCOUNT_ID;
    // A template parameter: its default, which packaging fills from a ${param:...}.
    const parameter = typeof argument === 'string' ? at(events, 'Parameters', argument) : undefined;
    if (parameter !== undefined) return resolve(at(parameter, 'Default'), params);
    throw new Error(`resources/events.yml: Ref ${String(argument)} has no local value`);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, params)]));
}

function intrinsic(name: string, argument: unknown, params: Record<string, string>): unknown {
  const args: unknown[] = Array.isArray(argument) ? argument : [argument];
  if (name === 'Fn::Equals') return resolve(args[0], params) === resolve(args[1], params);
  if (name === 'Fn::Not') return !resolve(args[0], params);
  if (name === 'Fn::If') {
    const [condition, whenTrue, whenFalse] = args;
    const definition = typeof condition === 'string' ? at(events, 'Conditions', condition) : undefined;
    if (definition === undefined) throw new Error(`resources/events.yml: no condition ${String(condition)}`);
    return resolve(resolve(definition, params) === true ? whenTrue : whenFalse, params);
  }
  throw new Error(`resources/events.yml: ${name} has no local meaning`);
}

/** The decision rule's EventPattern, as the local stage deploys it. */
export function decisionRulePattern(env: NodeJS.ProcessEnv = process.env): unknown {
  const pattern = resolve(at(events, 'Resources', 'DecisionRule', 'Properties', 'EventPattern'), localParams(env));
  assertSupportedPattern(pattern);
  return pattern;
}

/** The publisher's stream mappings (resources/events.yml), by the table whose stream each reads. */
export const STREAM_MAPPINGS = { requests: 'RequestEventsStreamMapping', erasures: 'ErasureEventsStreamMapping' } as const;

/** A stream mapping's filter, as Lambda applies it to each record before the publisher sees it: the requests table's unless named. */
export function streamFilterPatterns(mapping: keyof typeof STREAM_MAPPINGS = 'requests'): unknown[] {
  const filters = at(events, 'Resources', STREAM_MAPPINGS[mapping], 'Properties', 'FilterCriteria', 'Filters');
  const patterns = (Array.isArray(filters) ? filters : []).map((f): unknown => JSON.parse(String(at(f, 'Pattern'))));
  patterns.forEach((pattern) => assertSupportedPattern(pattern));
  return patterns;
}
