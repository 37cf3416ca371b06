import type { Profile } from './config.js';

export async function runProfile(_profile: Profile, log: (line: string) => void): Promise<void> {
  log('profile: not yet');
}
