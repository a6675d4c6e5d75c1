'use strict';

const { URL } = require('node:url');
const cors = require('../../resources/cors.json');

/*
 * Production settings osls cannot express, applied before the template is saved.
 *
 * Before packaging, a deployed stage (anything but `local`) must name its identity provider:
 * JWT_ISSUER, JWT_AUDIENCE and JWKS_URI, and on prod the contracts table another system owns.
 * Packaging without them fails with one message naming each, instead of shipping a stack that
 * answers every call with 503 (custom.stageSettings.required).
 *
 * osls makes the REST API's stage implicitly, through a Deployment whose logical id changes on
 * every package, and has no setting for the stage's throttling or access logs. A Deployment's
 * StageDescription would only apply the first time (CloudFormation refuses it once the stage
 * exists), so this plugin:
 *   - takes StageName off the Deployment and declares the stage itself (ApiGatewayStage) with
 *     the throttling, metrics, X-Ray and JSON access-log settings, pointing at that Deployment;
 *   - makes the Deployment depend on every gateway response, so the error bodies
 *     (docs/decisions/0011-error-body.md) are part of each deployment, not only of the next one;
 *   - sets ReservedConcurrentExecutions on the functions given a positive number (osls would
 *     take 0 literally: a function that never runs).
 *
 * Browsers (docs/decisions/0016-browsers.md): with custom.stageSettings.allowedOrigins set,
 * every route gets a preflight (osls's MOCK integration, which echoes only a listed origin) and
 * the gateway's own answers carry CORS headers. Those cannot choose among origins: they name
 * the first, so list the web client's main origin first.
 * Settings: custom.stageSettings.
 */

/** One JSON line per call; REST access logs can read $context only, never request headers. */
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  requestTime: '$context.requestTimeEpoch',
  method: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  status: '$context.status',
  responseType: '$context.error.responseType',
  customerId: '$context.authorizer.customerId',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  wafStatus: '$context.waf.status',
});

class StageSettings {
  constructor(serverless, options) {
    this.serverless = serverless;
    this.options = options;
    this.hooks = {
      'before:package:initialize': () => this.checkRequired(),
      'before:package:compileEvents': () => this.addPreflights(),
      // After `resources:` (tables, gateway responses, alarms) are merged in, before the template is saved.
      'after:aws:package:finalize:mergeCustomProviderResources': () => this.apply(),
    };
  }

  settings() {
    return this.serverless.service.custom?.stageSettings ?? {};
  }

  checkRequired() {
    const stage = this.serverless.service.provider.stage;
    if (stage === 'local') return;
    const required = this.settings().required ?? {};
    const missing = Object.entries(required)
      .filter(([, value]) => value === undefined || value === null || String(value).trim() === '')
      .map(([name]) => name);
    // The functions refuse a malformed origin at cold start (lib/config.ts): refuse it here first.
    const badOrigins = this.allowedOrigins().filter((origin) => {
      try {
        return new URL(origin).origin !== origin;
      } catch {
        return true;
      }
    });
    if (badOrigins.length > 0) {
      throw new this.serverless.classes.Error(
        `Cannot package stage "${stage}": ALLOWED_ORIGINS must list origins like https://lk.bank.example, not ${badOrigins.join(', ')}.`,
      );
    }
    if (missing.length > 0) {
      throw new this.serverless.classes.Error(
        `Cannot package stage "${stage}": ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set. ` +
          'Set them in the environment, or let npm run deploy read them from SSM Parameter Store (README, Deploy).',
      );
    }
  }

  allowedOrigins() {
    return String(this.settings().allowedOrigins ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== '');
  }

  addPreflights() {
    const origins = this.allowedOrigins();
    if (origins.length === 0) return;
    for (const fn of Object.values(this.serverless.service.functions ?? {})) {
      for (const event of fn.events ?? []) {
        if (event.http) event.http.cors = { origins, headers: cors.allowHeaders, allowCredentials: false, maxAge: cors.maxAgeSeconds };
      }
    }
  }

