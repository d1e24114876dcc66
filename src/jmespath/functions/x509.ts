/**
 * x509_decode returns Go's encoding/json rendering of x509.Certificate / CertificateRequest
 * (functions.go jpX509Decode): dozens of Go-specific fields (Raw*, Names with OIDs, KeyUsage bit
 * sets, enum numbers). Reproducing it faithfully is a project of its own; until then the function
 * is present, type-checked, and answers with an explicit Unsupported error value.
 */
import { failure, JmesFailure } from '../types.js';
import { expectString, type FunctionSpec } from './registry.js';

export const X509_FUNCTIONS: FunctionSpec[] = [
  {
    name: 'x509_decode',
    args: [['string']],
    handler: (args) => {
      const s = expectString('x509_decode', args, 0);
      if (s instanceof JmesFailure) return s;
      if (!/-----BEGIN [A-Z ]+-----/.test(s)) return failure('Runtime', 'failed to decode PEM block');
      return failure('Unsupported', "JMESPath function 'x509_decode': decoding certificates is not supported by transmute yet");
    },
  },
];
