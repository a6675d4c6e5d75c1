import { randomUUID } from 'node:crypto';
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import { TransactionCanceledException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { isAccountKeyValid } from '../lib/termination/control-key';
import { textsFor } from '../lib/http/texts';
import { newRequestNumber } from '../lib/termination/request-number';
import type { Problem } from '../lib/api-model/problems';
import type { TerminationRequestInput } from '../lib/api-model/schemas';
import { isUuid, validateTerminationInput } from '../lib/api-model/validator';
import { failedParts, namedTransaction } from '../lib/dynamodb/write-parts';

/*
 * The peer: the same endpoint as a team would usually write it with Powertools. The service's
 * validator, then makeIdempotent with the DynamoDB persistence layer on its own table, keyed on
 * [customerId, Idempotency-Key] with payload validation on [contractId, input]. Inside: a
 * consistent GetItem of the contract, its checks in code, and one conditional TransactWriteItems
 * of the active slot and the request. Refusals are thrown, so Powertools deletes its in-progress
 * record and a 4xx never binds the key; a replay answers 200 with the stored body.
 */

class Refused extends Error {
  constructor(
    readonly statusCode: number,
    readonly errorCode: string,
    readonly problem?: Problem,
  ) {
    super(errorCode);
  }
}

interface Command {
  customerId: string;
  idempotencyKey: string;
  contractId: string;
  input: TerminationRequestInput;
}

const texts = textsFor('en');
const logger = new Logger({ serviceName: 'termination-peer' });
// en-CA formats as YYYY-MM-DD: today in the bank's zone, one formatter made at load.
const bankDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Moscow' });

export function createPeerHandler(
  client: DynamoDBClient,
  tables: { idempotency: string; requests: string; contracts: string },
): (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult> {
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: '[customerId, idempotencyKey]',
    payloadValidationJmesPath: '[contractId, input]',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: 24 * 3600,
    responseHook: (stored) =>
      typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? { ...stored, statusCode: 200 } : stored,
  });

  async function create({ customerId, idempotencyKey, contractId, input }: Command) {
    const { Item: contract } = await doc.send(new GetCommand({ TableName: tables.contracts, Key: { contractId }, ConsistentRead: true }));
    if (!contract) throw new Refused(404, 'CONTRACT_NOT_FOUND', { field: 'contractId', code: 'contractNotFound' });
    if (contract['customerId'] !== customerId)
      throw new Refused(403, 'CONTRACT_ACCESS_DENIED', { field: 'contractId', code: 'contractAccessDenied' });
    if (contract['status'] !== 'ACTIVE') throw new Refused(422, 'CONTRACT_NOT_ACTIVE', { field: 'contractId', code: 'contractNotActive' });
    const endDate: unknown = contract['endDate'];
    if (typeof endDate === 'string' && endDate < input.desiredTerminationDate)
      throw new Refused(422, 'TERMINATION_DATE_AFTER_CONTRACT_END', {
        field: 'desiredTerminationDate',
        code: 'dateAfterContractEnd',
        endDate,
      });

    const requestId = randomUUID();
    const requestNumber = newRequestNumber();
    const createdAt = new Date().toISOString();
    const slot = { pk: `CONTRACT#${contractId}`, sk: 'ACTIVE', requestId, requestNumber, customerId, createdAt };
    const request = {
      pk: `CONTRACT#${contractId}`,
      sk: `REQUEST#${requestId}`,
      requestId,
      requestNumber,
      status: 'SUBMITTED',
      customerId,
      contractId,
      idempotencyKey,
    };
    const write = namedTransaction<'slot' | 'request'>([
      {
        name: 'slot',
        item: {
          Put: {
            TableName: tables.requests,
            Item: slot,
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      },
      {
        name: 'request',
        item: {
          Put: {
            TableName: tables.requests,
            Item: { ...request, createdAt, ...input },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      },
    ]);
    try {
      await doc.send(new TransactWriteCommand(write.input));
    } catch (error) {
      const [failed] = error instanceof TransactionCanceledException ? failedParts(write, error.CancellationReasons ?? []) : [];
      if (failed?.part.name !== 'slot') throw error;
      const holder: unknown = failed.reason.Item ? unmarshall(failed.reason.Item)['requestNumber'] : undefined;
      throw new Refused(409, 'ACTIVE_REQUEST_ALREADY_EXISTS', {
        field: 'contractId',
        code: 'activeRequestExists',
        requestNumber: String(holder),
      });
    }
    return { statusCode: 201, body: { requestId, requestNumber, status: 'SUBMITTED', createdAt, message: texts.created(requestNumber) } };
  }

  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: tables.idempotency, awsSdkV3Client: client });
  const createOnce = makeIdempotent(create, { persistenceStore, config });

  async function handle(event: APIGatewayProxyEvent, correlationId: string): Promise<APIGatewayProxyResult> {
    const header = (name: string) => Object.entries(event.headers).find(([key]) => key.toLowerCase() === name)?.[1];
    const reply = (statusCode: number, body: object): APIGatewayProxyResult => ({
      statusCode,
      headers: { 'Content-Type': 'application/json', 'X-Correlation-Id': correlationId },
      body: JSON.stringify(body),
    });
    try {
      const customerId: unknown = event.requestContext.authorizer?.['customerId'];
      if (typeof customerId !== 'string' || customerId === '') throw new Refused(401, 'UNAUTHORIZED');
      const idempotencyKey = header('idempotency-key');
      const contractId = event.pathParameters?.['contractId'];
      let body: unknown;
      try {
        body = JSON.parse(event.body ?? '');
      } catch {
        throw new Refused(400, 'MALFORMED_REQUEST', { field: 'body', code: 'notJson' });
      }
      const validation = validateTerminationInput(body);
      if (!validation.ok || !isUuid(contractId) || !isUuid(idempotencyKey)) throw new Refused(400, 'VALIDATION_ERROR');
      const { input } = validation;
      const today = bankDate.format(new Date());
      if (input.desiredTerminationDate < today)
        throw new Refused(400, 'VALIDATION_ERROR', { field: 'desiredTerminationDate', code: 'dateInPast', today });
      if (!isAccountKeyValid(input.bankDetails.bik, input.bankDetails.accountNumber))
        throw new Refused(422, 'BANK_ACCOUNT_KEY_MISMATCH', { field: 'bankDetails.accountNumber', code: 'accountKeyMismatch' });
      if (input.reasonCode === 'OTHER' && (input.comment ?? '').trim() === '')
        throw new Refused(422, 'COMMENT_REQUIRED', { field: 'comment', code: 'commentRequired' });
      const result = await createOnce({
        customerId,
        idempotencyKey: idempotencyKey.toLowerCase(),
        contractId: contractId.toLowerCase(),
        input,
      });
      return reply(result.statusCode, result.body);
    } catch (error) {
      const refused =
        error instanceof IdempotencyValidationError
          ? new Refused(422, 'IDEMPOTENCY_KEY_REUSED', { field: 'Idempotency-Key', code: 'keyReused' })
          : error instanceof IdempotencyAlreadyInProgressError
            ? new Refused(409, 'REQUEST_IN_PROGRESS')
            : error;
      if (!(refused instanceof Refused)) {
        logger.error('request failed', { correlationId, error });
        return reply(500, { errorCode: 'INTERNAL_ERROR', correlationId });
      }
      const { statusCode, errorCode, problem } = refused;
      const details = problem ? [{ field: problem.field, reason: texts.problem(problem) }] : [];
      return reply(statusCode, { errorCode, message: details[0]?.reason ?? errorCode, correlationId, details });
    }
  }

  return async (event, context) => {
    const started = Date.now();
    config.registerLambdaContext(context);
    const correlationId = event.headers['X-Correlation-Id'] ?? randomUUID();
    const result = await handle(event, correlationId);
    logger.info('request answered', { correlationId, statusCode: result.statusCode, durationMs: Date.now() - started });
    return result;
  };
}
