// Types of the plain-JavaScript rule (eslint.config.js loads it before anything is compiled).
import type { ESLint, Rule } from 'eslint';

export declare const testBoundaries: Rule.RuleModule;
export declare const plugin: ESLint.Plugin;
