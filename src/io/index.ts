/** YAML and JSON input and output. */
export type { SourceDoc, YamlPath } from './source.js';
export { DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, loadYamlText, type LoadOptions } from './yaml-load.js';
export { listInputFiles, loadInputs, STDIN_NAME, type InputOptions, type Inputs } from './inputs.js';
export { streamYamlDocuments, YamlStreamError, type StreamOptions } from './yaml-stream.js';
export { toJson, toYaml, toYamlDocuments, type DumpOptions } from './yaml-dump.js';
export { writeFileAtomic } from './write.js';
