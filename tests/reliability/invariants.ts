import { ofKind } from '../support/local-tables';

/** One answer the service gave during a race, with what was asked. */
export interface RaceAnswer {
  status: number;
  raw: string;
  body: Record<string, unknown>;
  customerId: string;
  contractId: string;
  idempotencyKey: string;
}

const text = (item: Record<string, unknown>, name: string): string => {
  const value = item[name];
  return typeof value === 'string' ? value : '';
};

/**
 * What must hold after any burst (docs/decisions 0004 to 0006), read from the service's table:
 * at most one request per contract, and exactly one where a call succeeded; every 2xx answer's
 * requestId exists for that customer and contract; every 2xx body equals the stored 201 body;
 * no idempotency record, slot or number item without its request; no request without its
 * idempotency record, slot and number.
 */
export function invariantViolations(items: Record<string, unknown>[], answers: RaceAnswer[]): string[] {
  const violations: string[] = [];
  const requests = new Map(ofKind(items, 'REQUEST').map((r) => [text(r, 'requestId'), r]));
  const records = new Map(ofKind(items, 'IDEMPOTENCY').map((r) => [text(r, 'pk'), r]));
  const slots = new Map(ofKind(items, 'ACTIVE_SLOT').map((s) => [text(s, 'pk'), s]));
  const numbers = new Map(ofKind(items, 'REQUEST_NUMBER').map((n) => [text(n, 'pk'), n]));

  const perContract = new Map<string, number>();
  for (const request of requests.values())
    perContract.set(text(request, 'contractId'), (perContract.get(text(request, 'contractId')) ?? 0) + 1);
  for (const [contractId, count] of perContract) if (count > 1) violations.push(`contract ${contractId} has ${count} requests`);

  for (const record of records.values())
    if (!requests.has(text(record, 'requestId'))) violations.push(`orphan idempotency record ${text(record, 'pk')}`);
  for (const slot of slots.values()) {
    const request = requests.get(text(slot, 'requestId'));
    if (!request || `CONTRACT#${text(request, 'contractId')}` !== text(slot, 'pk')) violations.push(`orphan slot ${text(slot, 'pk')}`);
  }
  // A number item holds the number alone: it is an orphan when no request carries its number.
  const numbered = new Set([...requests.values()].map((request) => `NUMBER#${text(request, 'requestNumber')}`));
  for (const number of numbers.values()) if (!numbered.has(text(number, 'pk'))) violations.push(`orphan number ${text(number, 'pk')}`);
  for (const [requestId, request] of requests) {
    const record = records.get(`IDEMPOTENCY#${text(request, 'customerId')}#${text(request, 'idempotencyKey')}`);
    if (!record || text(record, 'requestId') !== requestId) violations.push(`request ${requestId} without its idempotency record`);
    if (text(slots.get(`CONTRACT#${text(request, 'contractId')}`) ?? {}, 'requestId') !== requestId)
      violations.push(`request ${requestId} without its slot`);
    if (!numbers.has(`NUMBER#${text(request, 'requestNumber')}`)) violations.push(`request ${requestId} without its number`);
  }

  const succeeded = new Set<string>();
  for (const answer of answers) {
    if (answer.status !== 200 && answer.status !== 201) continue;
    succeeded.add(answer.contractId);
    const requestId = String(answer.body['requestId']);
    const request = requests.get(requestId);
    if (!request) {
      violations.push(`answer names request ${requestId}, which does not exist`);
      continue;
    }
    if (text(request, 'customerId') !== answer.customerId || text(request, 'contractId') !== answer.contractId) {
      violations.push(
        `answer for ${answer.customerId}/${answer.contractId} names request ${requestId} of ${text(request, 'customerId')}/${text(request, 'contractId')}`,
      );
    }
    const record = records.get(`IDEMPOTENCY#${text(request, 'customerId')}#${text(request, 'idempotencyKey')}`);
    if (record && text(record, 'responseJson') !== answer.raw)
      violations.push(`answer ${answer.status} for ${requestId} differs from the stored 201 body`);
  }
  for (const contractId of succeeded)
    if ((perContract.get(contractId) ?? 0) !== 1)
      violations.push(`contract ${contractId} answered 2xx but holds ${perContract.get(contractId) ?? 0} requests`);
  return violations;
}
