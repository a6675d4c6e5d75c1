import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import {
  IdempotencyConfig,
  IdempotencyAlreadyInProgressError,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { TransactionCanceledException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { isAccountKeyValid } from '../lib/banking/control-key';
import { textsFor } from '../lib/http/texts';
import { newRequestNumber } from '../lib/termination/request-number';
import { isUuid, validateTerminationInput } from '../lib/validation/validator';
import type { TerminationRequestInput } from '../lib/validation/schemas';

/*
 * The peer: the same endpoint as a typical team writes it with Powertools. Validation first
 * (the service's own validator, so both spend the same CPU on it), then makeIdempotent with the
 * DynamoDB persistence layer on its own table, keyed on the customer and the Idempotency-Key
 * header, with payload validation on contract and body. Inside: a consistent GetItem of the
 * contract, its checks in code, and one conditional TransactWriteItems of the active slot and the
 * request. Business refusals are thrown, so Powertools deletes its in-progress record and a retry
 * with the same key is not bound to a 4xx; a replay gets the stored 201 body with 200.
 *
 * DynamoDB calls per request: create = PutItem (in progress) + GetItem + TransactWriteItems +
 * UpdateItem (completed); 409 = PutItem + GetItem + TransactWriteItems + DeleteItem; contract 422
 * = PutItem + GetItem + DeleteItem; replay = PutItem (fails; the old record comes back with it).
 */

export interface PeerTables {
  idempotency: string;
  requests: string;
  contracts: string;
}

interface CreateCommand {
  customerId: string;
  idempotencyKey: string;
  contractId: string;
  input: TerminationRequestInput;
}

interface Created {
  statusCode: number;
  body: { requestId: string; requestNumber: string; status: string; createdAt: string; message: string };
}

class PeerError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errorCode: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const texts = textsFor('en');
/** One structured line per answer, as the service writes (the peer publishes no metrics). */
const logger = new Logger({ serviceName: 'termination-peer' });
/** "Not before today" in the bank's zone, with one formatter made at load as a team would. */
const businessDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Moscow', year: 'numeric', month: '2-digit', day: '2-digit' });

function answer(statusCode: number, body: unknown, correlationId: string, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', 'X-Correlation-Id': correlationId, ...headers },
    body: JSON.stringify(body),
  };
}

function refuse(error: PeerError, correlationId: string): APIGatewayProxyResult {
  const details = error.field ? [{ field: error.field, reason: error.message }] : [];
  return answer(error.statusCode, { errorCode: error.errorCode, message: error.message, correlationId, details }, correlationId);
}

function headerOf(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === wanted)?.[1];
}

function text(value: object, key: string): string {
  const found: unknown = Reflect.get(value, key);
  return typeof found === 'string' ? found : '';
}

/** Replays come back from the idempotency store as stored (the 201); only the status changes. */
function asReplay(response: unknown): Created {
  const body: unknown = response !== null && typeof response === 'object' ? Reflect.get(response, 'body') : undefined;
  if (body === null || typeof body !== 'object') throw new Error('peer: stored idempotent response has an unexpected shape');
  return {
    statusCode: 200,
    body: {
      requestId: text(body, 'requestId'),
      requestNumber: text(body, 'requestNumber'),
      status: text(body, 'status'),
      createdAt: text(body, 'createdAt'),
      message: text(body, 'message'),
    },
  };
}

