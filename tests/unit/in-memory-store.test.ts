import { InMemoryStore } from '../support/in-memory-store';
import { describeStoreContract } from '../support/store-contract';

/* The store port's contract (tests/support/store-contract.ts) on the in-memory store the unit tests use. */

describeStoreContract('the in-memory store', () => {
  const store = new InMemoryStore();
  return Promise.resolve({
    store,
    addContract: (contract) => {
      store.addContract(contract);
      return Promise.resolve();
    },
    setSlot: (contractId, slot) => {
      store.setSlot(contractId, slot);
      return Promise.resolve();
    },
    addDocument: (document) => {
      store.addDocument(document);
      return Promise.resolve();
    },
  });
});
