import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { keyIdOf } from '../../lib/aws/kms-signer';

/*
 * moto's CloudFormation makes every KMS key symmetric, whatever the template's KeySpec (the spec
 * is checked in tests/deploy/template.test.ts). So that the deploy and the deployed publisher
 * meet, under the stack's own key id, the ECC_NIST_P256 key AWS would have made, this stands
 * between them and moto's KMS (AWS_ENDPOINT_URL_KMS): Sign and GetPublicKey of a key moto's
 * CloudFormation made are done with an ECC_NIST_P256 key of its own, made through moto's KMS API
 * on first use (one per stack key), and answered under the key id asked for. Keys made through
 * this endpoint are moto's own asymmetric keys and pass untouched; so does every other call.
 */

export interface EccKeys {
  endpoint: string;
  /** The KMS API's key standing in for a key moto's CloudFormation made, by the latter's id. */
  standIns: Map<string, string>;
  stop: () => Promise<void>;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export async function motoEccKeys(motoEndpoint: string, region: string): Promise<EccKeys> {
  const kms = new KMSClient({ region, endpoint: motoEndpoint, credentials: { accessKeyId: 'r', secretAccessKey: 'r' } });
  /** Keys made through this endpoint: asymmetric as asked. */
  const made = new Set<string>();
  const standIns = new Map<string, string>();
  /** The call as the SDK made it (moto reads the service from its Authorization header), its body perhaps changed. */
  const toMoto = async (headers: IncomingHttpHeaders, body: unknown) => {
    const forwarded = new Headers();
    for (const [name, value] of Object.entries(headers))
      if (!['host', 'content-length', 'connection'].includes(name) && value !== undefined) forwarded.set(name, String(value));
    const answer = await fetch(motoEndpoint, { method: 'POST', headers: forwarded, body: JSON.stringify(body) });
    return { status: answer.status, text: await answer.text() };
  };
  async function standInFor(keyId: string): Promise<string> {
    const known = standIns.get(keyId);
    if (known !== undefined) return known;
    const { KeyMetadata } = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' }));
    const id = KeyMetadata?.KeyId ?? '';
    standIns.set(keyId, id);
    return id;
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const target = String(req.headers['x-amz-target'] ?? '');
        const request: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        const asked = isRecord(request) && typeof request['KeyId'] === 'string' ? request['KeyId'] : undefined;
        const mapped =
          asked !== undefined && /\.(Sign|GetPublicKey)$/.test(target) && !made.has(keyIdOf(asked))
            ? await standInFor(keyIdOf(asked))
            : undefined;
        const { status, text } = await toMoto(
          req.headers,
          mapped === undefined || !isRecord(request) ? request : { ...request, KeyId: mapped },
        );
        let answer: unknown = text === '' ? undefined : JSON.parse(text);
        if (target.endsWith('.CreateKey') && isRecord(answer) && isRecord(answer['KeyMetadata']))
          made.add(String(answer['KeyMetadata']['KeyId']));
        if (mapped !== undefined && isRecord(answer) && 'KeyId' in answer) answer = { ...answer, KeyId: asked };
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(answer === undefined ? '' : JSON.stringify(answer));
      })().catch((error: unknown) => {
        res
          .writeHead(500, { 'content-type': 'application/x-amz-json-1.1' })
          .end(JSON.stringify({ __type: 'ProxyError', message: String(error) }));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = address !== null && typeof address === 'object' ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${String(port)}`,
    standIns,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
