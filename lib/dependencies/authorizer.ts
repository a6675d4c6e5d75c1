import { createTokenVerifier, type CustomerIdOf } from '../auth/token-verifier';
import { loadAuthConfig } from '../config';

/** The authorizer's, built once per cold start as the routes' are (routes.ts): the token check, with its JWKS cache. */
export function authorizerDependencies(): { customerIdOf: CustomerIdOf } {
  return { customerIdOf: createTokenVerifier(loadAuthConfig()) };
}
