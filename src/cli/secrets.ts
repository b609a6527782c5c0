import { rotateStoredSecrets } from '../modules/identity/index.js';
import { type CommandContext, none, say, unknownVerb } from './command.js';

const VERBS = ['rotate'] as const;

/**
 * `learnbase secrets rotate` (docs/operations.md, "Secrets at rest"): every stored secret encrypted
 * again under the current key (LEARNBASE_SECRETS_KEY), those under the previous one
 * (LEARNBASE_SECRETS_KEY_PREVIOUS) included, so the previous key can be retired. Handed to a running
 * server holding the PGlite folder, it uses that server's keys.
 */
export async function secretsCommand(context: CommandContext, [verb, ...operands]: string[]): Promise<number> {
  switch (verb) {
    case 'rotate': {
      none(operands, 'secrets rotate');
      const { rotated, keyId } = await rotateStoredSecrets(context.db, await context.secrets());
      say(
        context,
        { rotated, keyId },
        `Encrypted ${rotated} stored secret${rotated === 1 ? '' : 's'} again under the key ${keyId}: every stored secret is under it now, and LEARNBASE_SECRETS_KEY_PREVIOUS can be removed.`,
      );
      return 0;
    }
    default:
      throw unknownVerb('secrets', verb, VERBS, 'secrets rotate');
  }
}
