/** x509_decode: see src/x509/decode.ts for what it returns and why. */
import { failure, JmesFailure } from '../types.js';
import { expectString, type FunctionSpec } from './registry.js';
import { decodeX509 } from '../../x509/decode.js';

export const X509_FUNCTIONS: FunctionSpec[] = [
  {
    name: 'x509_decode',
    args: [['string']],
    handler: (args) => {
      const s = expectString('x509_decode', args, 0);
      if (s instanceof JmesFailure) return s;
      const out = decodeX509(s);
      // jpX509Decode returns Go's errors unwrapped (no "JMESPath function ..." prefix).
      return 'error' in out ? failure('Runtime', out.error) : out.value;
    },
  },
];
