export * from './errors.js';
export * from './hash.js';
export * from './coords.js';
export * from './append.js';
export * from './proofs.js';
export * from './verify.js';
export * from './memory-store.js';
