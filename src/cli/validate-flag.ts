/** `--validate strict|warn|ignore`, as kubectl spells it, shared by every command that reads policies. */
import { VALIDATE_MODES, type ValidateMode } from '../validate/admit.js';

export const VALIDATE_HELP = `      --validate MODE        strict (default): refuse a policy the cluster would refuse (unknown or duplicate
                             fields, the CRD schema, the engine's own admission webhook), exit 2;
                             warn: print the same diagnostics as warnings and go on; ignore: skip them`;

/** The mode, or an error message for a value kubectl would not accept. */
export function validateMode(value: string | undefined): ValidateMode | { error: string } {
  if (value === undefined) return 'strict';
  if ((VALIDATE_MODES as readonly string[]).includes(value)) return value as ValidateMode;
  return { error: `--validate must be strict, warn or ignore, not ${JSON.stringify(value)}` };
}
