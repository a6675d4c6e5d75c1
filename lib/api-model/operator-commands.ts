import type { FromSchema } from 'json-schema-to-ts';

/*
 * What an operator may hand the publisher besides a stream batch (docs/operations.md, Redrive):
 * a batch the stream mapping gave up on, by its stream positions only, exactly as Lambda's
 * on-failure record names it. The publisher reads those records itself, with its own role, from
 * one of the streams it consumes; the operator never reads the stream.
 */

/** A DynamoDB stream's ARN: `arn:<partition>:dynamodb:<region>:<account>:table/<table>/stream/<label>`. */
const STREAM_ARN = '^arn:aws[a-z-]*:dynamodb:[a-z0-9-]{1,32}:[0-9]{12}:table/[A-Za-z0-9_.-]{3,255}/stream/[A-Za-z0-9:._-]{1,64}$';
/** DynamoDB's sequence numbers: 21 to 40 digits (DynamoDB Local's are shorter). */
const sequenceNumber = { type: 'string', pattern: '^[0-9]{1,40}$' } as const;

export const streamRedriveSchema = {
  $id: 'StreamRedrive',
  type: 'object',
  additionalProperties: false,
  required: ['redrive'],
  properties: {
    redrive: {
      type: 'object',
      additionalProperties: false,
      required: ['streamArn', 'shardId', 'startSequenceNumber', 'endSequenceNumber'],
      properties: {
        streamArn: { type: 'string', pattern: STREAM_ARN, maxLength: 1024 },
        shardId: { type: 'string', pattern: '^shardId-[A-Za-z0-9-]{1,64}$' },
        startSequenceNumber: sequenceNumber,
        endSequenceNumber: sequenceNumber,
      },
    },
  },
} as const;

export type StreamRedrive = FromSchema<typeof streamRedriveSchema>;
