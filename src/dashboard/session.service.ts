import type { Executor } from '../db/database.js';

// Issue 6: dashboard sessions (token hash stored, CSRF secret per session).
export class SessionService {
  constructor(protected readonly db: Executor) {}
}
