export * from './codes.js';
export * from './diagnostic.js';
export * from './render.js';
export * from './span.js';
