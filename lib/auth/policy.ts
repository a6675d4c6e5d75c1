import type { APIGatewayAuthorizerResult } from 'aws-lambda';

/**
 * An Allow policy for every route of this API stage. API Gateway caches the authorizer's answer
 * per token, so a policy naming only the first method would wrongly deny the token elsewhere.
 */
export function allowPolicy(customerId: string, methodArn: string): APIGatewayAuthorizerResult {
  // arn:aws:execute-api:region:account:apiId/stage/METHOD/resource/path (the path may hold colons)
  const parts = methodArn.split(':');
  const [apiId, stage] = parts.slice(5).join(':').split('/');
  const resource = parts.length >= 6 && apiId && stage ? `${parts.slice(0, 5).join(':')}:${apiId}/${stage}/*/*` : methodArn;
  return {
    principalId: customerId,
    policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resource }] },
    context: { customerId },
  };
}
