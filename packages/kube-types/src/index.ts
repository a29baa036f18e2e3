export type * from './meta.ts';
export type * from './apiextensions.ts';
