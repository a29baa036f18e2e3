// @agent-sandbox/sdk/testing: the SDK's test world, for the CLI's and e2e tests.
export { openSdkWorld, type SdkWorld } from './world.ts';
