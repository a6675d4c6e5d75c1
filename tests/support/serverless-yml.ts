import { at, yamlFile } from '../../scripts/local/template-file';

/*
 * serverless.yml as the framework reads it: parsed YAML, never sliced as text, and the variables
 * its values take from the environment (`${env:NAME, 'default'}`), wherever they are.
 */

export const serverlessYml = (): Record<string, unknown> => yamlFile('serverless.yml');

export interface EnvVariable {
  name: string;
  /** The default when it is a plain value; undefined when there is none or it is made of other variables. */
  fallback: string | undefined;
}

const ENV = /\$\{env:([A-Z][A-Z0-9_]*)(?:, '([^'$]*)'\})?/g;

/** Every `${env:...}` in the values under `value`, in document order. */
export function envVariables(value: unknown): EnvVariable[] {
  if (typeof value === 'string') return [...value.matchAll(ENV)].map(([, name = '', fallback]) => ({ name, fallback }));
  if (Array.isArray(value)) return value.flatMap(envVariables);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(envVariables);
  return [];
}

/** The stages' params of serverless.yml (default, prod, local, ...), each a mapping of its values. */
export function stageParams(): Record<string, unknown> {
  const params = at(serverlessYml(), 'params');
  return typeof params === 'object' && params !== null ? Object.fromEntries(Object.entries(params)) : {};
}
