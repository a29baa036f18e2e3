export { main } from './main.ts';
export type { CommandIO } from './io.ts';
