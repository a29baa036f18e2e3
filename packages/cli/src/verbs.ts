// Every verb of `agent-sandbox`, in --help order. Adding one: a file in verbs/ and a line here.
import type { Verb } from './verb.ts';
import { apiserverVerb } from './verbs/apiserver.ts';
import { controllerVerb } from './verbs/controller.ts';
import { imageVerb } from './verbs/image.ts';
import { cpVerb } from './verbs/cp.ts';
import { execVerb } from './verbs/exec.ts';
import { logsVerb } from './verbs/logs.ts';
import { manifestsVerb } from './verbs/manifests.ts';
import { portForwardVerb } from './verbs/port-forward.ts';
import { routerVerb } from './verbs/router.ts';
import { createVerb, getVerb, lsVerb, resumeVerb, rmVerb, suspendVerb } from './verbs/sandboxes.ts';
import { startVerb } from './verbs/start.ts';
import { upVerb } from './verbs/up.ts';
import { urlVerb } from './verbs/url.ts';
import { validateVerb } from './verbs/validate.ts';

export const VERBS: readonly Verb[] = [
  validateVerb,
  manifestsVerb,
  upVerb,
  startVerb,
  imageVerb,
  apiserverVerb,
  controllerVerb,
  routerVerb,
  createVerb,
  lsVerb,
  getVerb,
  suspendVerb,
  resumeVerb,
  rmVerb,
  execVerb,
  cpVerb,
  logsVerb,
  portForwardVerb,
  urlVerb,
];
