export { main } from './main.ts';
export type { CommandIO, StopSignal, Terminal } from './io.ts';
