#!/usr/bin/env node
// The CLI runs its TypeScript sources through tsx's loader (docs/adr/0001-workspace-and-toolchain.md).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
