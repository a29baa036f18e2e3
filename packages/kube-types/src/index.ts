export type * from './meta.ts';
export type * from './apiextensions.ts';
export type * from './core.gen.ts';
export { formatMicroTime, formatTime, parseTime } from './time.ts';