export function createPeerHandler(
  client: DynamoDBClient,
  tables: PeerTables,
): (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult> {
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: tables.idempotency, awsSdkV3Client: client });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: '[customerId, idempotencyKey]',
    payloadValidationJmesPath: '[contractId, input]',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: 24 * 3600,
    responseHook: (response) => {
      const { statusCode, body } = asReplay(response);
      return { statusCode, body: { ...body } };
    },
  });

  async function create(command: CreateCommand): Promise<Created> {
    const { customerId, contractId, input } = command;
    const { Item: contract } = await doc.send(new GetCommand({ TableName: tables.contracts, Key: { contractId }, ConsistentRead: true }));
    if (!contract)
      throw new PeerError(404, 'CONTRACT_NOT_FOUND', texts.problem({ field: 'contractId', code: 'contractNotFound' }), 'contractId');
    if (contract['customerId'] !== customerId)
      throw new PeerError(
        403,
        'CONTRACT_ACCESS_DENIED',
        texts.problem({ field: 'contractId', code: 'contractAccessDenied' }),
        'contractId',
      );
    if (contract['status'] !== 'ACTIVE')
      throw new PeerError(422, 'CONTRACT_NOT_ACTIVE', texts.problem({ field: 'contractId', code: 'contractNotActive' }), 'contractId');
    const endDate = contract['endDate'];
    if (typeof endDate === 'string' && endDate < input.desiredTerminationDate) {
      throw new PeerError(
        422,
        'TERMINATION_DATE_AFTER_CONTRACT_END',
        texts.problem({ field: 'desiredTerminationDate', code: 'dateAfterContractEnd', endDate: endDate }),
        'desiredTerminationDate',
      );
    }

    const requestId = randomUUID();
    const requestNumber = newRequestNumber();
    const createdAt = new Date().toISOString();
    try {
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tables.requests,
                Item: { pk: `ACTIVE#${contractId}`, requestId, requestNumber, customerId, createdAt },
                ConditionExpression: 'attribute_not_exists(pk)',
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            {
              Put: {
                TableName: tables.requests,
                Item: {
                  pk: `REQUEST#${requestId}`,
                  requestId,
                  requestNumber,
                  status: 'SUBMITTED',
                  customerId,
                  contractId,
                  idempotencyKey: command.idempotencyKey,
                  createdAt,
                  ...input,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
    } catch (error) {
      const slot = error instanceof TransactionCanceledException ? error.CancellationReasons?.[0] : undefined;
      if (slot?.Code === 'ConditionalCheckFailed') {
        const holder = slot.Item ? unmarshall(slot.Item)['requestNumber'] : undefined;
        const number = typeof holder === 'string' ? holder : '?';
        throw new PeerError(
          409,
          'ACTIVE_REQUEST_ALREADY_EXISTS',
          texts.problem({ field: 'contractId', code: 'activeRequestExists', requestNumber: number }),
          'contractId',
        );
      }
      throw error;
    }
    return { statusCode: 201, body: { requestId, requestNumber, status: 'SUBMITTED', createdAt, message: texts.created(requestNumber) } };
  }

  const createOnce = makeIdempotent(create, { persistenceStore, config });

  return async (event, context) => {
    const started = Date.now();
    const correlationId = headerOf(event, 'X-Correlation-Id') ?? randomUUID();
    const result = await handle(event, context, correlationId);
    logger.info('request answered', { correlationId, statusCode: result.statusCode, durationMs: Date.now() - started });
    return result;
  };

  async function handle(event: APIGatewayProxyEvent, context: Context, correlationId: string): Promise<APIGatewayProxyResult> {
    config.registerLambdaContext(context);
    try {
      const customerId = event.requestContext.authorizer?.['customerId'];
      if (typeof customerId !== 'string' || customerId === '') throw new PeerError(401, 'UNAUTHORIZED', 'Authorization is required.');
      const idempotencyKey = headerOf(event, 'Idempotency-Key');
      if (!idempotencyKey)
        throw new PeerError(
          400,
          'IDEMPOTENCY_KEY_MISSING',
          texts.problem({ field: 'Idempotency-Key', code: 'required' }),
          'Idempotency-Key',
        );
      const contractId = event.pathParameters?.['contractId'];
      let body: unknown;
      try {
        body = JSON.parse(event.body ?? '');
      } catch {
        throw new PeerError(400, 'MALFORMED_REQUEST', texts.problem({ field: 'body', code: 'notJson' }), 'body');
      }
      const validation = validateTerminationInput(body);
      if (!validation.ok || !isUuid(contractId) || !isUuid(idempotencyKey))
        throw new PeerError(400, 'VALIDATION_ERROR', 'The request has invalid fields.');
      const { input } = validation;
      if (input.desiredTerminationDate < businessDate.format(new Date()))
        throw new PeerError(
          400,
          'VALIDATION_ERROR',
          texts.problem({ field: 'desiredTerminationDate', code: 'dateInPast', today: businessDate.format(new Date()) }),
          'desiredTerminationDate',
        );
      if (!isAccountKeyValid(input.bankDetails.bik, input.bankDetails.accountNumber)) {
        throw new PeerError(
          422,
          'BANK_ACCOUNT_KEY_MISMATCH',
          texts.problem({ field: 'bankDetails.accountNumber', code: 'accountKeyMismatch' }),
          'bankDetails.accountNumber',
        );
      }
      if (input.reasonCode === 'OTHER' && (input.comment ?? '').trim() === '')
        throw new PeerError(422, 'COMMENT_REQUIRED', texts.problem({ field: 'comment', code: 'commentRequired' }), 'comment');

      const result = await createOnce({
        customerId,
        idempotencyKey: idempotencyKey.toLowerCase(),
        contractId: contractId.toLowerCase(),
        input,
      });
      const location = `/api/v1/contracts/${contractId}/termination-requests/${result.body.requestId}`;
      return answer(result.statusCode, result.body, correlationId, {
        Location: location,
        ...(result.statusCode === 200 ? { 'Idempotent-Replayed': 'true' } : {}),
      });
    } catch (error) {
      if (error instanceof PeerError) return refuse(error, correlationId);
      if (error instanceof IdempotencyValidationError)
        return refuse(
          new PeerError(422, 'IDEMPOTENCY_KEY_REUSED', texts.problem({ field: 'Idempotency-Key', code: 'keyReused' }), 'Idempotency-Key'),
          correlationId,
        );
      if (error instanceof IdempotencyAlreadyInProgressError)
        return refuse(new PeerError(409, 'REQUEST_IN_PROGRESS', 'The same request is being processed.'), correlationId);
      logger.error('request failed', { correlationId, error });
      return answer(500, { errorCode: 'INTERNAL_ERROR', message: 'Internal error.', correlationId, details: [] }, correlationId);
    }
  }
}
