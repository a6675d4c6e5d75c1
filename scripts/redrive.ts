import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { parseArgs } from 'node:util';
import { localEndpoint } from '../lib/aws/local-endpoint';
import { redriveDecisions, redrivePublisher, sqsDeadLetterQueue, type RedriveResult } from './operations/dead-letter-redrive';
import { awsInvoker, offlineInvoker, type LambdaInvoke } from './operations/lambda-invoke';
import { runningStack } from './local/running-stack';
import { LOCAL_DEAD_LETTER_QUEUES } from './local/local-queues';

/*
 * npm run redrive -- --queue decisions|publisher [--max N] [--dry-run]: hands the messages of a
 * dead-letter queue to their function again, and deletes each one the function took
 * (docs/operations.md, Redrive). Without --stage it works on the local stack npm start runs
 * (the stand-in's queues, serverless offline's functions); with --stage it works on that stage in
 * AWS, with the operator's credentials. Both through the AWS SDK, with the same code: SQS and
 * Lambda's Invoke (serverless offline speaks Lambda's API locally); no AWS CLI is needed. The
 * publisher's batches are handed to the publisher as stream positions: it reads the records
 * with its own role, and whoever runs this never reads the stream.
 */

const QUEUES = {
  decisions: { queueName: 'decision-dead-letters', functionKey: 'applyStatusDecision' },
  publisher: { queueName: 'publisher-dead-letters', functionKey: 'publishRequestEvents' },
} as const;

const usage = `usage: npm run redrive -- --queue decisions|publisher [--max N] [--dry-run]
         [--stage <stage> [--region <region>]] [--queue-url <url>] [--function <name>] [--stream-arn <arn>]
         [--visibility-timeout <seconds>]
  --queue               which dead-letter queue: the consumer's decisions, or the publisher's stream batches
  --max                 at most this many messages (default 10)
  --dry-run             read and report, invoke nothing, delete nothing
  --stage               a deployed stage (AWS, your credentials); without it, the local stack (npm start)
  --region              with --stage (default AWS_REGION, else eu-central-1)
  --queue-url           the queue (default: contract-termination-<stage>-<queue>-dead-letters, or the local stand-in's)
  --function            the function (default: contract-termination-<stage>-applyStatusDecision|publishRequestEvents; locally its serverless key)
  --stream-arn          ask the publisher to read its batches from this stream instead of the one each message names (it must be one the publisher consumes)
  --visibility-timeout  seconds the run hides the messages it took from other readers (default 300)`;

function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    queue: { type: 'string' },
    max: { type: 'string', default: '10' },
    'dry-run': { type: 'boolean', default: false },
    stage: { type: 'string' },
    region: { type: 'string' },
    'queue-url': { type: 'string' },
    function: { type: 'string' },
    'stream-arn': { type: 'string' },
    'visibility-timeout': { type: 'string', default: '300' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const which = values.queue === 'decisions' || values.queue === 'publisher' ? values.queue : fail('--queue must be decisions or publisher');
const max = Number(values.max);
if (!Number.isInteger(max) || max < 1) fail('--max must be a whole number of 1 or more');
const visibility = Number(values['visibility-timeout']);
if (!Number.isInteger(visibility) || visibility < 1 || visibility > 43_200) fail('--visibility-timeout must be 1 to 43200 seconds');
const { queueName, functionKey } = QUEUES[which];
const dryRun = values['dry-run'];

interface Target {
  where: string;
  sqs: SQSClient;
  queueUrl: () => Promise<string>;
  invoke: LambdaInvoke;
}

function awsTarget(stage: string): Target {
  const region = values.region ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'] ?? 'eu-central-1';
  const sqs = new SQSClient({ region });
  const functionName = values.function ?? `contract-termination-${stage}-${functionKey}`;
  return {
    where: `stage ${stage} in ${region}, function ${functionName}`,
    sqs,
    queueUrl: async () =>
      values['queue-url'] ??
      (await sqs.send(new GetQueueUrlCommand({ QueueName: `contract-termination-${stage}-${queueName}` }))).QueueUrl ??
      fail(`No queue contract-termination-${stage}-${queueName} in ${region}`),
    invoke: awsInvoker(functionName, region),
  };
}

function localTarget(): Target {
  const stack = runningStack();
  const queueUrl = values['queue-url'] ?? LOCAL_DEAD_LETTER_QUEUES[which](stack.awsStandIn);
  return {
    where: `the local stack (serverless offline on port ${stack.lambdaPort})`,
    sqs: new SQSClient({ region: 'eu-central-1', maxAttempts: 1, ...localEndpoint(new URL(queueUrl).origin) }),
    queueUrl: () => Promise.resolve(queueUrl),
    invoke: offlineInvoker(values.function ?? functionKey, stack.lambdaPort),
  };
}

function print(result: RedriveResult): void {
  console.log(
    `${result.action.padEnd(13)} ${result.messageId}  ${result.kind}${result.about ? `  ${result.about}` : ''}\n              ${result.outcome}`,
  );
}

const target = values.stage === undefined ? localTarget() : awsTarget(values.stage);
try {
  const queueUrl = await target.queueUrl();
  const queue = sqsDeadLetterQueue(target.sqs, queueUrl, visibility);
  const before = await queue.depth();
  console.log(`${which} dead letters: ${queueUrl}, on ${target.where}`);
  console.log(
    `${before.waiting} waiting, ${before.inFlight} in flight; taking up to ${max}${dryRun ? ' (dry run: nothing is invoked or deleted)' : ''}\n`,
  );
  const options = { queue, max, dryRun, onResult: print };
  const results =
    which === 'decisions'
      ? await redriveDecisions({ ...options, consumer: target.invoke })
      : await redrivePublisher({
          ...options,
          publisher: target.invoke,
          ...(values['stream-arn'] === undefined ? {} : { streamArn: values['stream-arn'] }),
        });
  const count = (action: RedriveResult['action']) => results.filter((r) => r.action === action).length;
  console.log(
    dryRun
      ? `\n${results.length} read: ${count('would redrive')} would be redriven, ${count('would delete')} deleted, ${count('would keep')} kept.`
      : `\n${results.length} read: ${count('deleted')} deleted, ${count('kept')} kept (visible again).`,
  );
  process.exitCode = count('kept') > 0 ? 1 : 0;
} catch (error) {
  const refused = (e: unknown): boolean =>
    e instanceof Error && (('code' in e && e.code === 'ECONNREFUSED') || (e instanceof AggregateError && e.errors.some(refused)));
  if (values.stage === undefined && refused(error)) {
    console.error(`Could not reach the local stack: is npm start running? (${String(error)})`);
    process.exitCode = 1;
  } else throw error;
} finally {
  target.sqs.destroy();
}
