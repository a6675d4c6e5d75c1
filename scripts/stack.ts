import { runningStack, STACK_FILE } from './local/running-stack';

/*
 * npm run -s stack -- <api|page|dynamodb|jwks|stand-in>: one address of the stack npm start is
 * running, alone on stdout, on whatever ports it was started with (.local/stack.json), so a
 * command can name it: curl "$(npm run -s stack -- api)/api/v1/termination-reasons" ...
 * Without a name, every address, one per line. No running stack: a message and exit code 1.
 */

const stack = runningStack();
const addresses = {
  api: stack.apiUrl,
  page: stack.pageUrl,
  dynamodb: stack.dynamoDbEndpoint,
  jwks: stack.jwksUri,
  'stand-in': stack.awsStandIn,
};
const names = Object.keys(addresses);
const [wanted, ...extra] = process.argv.slice(2);

// The defaults stand in (pid 0) when no npm start wrote a file, or its process is gone.
if (stack.pid === 0) {
  console.error(`No local stack is running (${STACK_FILE} names none that lives): start one with npm start.`);
  process.exit(1);
}
if (wanted === undefined) {
  for (const [name, address] of Object.entries(addresses)) console.log(`${name.padEnd(9)} ${address}`);
} else {
  const address = Object.entries(addresses).find(([name]) => name === wanted)?.[1];
  if (address === undefined || extra.length > 0) {
    console.error(`usage: npm run -s stack -- [${names.join('|')}]`);
    process.exit(2);
  }
  process.stdout.write(`${address}\n`);
}
