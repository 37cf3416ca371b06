export * from './limits.js';
export * from './errors.js';
export * from './ids.js';
export * from './schemas.js';
export * from './subjects.js';
export * from './parse.js';
export * from './stored.js';
export * from './visibility.js';
