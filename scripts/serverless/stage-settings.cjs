'use strict';

const { URL } = require('node:url');
const cors = require('../../resources/cors.json');

/*
 * What osls cannot express from serverless.yml and resources/, and only that, applied to the
 * compiled template before it is saved:
 *
 * 1. Before packaging: a deployed stage (anything but `local`) must name its identity provider
 *    (JWT_ISSUER, JWT_AUDIENCE, JWKS_URI), the back office's keys (DECISION_JWKS_URI) and, on
 *    prod, the contracts table another system owns,
 *    and its ALLOWED_ORIGINS must be origins; packaging fails with one message naming each
 *    (custom.stageSettings.required), instead of shipping a stack that answers every call 503.
 *    A stage with a retention minimum (prod: the records laws' years) refuses fewer years, or a
 *    period in days (custom.stageSettings.retention; docs/decisions/0024-retention-by-calendar-year.md),
 *    on every stage, local included: a minimum is a law's, not a convenience.
 * 2. Preflights: with allowed origins, every route gets osls's CORS preflight (a MOCK integration
 *    that echoes only a listed origin) with the service's headers (docs/decisions/0016-browsers.md).
 * 3. The stage: osls makes it implicitly through a Deployment whose logical id changes on every
 *    package, with no setting for throttling or access logs, and a Deployment's StageDescription
 *    applies only once. So the stage becomes a resource of its own (ApiGatewayStage: throttling,
 *    metrics, X-Ray, JSON access log) pointing at that Deployment, and the Deployment depends on
 *    every gateway response, so the error bodies go live with it.
 * 4. Reserved concurrency for the functions given a positive number (osls would take 0
 *    literally: a function that never runs).
 * 5. Each function's role may write its own log group: osls grants that only to the role it makes
 *    itself, not to one a function names (`role:`, resources/roles.yml).
 * 6. A dashboard written as data (resources/monitoring.yml) becomes the JSON string CloudWatch takes.
 * 7. Traced, each function depends on the one X-Ray policy (WriteTracesPolicy), and the DependsOn
 *    entries the framework writes next to a Ref or GetAtt that already implies them (cfn-lint
 *    W3005, which an engine that validates with cfn-lint refuses) are dropped (docs/deploy.md).
 *
 * Settings: custom.stageSettings.
 */

/**
 * One JSON line per call; REST access logs can read $context only, never request headers. No
 * customer id: the line would tie the customer to their address and client for the log's life
 * (docs/data-protection.md); requestId joins it to the function's line, which names the contract.
 */
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
    this.checkRetention(stage);
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

  /** Fewer years than the stage's minimum, or days where a minimum applies, refuse to package. */
  checkRetention(stage) {
    const { years, days, minimumYears } = this.settings().retention ?? {};
    const minimum = String(minimumYears ?? '').trim();
    if (minimum === '') return;
    const problems = [];
    if (!/^\d+$/.test(String(years ?? '').trim()) || Number(years) < Number(minimum))
      problems.push(`REQUEST_RETENTION_YEARS must be at least ${minimum} (the records laws' minimum), got "${years ?? ''}"`);
    if (String(days ?? '').trim() !== '') problems.push(`REQUEST_RETENTION_DAYS is for test stages only, got "${days}"`);
    if (problems.length > 0) throw new this.serverless.classes.Error(`Cannot package stage "${stage}": ${problems.join('; ')}.`);
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

  /**
   * Each function's role may write to that function's log group and to no other: the framework
   * grants this only to the role it makes itself, not to a role a function names (`role:`).
   */
  grantOwnLogs(resources) {
    const naming = this.serverless.getProvider('aws').naming;
    for (const [functionKey, fn] of Object.entries(this.serverless.service.functions ?? {})) {
      if (typeof fn.role !== 'string') continue;
      const role = resources[fn.role];
      if (role?.Type !== 'AWS::IAM::Role') throw new Error(`stage-settings: ${functionKey} names a role ${fn.role} the template lacks`);
      const logGroup = resources[naming.getLogGroupLogicalId(functionKey)]?.Properties?.LogGroupName;
      if (typeof logGroup !== 'string') throw new Error(`stage-settings: no log group for ${functionKey}`);
      role.Properties.Policies = [
        {
          PolicyName: 'write-own-logs',
          PolicyDocument: {
            Version: '2012-10-17',
            Statement: [
              {
                Effect: 'Allow',
                Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
                Resource: { 'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:${logGroup}:*` },
              },
            ],
          },
        },
        ...(role.Properties.Policies ?? []),
      ];
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
    // The gateway's own answers keep the "*" of resources/api.yml: they carry no
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

    this.grantOwnLogs(resources);
    serializeDashboards(resources);

    // Traced, each function waits for the one policy that lets its role write traces.
    if (String(settings.tracingEnabled) === 'true') {
      for (const fn of Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function')) {
        fn.DependsOn = [...new Set([...[fn.DependsOn ?? []].flat(), 'WriteTracesPolicy'])];
      }
    }
    dropImpliedDependencies(resources);
  }
}

/**
 * A dashboard's body written as data (resources/monitoring.yml) becomes the JSON string
 * CloudWatch takes, through Fn::Sub so that ${AWS::Region} in it is filled in.
 */
function serializeDashboards(resources) {
  for (const resource of Object.values(resources)) {
    const properties = resource.Properties ?? {};
    if (resource.Type !== 'AWS::CloudWatch::Dashboard' || typeof properties.DashboardBody !== 'object') continue;
    if (Object.keys(properties.DashboardBody).some((key) => key === 'Ref' || key.startsWith('Fn::'))) continue;
    properties.DashboardBody = { 'Fn::Sub': JSON.stringify(properties.DashboardBody) };
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
