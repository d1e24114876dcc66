/**
 * The closed catalogue of diagnostic codes. Every diagnostic transmute reports uses one of these codes;
 * each has a default severity. Ranges: 1xxx input/YAML, 2xxx dialect parsing, 3xxx evaluation,
 * 4xxx translation (emit), 5xxx CEL, 6xxx JMESPath and templates, 7xxx command line and harnesses.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface CodeInfo {
  severity: Severity;
  title: string;
}

export const CODES = {
  // 1xxx input and YAML
  TM1001: { severity: 'error', title: 'yaml syntax' },
  TM1002: { severity: 'error', title: 'yaml alias expansion limit exceeded' },
  TM1003: { severity: 'error', title: 'input too large' },
  TM1004: { severity: 'error', title: 'file not found or unreadable' },
  TM1005: { severity: 'error', title: 'document is not a mapping' },
  TM1006: { severity: 'warning', title: 'duplicate key' },
  TM1007: { severity: 'error', title: 'nesting too deep' },
  TM1008: { severity: 'error', title: 'not a Kubernetes object' },
  TM1009: { severity: 'error', title: 'not UTF-8 text' },
  TM1010: { severity: 'error', title: 'input budget exceeded' },

  // 2xxx dialect parsing
  TM2001: { severity: 'error', title: 'unknown kind' },
  TM2002: { severity: 'error', title: 'invalid field' },
  TM2003: { severity: 'error', title: 'location path: unexpected token' },
  TM2004: { severity: 'error', title: 'invalid policy' },
  TM2005: { severity: 'error', title: 'missing required field' },
  TM2006: { severity: 'error', title: 'IR text: syntax error' },
  TM2007: { severity: 'warning', title: 'unknown field ignored' },
  TM2008: { severity: 'error', title: 'strict decoding error' },
  TM2009: { severity: 'error', title: 'schema validation' },
  TM2010: { severity: 'warning', title: 'ExpansionTemplate read only by expand' },

  // 3xxx evaluation
  TM3001: { severity: 'error', title: 'path shape mismatch' },
  TM3002: { severity: 'error', title: 'fix-point did not converge' },
  TM3003: { severity: 'error', title: 'guard evaluation failed' },
  TM3004: { severity: 'error', title: 'value could not be resolved' },
  TM3005: { severity: 'error', title: 'expression language not available to the interpreter' },
  TM3006: { severity: 'error', title: 'JSON patch operation failed' },
  TM3007: { severity: 'error', title: 'variable not bound' },
  TM3008: { severity: 'info', title: 'policy did not match' },
  TM3009: { severity: 'error', title: 'policy skipped by failure policy' },
  TM3010: { severity: 'error', title: 'apply configuration rejected' },
  TM3011: { severity: 'error', title: 'expansion failed' },
  TM3012: { severity: 'error', title: 'policy configuration error' },

  // 4xxx translation
  TM4001: { severity: 'error', title: 'unsupported in target' },
  TM4002: { severity: 'warning', title: 'lossy: ordering' },
  TM4003: { severity: 'warning', title: 'lossy: semantics' },
  TM4004: { severity: 'error', title: 'no such dialect' },
  TM4005: { severity: 'error', title: 'nothing translated' },
  TM4006: { severity: 'error', title: 'generated document not admissible' },

  // 5xxx CEL
  TM5001: { severity: 'error', title: 'CEL syntax error' },
  TM5002: { severity: 'error', title: 'CEL compile error' },
  TM5003: { severity: 'error', title: 'CEL evaluation error' },
  TM5004: { severity: 'error', title: 'CEL cost limit exceeded' },

  // 6xxx JMESPath and templates
  TM6001: { severity: 'error', title: 'JMESPath syntax error' },
  TM6002: { severity: 'error', title: 'JMESPath evaluation error' },
  TM6003: { severity: 'error', title: 'template syntax error' },

  // 7xxx command line and harnesses
  TM7001: { severity: 'error', title: 'bad usage' },
  TM7002: { severity: 'error', title: 'golden mismatch' },
  TM7003: { severity: 'error', title: 'conformance case malformed' },
  TM7004: { severity: 'error', title: 'test failed' },
} as const satisfies Record<string, CodeInfo>;

export type DiagnosticCode = keyof typeof CODES;

export function isDiagnosticCode(code: string): code is DiagnosticCode {
  return Object.prototype.hasOwnProperty.call(CODES, code);
}
