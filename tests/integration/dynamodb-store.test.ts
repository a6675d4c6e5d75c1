import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbTerminationStore } from '../../lib/dynamodb/termination-table';
import { slotKeyOf } from '../../lib/dynamodb/keys';
import { useFreshTables } from '../support/local-tables';
import { describeStoreContract } from '../support/store-contract';

/* The store port's contract (tests/support/store-contract.ts) on DynamoDbTerminationStore, over DynamoDB Local. */

describeStoreContract('the DynamoDB store', async () => {
  const { doc, names } = await useFreshTables();
  return {
    store: new DynamoDbTerminationStore(doc, names),
    addContract: async (contract) => {
      await doc.send(new PutCommand({ TableName: names.contracts, Item: contract }));
    },
    setSlot: async (contractId, slot) => {
      const key = slotKeyOf(contractId);
      if (slot === undefined) await doc.send(new DeleteCommand({ TableName: names.requests, Key: key }));
      else
        await doc.send(
          new PutCommand({
            TableName: names.requests,
            Item: { ...key, kind: 'ACTIVE_SLOT', ...slot, createdAt: new Date().toISOString() },
          }),
        );
    },
    addDocument: async (document) => {
      await doc.send(new PutCommand({ TableName: names.documents, Item: document }));
    },
  };
});
