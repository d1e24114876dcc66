/** Runs before every test file (vitest.config.ts setupFiles): hooks each file needs, whichever modules it shares. */
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp.js';

afterAll(removeTempDirs);
