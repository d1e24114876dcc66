/**
 * What kube-apiserver itself does to a built-in object before policies see it and when it stores it: the
 * defaulting of its kind (apply.ts over the generated table.generated.ts) and the default mutating admission
 * plugins (admission.ts).
 */
export { applyApiServerDefaults, hasApiServerDefaults } from './apply.js';
export { builtInAdmission, defaultTolerationSeconds, priorityAdmission, serviceAccountAdmission, tokenVolumeSuffix } from './admission.js';
export { imageTag } from './defaulters.js';
export { admittedObject, isBuiltIn, storedObject, typedRoundTrip } from './request-cycle.js';
