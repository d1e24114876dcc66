/** The registry of every library implementation; environments pick the enabled subset. */
import { k8sFunctions } from './lib/k8s.js';
import { k8sListFunctions, listExtFunctions, setFunctions } from './lib/collections.js';
import { optionalFunctions, stdFunctions } from './lib/std.js';
import { stringFunctions } from './lib/strings.js';
import { Registry } from './registry.js';
import { kyvernoDataFunctions } from './lib/kyverno-data.js';
import { kyvernoEncodingFunctions } from './lib/kyverno-encoding.js';
import { kyvernoHashFunctions } from './lib/kyverno-hash.js';
import { kyvernoImageFunctions } from './lib/kyverno-image.js';
import { kyvernoX509Functions } from './lib/kyverno-x509.js';

let registry: Registry | undefined;

export function defaultRegistry(): Registry {
  registry ??= new Registry().add(
    ...stdFunctions,
    ...optionalFunctions,
    ...stringFunctions,
    ...setFunctions,
    ...listExtFunctions,
    ...k8sListFunctions,
    ...k8sFunctions,
    ...kyvernoImageFunctions,
    ...kyvernoDataFunctions,
    ...kyvernoEncodingFunctions,
    ...kyvernoHashFunctions,
    ...kyvernoX509Functions,
  );
  return registry;
}
