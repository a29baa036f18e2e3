// `agent-sandbox validate -f FILE|DIR|-` (implementation: commands/validate.ts).
import { Option } from 'commander';
import { collect, type Verb } from '../verb.ts';

interface ValidateFlags {
  filename: string[];
  set: string[];
  partial: boolean;
  allowedLabelDomains?: string[];
}

export const validateVerb: Verb = (program, { io, setExit }) => {
  program
    .command('validate')
    .description(
      'validate manifests (multi-document YAML or JSON) as the API server would admit them',
    )
    .requiredOption(
      '-f, --filename <path>',
      'a file, a directory (recursive) or - for stdin; repeatable',
      collect,
    )
    .option(
      '--set <NAME=VALUE>',
      'substitute ${NAME} placeholders before validating; repeatable',
      collect,
      [],
    )
    .option(
      '--partial',
      'validate patch fragments (e.g. kustomize patches): skip missing required fields',
      false,
    )
    .addOption(
      new Option(
        '--allowed-label-domains <domains>',
        'label domains a claim may add to its Pod (comma-separated)',
      ).argParser((v) =>
        v
          .split(',')
          .map((d) => d.trim())
          .filter((d) => d !== ''),
      ),
    )
    .action(async (opts: ValidateFlags) => {
      const { runValidate } = await import('../commands/validate.ts');
      setExit(runValidate(opts, io));
    });
};
