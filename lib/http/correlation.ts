import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isUuid } from '../api-model/validator';
import type { Problem } from '../api-model/problems';
import { header } from './request';

/**
 * The id every answer carries: the client's X-Correlation-Id when it is a UUID, else a new
 * one; a sent value that is not a UUID is also a field problem to report.
 */
export function correlationOf(event: Pick<APIGatewayProxyEvent, 'headers'>): { correlationId: string; problems: Problem[] } {
  const sent = header(event, 'X-Correlation-Id');
  if (sent === undefined) return { correlationId: randomUUID(), problems: [] };
  if (isUuid(sent)) return { correlationId: sent, problems: [] };
  return { correlationId: randomUUID(), problems: [{ field: 'X-Correlation-Id', code: 'mustBeUuid' }] };
}
