export type * from './meta.ts';
export type * from './apiextensions.ts';
export type * from './core.gen.ts';
