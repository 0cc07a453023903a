/** `edgeplan deploy`: deploys the Worker whose project this is (src/deploy/deploy.ts). */
import type { Command } from 'commander';
import { deploy } from '../../deploy/deploy.ts';
import { EXIT } from '../exit-codes';

export function registerDeploy(program: Command, done: (code: number) => void): void {
  program
    .command('deploy')
    .description(
      'Deploy the Worker in this directory: create its D1 database, KV namespace and queues if missing, migrate D1, then wrangler deploy',
    )
    .argument('[wrangler-args...]', 'passed to wrangler deploy, e.g. --dry-run --outdir dist')
    .allowUnknownOption()
    .action((args: string[]) => {
      deploy(args);
      done(EXIT.ok);
    });
}
