import {
  CloudFormationClient,
  GetTemplateCommand,
  ListStackResourcesCommand,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import { GetFunctionConfigurationCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import { at, jsonObject } from './json';

/*
 * The functions of a deployed stack as Lambda would run them: each one's configuration read
 * from the Lambda API, its code taken from the artifact the deploy uploaded (the template's
 * Code.S3Key in the deployment bucket), unpacked, and its handler called in a Node process of
 * its own (this one's Node, the Lambda runtime's major) with exactly that environment. For an
 * engine that cannot invoke Lambda itself (moto without Docker: tests/deploy/rehearsal.test.ts).
 */

export interface DeployedFunction {
  logicalId: string;
  functionName: string;
  handler: string;
  runtime: string;
  environment: Record<string, string>;
  /** The unpacked artifact. */
  dir: string;
}

const RUNNER = join(dirname(fileURLToPath(import.meta.url)), 'run-handler.ts');

/** Every resource of a stack, through the pages of ListStackResources. */
export async function stackResources(cloudFormation: CloudFormationClient, stackName: string): Promise<StackResourceSummary[]> {
  const all: StackResourceSummary[] = [];
  let NextToken: string | undefined;
  do {
    const page = await cloudFormation.send(new ListStackResourcesCommand({ StackName: stackName, NextToken }));
    all.push(...(page.StackResourceSummaries ?? []));
    NextToken = page.NextToken;
  } while (NextToken !== undefined);
  return all;
}

/** The stack's template as deployed (not as packaged on this disk). */
export async function deployedTemplate(cloudFormation: CloudFormationClient, stackName: string): Promise<Record<string, unknown>> {
  const { TemplateBody } = await cloudFormation.send(new GetTemplateCommand({ StackName: stackName }));
  return jsonObject(JSON.parse(TemplateBody ?? '{}'));
}

export async function deployedFunctions(
  clients: { cloudFormation: CloudFormationClient; lambda: LambdaClient; s3: S3Client },
  stackName: string,
  workDir: string,
): Promise<Map<string, DeployedFunction>> {
  const resources = await stackResources(clients.cloudFormation, stackName);
  const template = await deployedTemplate(clients.cloudFormation, stackName);
  const physical = new Map(resources.map((r) => [r.LogicalResourceId ?? '', r.PhysicalResourceId ?? '']));
  const functions = new Map<string, DeployedFunction>();
  for (const summary of resources.filter((r) => r.ResourceType === 'AWS::Lambda::Function')) {
    const logicalId = summary.LogicalResourceId ?? '';
    const functionName = summary.PhysicalResourceId ?? '';
    const configuration = await clients.lambda.send(new GetFunctionConfigurationCommand({ FunctionName: functionName }));
    const code = at(template, 'Resources', logicalId, 'Properties', 'Code');
    const bucketRef = at(code, 'S3Bucket', 'Ref');
    const bucket = typeof bucketRef === 'string' ? physical.get(bucketRef) : at(code, 'S3Bucket');
    const key = at(code, 'S3Key');
    if (typeof bucket !== 'string' || typeof key !== 'string') throw new Error(`${logicalId}: no S3 artifact in the deployed template`);
    const object = await clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const zip = await object.Body?.transformToByteArray();
    if (zip === undefined) throw new Error(`${logicalId}: s3://${bucket}/${key} is empty`);
    const dir = join(workDir, functionName);
    for (const [path, bytes] of Object.entries(unzipSync(zip))) {
      if (path.endsWith('/')) continue;
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), bytes);
    }
    functions.set(logicalId, {
      logicalId,
      functionName,
      handler: configuration.Handler ?? '',
      runtime: configuration.Runtime ?? '',
      environment: configuration.Environment?.Variables ?? {},
      dir,
    });
  }
  return functions;
}

/** The handler's file as the Node.js runtime finds it: <module>.js, .mjs or .cjs. */
function handlerFile(fn: DeployedFunction): { file: string; exportName: string } {
  const dot = fn.handler.lastIndexOf('.');
  const module = resolve(fn.dir, fn.handler.slice(0, dot));
  const file = ['.js', '.mjs', '.cjs'].map((ext) => module + ext).find((candidate) => existsSync(candidate));
  if (file === undefined) throw new Error(`${fn.functionName}: no file for handler ${fn.handler} in its artifact`);
  return { file, exportName: fn.handler.slice(dot + 1) };
}

/**
 * Calls a deployed function's handler once with an event, in a Node process whose environment
 * is the function's configuration plus what the Lambda runtime adds (region, credentials, name),
 * pointed at the emulator by `awsEnv`. Returns the handler's result.
 */
export async function invokeDeployed(fn: DeployedFunction, event: unknown, awsEnv: Record<string, string>): Promise<unknown> {
  return (await invokeDeployedWithOutput(fn, event, awsEnv)).result;
}

/** As invokeDeployed, with what the function printed: its log lines and EMF metric lines. */
export async function invokeDeployedWithOutput(
  fn: DeployedFunction,
  event: unknown,
  awsEnv: Record<string, string>,
): Promise<{ result: unknown; output: string }> {
  const { file, exportName } = handlerFile(fn);
  const eventFile = join(fn.dir, `event-${randomUUID()}.json`);
  writeFileSync(eventFile, JSON.stringify(event));
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [RUNNER, file, exportName, eventFile], {
    env: {
      PATH: process.env['PATH'] ?? '',
      ...fn.environment,
      ...awsEnv,
      AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = stdout.split('\n').find((l) => l.startsWith('HANDLER-RESULT '));
  if (line === undefined) throw new Error(`${fn.functionName} gave no result:\n${stdout}`);
  const answer = jsonObject(JSON.parse(line.slice('HANDLER-RESULT '.length)));
  return { result: answer['result'], output: `${stdout}${stderr}` };
}
