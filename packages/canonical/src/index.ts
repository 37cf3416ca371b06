export * from './jcs.js';
export * from './ref.js';
export * from './base64.js';
export * from './envelope.js';
export * from './entry.js';
