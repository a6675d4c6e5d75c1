import { LOCAL_ACCOUNT_ID } from './template-patterns';
import type { EventBridgeEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import type { StatusDecisionDetail } from '../../lib/api-model/event-schemas';

export const LOCAL_DECISION_SOURCE = 'bank.back-office';
export const DECISION_DETAIL_TYPE = 'TerminationRequestStatusChanged';

export interface DecisionOptions {
  requestId: string;
  contractId: string;
  status: StatusDecisionDetail['status'];
  reason?: string;
  /** The back office's id of the decision: a new one unless a resend is meant. */
  eventId?: string;
  occurredAt?: string;
}

/** A back-office decision as EventBridge delivers it to the consumer (docs/events.md). */
export function decisionEvent(options: DecisionOptions, source = LOCAL_DECISION_SOURCE): EventBridgeEvent<string, StatusDecisionDetail> {
  const time = options.occurredAt ?? new Date().toISOString();
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': DECISION_DETAIL_TYPE,
    source,
    account: LOCAL_ACCOUNT_ID,
    time,
    region: 'eu-central-1',
    resources: [],
    detail: {
      eventId: options.eventId ?? randomUUID(),
      requestId: options.requestId,
      contractId: options.contractId,
      status: options.status,
      ...(options.reason === undefined ? {} : { reason: options.reason }),
      occurredAt: time,
    },
  };
}
