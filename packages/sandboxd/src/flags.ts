// The daemon's command line (upstream's flag names, dataplane §4.1, plus ours). Pure: argv in,
// options out; errors name the flag and the fix.
import { InvalidOptionError } from './errors.ts';
import type { SandboxdOptions } from './options.ts';

const INT_FLAGS = {
  '--grpc-port': 'grpcPort',
  '--rest-port': 'restPort',
  '--legacy-port': 'legacyPort',
  '--max-upload-bytes': 'maxUploadBytes',
  '--max-processes': 'maxProcesses',
  '--stream-chunk-size': 'streamChunkSize',
  '--retain-output-bytes': 'retainOutputBytes',
  '--retain-processes': 'retainProcesses',
} as const;
const STRING_FLAGS = {
  '--listen-host': 'listenHost',
  '--root-dir': 'rootDir',
  '--metadata-env-prefix': 'metadataEnvPrefix',
  '--node-exec-socket': 'nodeExecSocket',
  '--log-level': 'logLevel',
} as const;
const ARGV_FLAGS = { '--pty-command': 'ptyCommand', '--stty-command': 'sttyCommand' } as const;

export const USAGE = `usage: sandboxd [--listen-host 0.0.0.0] [--rest-port 8080] [--grpc-port 9090]
  [--legacy-port 8888] [--root-dir /workspace] [--metadata-env-prefix SANDBOX_]
  [--max-upload-bytes N] [--max-processes N] [--exec-timeout-seconds 300]
  [--pty-command "script"] [--stty-command "stty"] [--skip-busy-ports]
  [--node-exec-socket PATH] (the node agent's exec socket to dial out to)
  [--log-level info|debug] (debug: each gRPC Start's steps with their times)
  (ports: 0 = any free, -1 = off; --skip-busy-ports leaves a taken port's listener off)`;

export function parseFlags(argv: string[]): SandboxdOptions {
  const o: SandboxdOptions = {};
  const out = o as Record<string, unknown>;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const value = () => {
      const v = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (v === undefined) throw new InvalidOptionError(`${name} needs a value\n${USAGE}`);
      return v;
    };
    if (name in INT_FLAGS) {
      const v = value();
      if (!/^-?\d+$/.test(v)) throw new InvalidOptionError(`${name} "${v}" must be a whole number`);
      out[INT_FLAGS[name as keyof typeof INT_FLAGS]] = Number(v);
    } else if (name in STRING_FLAGS) out[STRING_FLAGS[name as keyof typeof STRING_FLAGS]] = value();
    else if (name in ARGV_FLAGS)
      out[ARGV_FLAGS[name as keyof typeof ARGV_FLAGS]] = value().split(' ').filter(Boolean);
    else if (name === '--exec-timeout-seconds') o.execTimeoutSeconds = Number(value());
    else if (arg === '--skip-busy-ports') o.skipBusyPorts = true;
    else throw new InvalidOptionError(`unknown flag "${arg}"\n${USAGE}`);
  }
  return o;
}
