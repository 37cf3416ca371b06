import { preset } from '../../jest.preset.js';

export default preset(import.meta.url, { globalSetup: '<rootDir>/test/global-setup.mjs' });
