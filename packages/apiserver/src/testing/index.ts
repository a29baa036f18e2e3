// @agent-sandbox/apiserver/testing: our envtest, for other packages' integration tests.
export {
  startTestApiServer,
  kubeconfigFor,
  type TestApiServer,
  type TestApiServerOptions,
} from './test-server.ts';
export { readOurCrds } from './our-crds.ts';
export {
  openSocket,
  parseRawResponse,
  rawRequest,
  requestHead,
  type RawRequestOptions,
  type RawResponse,
} from './raw-http.ts';
export { slowloris, type SlowlorisHandle } from './slowloris.ts';
