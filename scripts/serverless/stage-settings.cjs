'use strict';

/*
 * osls makes the REST API's stage implicitly, through a Deployment whose logical id changes on
 * every package, and has no setting for the stage's throttling. A Deployment's StageDescription
 * would only apply the first time (CloudFormation refuses it once the stage exists), so this
 * plugin, before the template is saved:
 *   - takes StageName off the Deployment and declares the stage itself (ApiGatewayStage) with
 *     the throttling, metrics and X-Ray settings, pointing at that Deployment;
 *   - makes the Deployment depend on every gateway response, so the error bodies (docs/decisions/0011-error-body.md)
 *     are part of each deployment, not only of the next one.
 * Settings: custom.stageSettings.{throttlingRateLimit,throttlingBurstLimit,tracingEnabled}.
 */
class StageSettings {
  constructor(serverless) {
    this.serverless = serverless;
    // After `resources:` (tables, gateway responses, alarms) are merged in, before the template is saved.
    this.hooks = { 'after:aws:package:finalize:mergeCustomProviderResources': () => this.apply() };
  }

  apply() {
    const service = this.serverless.service;
    const settings = service.custom?.stageSettings ?? {};
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
    deployment.DependsOn = [...new Set([...[deployment.DependsOn ?? []].flat(), ...gatewayResponses])];

    resources.ApiGatewayStage = {
      Type: 'AWS::ApiGateway::Stage',
      Properties: {
        RestApiId: { Ref: 'ApiGatewayRestApi' },
        DeploymentId: { Ref: deploymentId },
        StageName: stageName,
        TracingEnabled: String(settings.tracingEnabled) === 'true',
        MethodSettings: [
          { HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst, MetricsEnabled: true },
        ],
      },
    };
  }
}

module.exports = StageSettings;
