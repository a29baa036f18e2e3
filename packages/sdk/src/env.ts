// The only place the SDK touches process.env (STYLE: library code reads no environment): the
// public entry points pass it as the default `env` of ConnectionOptions.
import type { Env } from './options.ts';

export function processEnv(): Env {
  return process.env;
}
