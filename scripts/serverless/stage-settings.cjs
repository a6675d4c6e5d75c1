'use strict';

/*
 * osls has no setting for a REST API stage's throttling, and its deployment resource's
 * logical id changes with every package, so `resources` cannot reach it. This plugin writes
 * the stage's throttling and metrics into that deployment's StageDescription before the
 * template is saved. Settings: custom.stageSettings.{throttlingRateLimit,throttlingBurstLimit}.
 */
class StageSettings {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.apply() };
  }

  apply() {
    const settings = this.serverless.service.custom?.stageSettings ?? {};
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    const deployments = Object.values(template.Resources).filter((r) => r.Type === 'AWS::ApiGateway::Deployment');
    if (deployments.length !== 1) throw new Error(`stage-settings: expected one API deployment, found ${deployments.length}`);
    const rate = Number(settings.throttlingRateLimit);
    const burst = Number(settings.throttlingBurstLimit);
    if (!(rate > 0) || !(burst > 0)) throw new Error('stage-settings: throttlingRateLimit and throttlingBurstLimit must be positive numbers');
    deployments[0].Properties.StageDescription = {
      ThrottlingRateLimit: rate,
      ThrottlingBurstLimit: burst,
      MetricsEnabled: true,
      MethodSettings: [{ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst, MetricsEnabled: true }],
    };
  }
}

module.exports = StageSettings;
