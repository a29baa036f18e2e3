export type * from './meta.ts';
export type * from './apiextensions.ts';
export type * from './core.gen.ts';
export { formatMicroTime, formatTime, formatUnixTime, parseTime } from './time.ts';
