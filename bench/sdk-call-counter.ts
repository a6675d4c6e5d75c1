import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/*
 * Counts DynamoDB commands with an SDK middleware at the 'initialize' step: once per command a
 * client sends, before any retry. Floor and peer attach it to their own clients. The service
 * builds its client inside the handler module at load time, so installSendHook() patches send()
 * of both client classes first: the first send of any client attaches the same middleware to
 * that client's stack (a document client shares the stack of the client it wraps).
 */

const counts = new Map<string, number>();
let total = 0;
const attached = new WeakSet<object>();
const NAME = 'benchSdkCallCounter';

function record(commandName: string | undefined): void {
  const name = (commandName ?? 'unknown').replace(/Command$/, '');
  counts.set(name, (counts.get(name) ?? 0) + 1);
  total++;
}

export function countCalls(client: DynamoDBClient | DynamoDBDocumentClient): void {
  if (attached.has(client.middlewareStack)) return;
  attached.add(client.middlewareStack);
  if (client instanceof DynamoDBClient) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        record(context.commandName);
        return next(args);
      },
      { step: 'initialize', name: NAME },
    );
  } else {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        record(context.commandName);
        return next(args);
      },
      { step: 'initialize', name: NAME },
    );
  }
}

function hook(prototype: DynamoDBClient | DynamoDBDocumentClient): void {
  const original = prototype.send;
  Object.defineProperty(prototype, 'send', {
    configurable: true,
    writable: true,
    value: function send(this: DynamoDBClient | DynamoDBDocumentClient, ...args: unknown[]): unknown {
      countCalls(this);
      return Reflect.apply(original, this, args);
    },
  });
}

let hooked = false;

/** Call before the service's handler module is imported. */
export function installSendHook(): void {
  if (hooked) return;
  hooked = true;
  hook(DynamoDBClient.prototype);
  hook(DynamoDBDocumentClient.prototype);
}

export const sdkCalls = {
  total: (): number => total,
  byOperation: (): Record<string, number> => Object.fromEntries(counts),
};