  apply() {
    const service = this.serverless.service;
    const settings = this.settings();
    const resources = service.provider.compiledCloudFormationTemplate.Resources;
    const deployments = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::ApiGateway::Deployment');
    if (deployments.length !== 1) throw new Error(`stage-settings: expected one API deployment, found ${deployments.length}`);
    const [deploymentId, deployment] = deployments[0];
    const rate = Number(settings.throttlingRateLimit);
    const burst = Number(settings.throttlingBurstLimit);
    if (!(rate > 0) || !(burst > 0))
      throw new Error('stage-settings: throttlingRateLimit and throttlingBurstLimit must be positive numbers');

    const stageName = deployment.Properties.StageName;
    delete deployment.Properties.StageName;
    delete deployment.Properties.StageDescription;
    const gatewayResponses = Object.keys(resources).filter((id) => resources[id].Type === 'AWS::ApiGateway::GatewayResponse');
    // The gateway's own answers keep the "*" of resources/gateway-responses.json: they carry no
    // customer data, and a gateway response cannot choose among several allowed origins
    // (docs/decisions/0011-error-body.md).
    deployment.DependsOn = [...new Set([...[deployment.DependsOn ?? []].flat(), ...gatewayResponses])];

    resources.ApiGatewayStage = {
      Type: 'AWS::ApiGateway::Stage',
      // Access logs need the account's CloudWatch role in place first.
      DependsOn: resources.ApiGatewayAccount ? ['ApiGatewayAccount'] : [],
      Properties: {
        RestApiId: { Ref: 'ApiGatewayRestApi' },
        DeploymentId: { Ref: deploymentId },
        StageName: stageName,
        TracingEnabled: String(settings.tracingEnabled) === 'true',
        MethodSettings: [
          { HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst, MetricsEnabled: true },
        ],
        ...(resources.ApiAccessLogGroup
          ? { AccessLogSetting: { DestinationArn: { 'Fn::GetAtt': ['ApiAccessLogGroup', 'Arn'] }, Format: ACCESS_LOG_FORMAT } }
          : {}),
      },
    };

    for (const [functionName, value] of Object.entries(settings.reservedConcurrency ?? {})) {
      const concurrency = Number(value);
      if (!Number.isInteger(concurrency) || concurrency < 0)
        throw new Error(`stage-settings: reserved concurrency of ${functionName} must be a whole number`);
      if (concurrency === 0) continue;
      const logicalId = this.serverless.getProvider('aws').naming.getLambdaLogicalId(functionName);
      if (!resources[logicalId]) throw new Error(`stage-settings: no function ${functionName}`);
      resources[logicalId].Properties.ReservedConcurrentExecutions = concurrency;
    }

    // Traced, each function waits for the one policy that lets its role write traces.
    if (String(settings.tracingEnabled) === 'true') {
      for (const fn of Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function')) {
        fn.DependsOn = [...new Set([...[fn.DependsOn ?? []].flat(), 'WriteTracesPolicy'])];
      }
    }
    dropImpliedDependencies(resources);
  }
}

/** The logical ids a value names through Ref, Fn::GetAtt or Fn::Sub's ${Name}. */
function referencedIds(value, found = new Set()) {
  if (Array.isArray(value)) value.forEach((item) => referencedIds(item, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') found.add(inner);
      else if (key === 'Fn::GetAtt') found.add(Array.isArray(inner) ? inner[0] : String(inner).split('.')[0]);
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(inner) ? inner[0] : inner;
        for (const [, name] of String(text).matchAll(/\$\{([^}!.]+)[^}]*\}/g)) found.add(name);
        if (Array.isArray(inner)) referencedIds(inner[1], found);
      } else referencedIds(inner, found);
    }
  }
  return found;
}

/**
 * The framework adds DependsOn entries that a Ref or Fn::GetAtt of the same resource already
 * enforces (a function on its role, a method on its authorizer): cfn-lint's W3005, which an
 * engine that validates with cfn-lint refuses (docs/deploy.md). They are dropped; the order of
 * creation is the same.
 */
function dropImpliedDependencies(resources) {
  for (const resource of Object.values(resources)) {
    if (resource.DependsOn === undefined) continue;
    const implied = referencedIds(resource.Properties ?? {});
    const kept = [resource.DependsOn].flat().filter((id) => !implied.has(id));
    if (kept.length === 0) delete resource.DependsOn;
    else resource.DependsOn = kept;
  }
}

module.exports = StageSettings;
