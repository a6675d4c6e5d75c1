// The back office's side of a decision's signature, as the service checks it (docs/events.md,
// "Signing a decision"). Node 18 or later, nothing to install:
//
//   node sign-decision.mjs jwks <private-key.pem> <kid>               the JWKS to publish (public keys only)
//   node sign-decision.mjs sign <private-key.pem> <kid> <detail.json> the detail, signed: PutEvents' Detail
//
// The key is RSA (RS256); <detail.json> is the decision without its signature.
import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The decisions' source on the bus (DECISION_SOURCE): the signature's issuer. */
const ISSUER = 'bank.back-office';
/** Every field of the detail but the signature, each repeated exactly in the claims. */
const SIGNED_FIELDS = ['eventId', 'requestId', 'contractId', 'status', 'reason', 'occurredAt'];

const [command, keyFile, kid, detailFile] = process.argv.slice(2);
if (!keyFile || !kid || !['jwks', 'sign'].includes(command) || (command === 'sign' && !detailFile)) {
  console.error(
    'usage: node sign-decision.mjs jwks <private-key.pem> <kid>\n       node sign-decision.mjs sign <private-key.pem> <kid> <detail.json>',
  );
  process.exit(2);
}
const privateKey = createPrivateKey(readFileSync(keyFile));

if (command === 'jwks') {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  console.log(JSON.stringify({ keys: [{ ...jwk, kid, alg: 'RS256', use: 'sig' }] }, null, 2));
} else {
  const detail = JSON.parse(readFileSync(detailFile, 'utf8'));
  // Who signs, when (seconds), and the decision's fields as the detail carries them; a field the
  // detail lacks (a decision without a reason) is left out. No exp: a decision stays valid while
  // its key is published.
  const claims = { iss: ISSUER, iat: Math.floor(Date.now() / 1000) };
  for (const field of SIGNED_FIELDS) if (detail[field] !== undefined) claims[field] = detail[field];
  const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'RS256', typ: 'JWT', kid })}.${part(claims)}`;
  const signature = `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
  console.log(JSON.stringify({ ...detail, signature }, null, 2));
}
