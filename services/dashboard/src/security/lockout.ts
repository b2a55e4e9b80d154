export interface LockoutPolicy {
  /** Failures within the window that lock the address. */
  attempts: number;
  windowMs: number;
}

export interface SignInAttempt {
  succeeded: boolean;
  at: Date;
}

/**
 * Until when sign-in for an address is refused, or null when it is open. Counted are the
 * failures inside the window since the last success; once `attempts` of them exist, the
 * address stays locked until the oldest of those leaves the window. So a guesser gets at
 * most `attempts` tries per window, and a success wipes the slate.
 * @param history the address's attempts, newest first
 */
export function lockedUntil(
  history: readonly SignInAttempt[],
  now: Date,
  policy: LockoutPolicy,
): Date | null {
  const since = now.getTime() - policy.windowMs;
  const failures: Date[] = [];
  for (const attempt of history) {
    if (attempt.at.getTime() <= since || attempt.succeeded) break;
    failures.push(attempt.at);
  }
  if (failures.length < policy.attempts) return null;
  return new Date(failures[policy.attempts - 1]!.getTime() + policy.windowMs);
}
