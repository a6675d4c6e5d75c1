import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../lib/http/outcomes';
import { REASON_CODES, STATUSES } from '../../lib/api-model/schemas';
import { clientModels, UNKNOWN_CASE } from '../../scripts/client-models';

/*
 * The Kotlin and Swift models npm run client:models makes for the Android and iOS teams
 * (docs/clients.md reviews them): their type names are the description's, their enums keep the
 * wire values, they tolerate what the API may add within v1 (an unknown field, an unknown enum
 * value: docs/decisions/0001-api-contract-and-versioning.md), and the Kotlin types compile, with
 * Debian's kotlinc (apt-get install kotlin) where it is installed.
 *
 * What cannot run here is read instead. The kotlinx.serialization runtime is in no package this
 * machine can install (Debian ships only its compiler plugin; Maven is out of reach), so the
 * kotlinx models teams are given are checked for their configuration (the Json they decode with,
 * each enum's serializer and catch-all), and kotlinc compiles the same types without
 * annotations, catch-all included. There is no Swift compiler here: the Swift models are read,
 * not compiled. The TypeScript client decodes an answer with an unknown field and code in
 * tests/unit/client-evolution.test.ts.
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
  'TerminationRequestDetails',
  'SubmittedRequest',
  'SubmittedBankDetails',
  'TimelineEntry',
  'CustomerTerminationRequestList',
  'CustomerTerminationRequest',
  'Withdrawal',
  'TerminationReasonList',
  'TerminationReason',
  'ErrorBody',
  'ErrorDetail',
  'ErrorCode',
];

const declared = (source: string, pattern: RegExp) => [...source.matchAll(pattern)].map((match) => String(match[1])).sort();

/** The enums of every flavour: each must read a value it does not know as its catch-all. */
const ENUMS = ['ReasonCode', 'TerminationRequestStatus', 'WithdrawalStatus', 'ErrorCode'].sort();

/** The body of one declaration, from its line to the closing brace at the start of a line. */
function declaration(source: string, head: string): string {
  const start = source.indexOf(head);
  if (start < 0) throw new Error(`no ${head}`);
  return source.slice(start, source.indexOf('\n}', start) + 2);
}

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

  it("hold one TerminationRequest wherever a body holds one: quicktype's copies of it, one per root, are folded into it", () => {
    for (const source of [kotlin, plainKotlin]) {
      expect(source).toMatch(/^ {4}(?:@SerialName\("\w+"\)\s*)?val items: List<TerminationRequest>/m);
      expect([...source.matchAll(/val request: (\w+)/g)].map((match) => match[1])).toEqual(['TerminationRequest', 'TerminationRequest']);
    }
    expect([...swift.matchAll(/public let request: (\w+)/g)].map((match) => match[1])).toEqual([
      'TerminationRequest',
      'TerminationRequest',
    ]);
  });

  it('keep each wire value of the enums in @SerialName (kotlinx.serialization), the dates as java.time types', () => {
    for (const value of [...REASON_CODES, ...STATUSES, ...ERROR_CODES]) expect(kotlin).toContain(`@SerialName("${value}")`);
    expect(kotlin).toMatch(/val createdAt: OffsetDateTime/);
    expect(kotlin).toMatch(/val desiredTerminationDate: LocalDate/);
    expect(kotlin).toMatch(/val requestId: String/);
  });

  it('decode with a Json that ignores unknown keys, the one the file tells teams to use, and no other', () => {
    expect(kotlin).toContain('val apiJson = Json { ignoreUnknownKeys = true }');
    expect([...kotlin.matchAll(/Json \{/g)]).toHaveLength(1);
    expect(kotlin).toMatch(/^\/\/ val errorBody += apiJson\.decodeFromString\(ErrorBody\.serializer\(\), jsonString\)$/m);
    expect(kotlin).not.toMatch(/json\.parse\(|allowStructuredMapKeys/);
  });

  it('read an enum value they do not know as the catch-all Unknown, through a serializer of each enum', () => {
    expect(declared(kotlin, /^@Serializable\(with = (\w+)Serializer::class\)\nenum class \1\b/gm)).toEqual(ENUMS);
    expect(declared(kotlin, /^enum class (\w+)/gm)).toEqual(ENUMS);
    for (const name of ENUMS) {
      expect(declaration(kotlin, `enum class ${name}(`)).toMatch(new RegExp(`\\n    ${UNKNOWN_CASE.kotlin}\\(""\\);\\n\\}$`));
      const serializer = declaration(kotlin, `object ${name}Serializer : KSerializer<${name}> {`);
      expect(serializer).toContain(
        `firstOrNull { it != ${name}.${UNKNOWN_CASE.kotlin} && it.value == wire } ?: ${name}.${UNKNOWN_CASE.kotlin}`,
      );
      expect(serializer).toContain('encoder.encodeString(value.value)');
      expect(declaration(plainKotlin, `enum class ${name} {`)).toMatch(new RegExp(`\\n    ${UNKNOWN_CASE.kotlin}\\n\\}$`));
    }
  });

  it.runIf(kotlincInstalled)(
    'compile as plain data classes with kotlinc, each enum with its catch-all',
    async () => {
      writeFileSync(join(dir, 'Models.kt'), plainKotlin);
      const compiled = await promisify(execFile)('kotlinc', [join(dir, 'Models.kt'), '-d', join(dir, 'classes')]).then(
        () => 'compiled',
        (error: unknown) => (error instanceof Error && 'stderr' in error ? String(error.stderr) : String(error)),
      );
      expect(compiled).toBe('compiled');
      for (const type of TYPES) expect(existsSync(join(dir, 'classes', 'bank', 'termination', 'api', `${type}.class`)), type).toBe(true);
      // The catch-all is a case of each enum, as compiled: a nested class file would say otherwise.
      const javap = await promisify(execFile)('javap', ['-cp', join(dir, 'classes'), 'bank.termination.api.ErrorCode']);
      expect(javap.stdout).toContain(`public static final bank.termination.api.ErrorCode ${UNKNOWN_CASE.kotlin};`);
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

  it('read an enum value they do not know as the catch-all .unknown; unknown keys are ignored by JSONDecoder as it is', () => {
    for (const name of ENUMS) {
      const body = declaration(swift, `public enum ${name}: String, Codable {`);
      expect(body).toContain(`\n    case ${UNKNOWN_CASE.swift}\n`);
      expect(body).toContain('public init(from decoder: Decoder) throws {');
      expect(body).toContain(`self = ${name}(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .${UNKNOWN_CASE.swift}`);
    }
    // No struct decodes itself: each takes the synthesized Decodable, which skips keys it has no CodingKey for.
    expect([...swift.matchAll(/init\(from decoder: Decoder\)/g)]).toHaveLength(ENUMS.length);
  });

  it('decode dates with .iso8601, which refuses the milliseconds every timestamp carries: docs/clients.md says what to set instead', () => {
    expect(swift).toContain('decoder.dateDecodingStrategy = .iso8601');
    expect(swift).not.toContain('withFractionalSeconds');
  });
});
