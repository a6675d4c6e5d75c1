import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../lib/http/outcomes';
import { REASON_CODES, STATUSES } from '../../lib/api-model/schemas';
import { clientModels } from '../../scripts/client-models';

/*
 * The Kotlin and Swift models npm run client:models makes for the Android and iOS teams
 * (docs/clients.md reviews them): their type names are the description's, their enums keep the
 * wire values, and the Kotlin ones compile, with Debian's kotlinc (apt-get install kotlin) where it
 * is installed. There is no Swift compiler here: the Swift models are read, not compiled.
 */

const kotlincInstalled = spawnSync('kotlinc', ['-version'], { stdio: 'ignore' }).status === 0;
if (!kotlincInstalled)
  console.log(
    'kotlinc is not on PATH: the Kotlin models (tests/generators/client-models.test.ts) are not compiled. apt-get install kotlin',
  );

/** The types every flavour names, as the description does. */
const TYPES = [
  'TerminationRequestInput',
  'BankDetails',
  'ReasonCode',
  'TerminationRequest',
  'TerminationRequestStatus',
  'TerminationRequestList',
  'Withdrawal',
  'TerminationReasonList',
  'TerminationReason',
  'ErrorBody',
  'ErrorDetail',
  'ErrorCode',
];

const declared = (source: string, pattern: RegExp) => [...source.matchAll(pattern)].map((match) => String(match[1])).sort();

let kotlin = '';
let plainKotlin = '';
let swift = '';
const dir = mkdtempSync(join(tmpdir(), 'client-models-'));

beforeAll(async () => {
  [kotlin, plainKotlin, swift] = await Promise.all([clientModels('kotlin'), clientModels('kotlin-plain'), clientModels('swift')]);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the Kotlin models', () => {
  it("name the description's types once each, the withdrawal's one status WithdrawalStatus", () => {
    for (const source of [kotlin, plainKotlin]) {
      expect(declared(source, /^(?:data|enum) class (\w+)/gm)).toEqual([...TYPES, 'WithdrawalStatus'].sort());
    }
  });

  it('keep each wire value of the enums in @SerialName (kotlinx.serialization), the dates as java.time types', () => {
    for (const value of [...REASON_CODES, ...STATUSES, ...ERROR_CODES]) expect(kotlin).toContain(`@SerialName("${value}")`);
    expect(kotlin).toMatch(/val createdAt: OffsetDateTime/);
    expect(kotlin).toMatch(/val desiredTerminationDate: LocalDate/);
    expect(kotlin).toMatch(/val requestId: String/);
  });

  it.runIf(kotlincInstalled)(
    'compile as plain data classes with kotlinc',
    async () => {
      writeFileSync(join(dir, 'Models.kt'), plainKotlin);
      const compiled = await promisify(execFile)('kotlinc', [join(dir, 'Models.kt'), '-d', join(dir, 'classes')]).then(
        () => 'compiled',
        (error: unknown) => (error instanceof Error && 'stderr' in error ? String(error.stderr) : String(error)),
      );
      expect(compiled).toBe('compiled');
      for (const type of TYPES) expect(existsSync(join(dir, 'classes', 'bank', 'termination', 'api', `${type}.class`)), type).toBe(true);
    },
    240_000,
  );
});

describe('the Swift models', () => {
  it("name the description's types once each, as Codable structs and String enums", () => {
    expect(declared(swift, /^public (?:struct|enum) (\w+)/gm)).toEqual([...TYPES, 'WithdrawalStatus'].sort());
    expect(swift).toMatch(/^public struct TerminationRequest: Codable \{/m);
    expect(swift).toMatch(/^public enum ErrorCode: String, Codable \{/m);
  });

  it('keep the wire value of each enum case, and read the timestamps as Date', () => {
    for (const value of [...REASON_CODES, ...STATUSES, ...ERROR_CODES]) expect(swift).toMatch(new RegExp(`case \\w+ = "${value}"`));
    expect(swift).toMatch(/public let createdAt: Date/);
    expect(swift).toMatch(/public let withdrawnAt: Date/);
  });

  it('decode dates with .iso8601, which refuses the milliseconds every timestamp carries: docs/clients.md says what to set instead', () => {
    expect(swift).toContain('decoder.dateDecodingStrategy = .iso8601');
    expect(swift).not.toContain('withFractionalSeconds');
  });
});
