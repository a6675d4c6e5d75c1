import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { formats } from '../lib/api-model/formats';
import { ASYNCAPI_PATH } from './asyncapi';

/*
 * npm run lint:api, for docs/asyncapi.yaml: @asyncapi/parser (the AsyncAPI Initiative's parser
 * and its Spectral rulesets, core and recommended) must report nothing at all, errors, warnings,
 * information or hints, but the rules turned off below, each with its reason. The parser checks
 * the examples of AsyncAPI 2 documents only, so each example of every message is validated here
 * against its message's payload, with the formats the service checks.
 */

const RULES_OFF = {
  // The description is AsyncAPI 3.0 on purpose: what @asyncapi/modelina and most tools read
  // today (tests/generators/event-models.test.ts); 3.1 adds nothing this description would use.
  'asyncapi-latest-version': 'off',
} as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every example of every message that does not validate against the message's payload, with why. */
export function exampleProblems(document: unknown): string[] {
  const ajv = new Ajv({ allErrors: true, strict: false });
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
  ajv.addSchema({ ...(isObject(document) ? document : {}), $id: 'asyncapi' });
  const messages = isObject(document) && isObject(document['components']) ? document['components']['messages'] : undefined;
  return Object.entries(isObject(messages) ? messages : {}).flatMap(([name, message]) => {
    if (!isObject(message) || !isObject(message['payload']) || !Array.isArray(message['examples']))
      return [`${name}: no payload or examples`];
    const validate = ajv.compile({ $ref: `asyncapi${String(message['payload']['$ref'])}` });
    return message['examples'].flatMap((example: unknown, i) =>
      isObject(example) && validate(example['payload']) ? [] : [`${name} example ${i}: ${ajv.errorsText(validate.errors)}`],
    );
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = readFileSync(ASYNCAPI_PATH, 'utf8');
  const parser = new Parser({ ruleset: { extends: [], rules: RULES_OFF } });
  const { document, diagnostics } = await parser.parse(text, { source: ASYNCAPI_PATH });
  const problems = [
    ...diagnostics.map(
      (d) => `${ASYNCAPI_PATH}:${d.range.start.line + 1} ${d.code} (severity ${d.severity}) at ${d.path.join('.')}: ${d.message}`,
    ),
    ...(document === undefined ? [] : exampleProblems(parse(text))),
  ];
  for (const problem of problems) console.error(problem);
  console.log(`${ASYNCAPI_PATH}: ${problems.length === 0 ? 'valid AsyncAPI 3.0, examples included' : `${problems.length} problems`}`);
  if (problems.length > 0 || document === undefined) process.exit(1);
}
