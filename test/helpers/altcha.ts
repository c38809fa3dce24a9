import { solveChallenge } from 'altcha-lib';
import type { Challenge } from 'altcha-lib/types';
import type { AppFetch } from './inject-fetch.js';

/** Solves a challenge as the widget would (altcha-lib's own solver) and encodes the widget's `altcha` field. */
export async function solveAltcha(challenge: Challenge): Promise<string> {
  const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
  if (!solution) throw new Error('challenge has no solution');
  const payload = {
    algorithm: challenge.algorithm,
    challenge: challenge.challenge,
    number: solution.number,
    salt: challenge.salt,
    signature: challenge.signature,
    took: solution.took,
  };
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

export async function fetchChallenge(app: { fetch: AppFetch }, formId: string): Promise<Challenge> {
  const res = await app.fetch(`/v1/challenge/${formId}`);
  if (res.status !== 200) throw new Error(`challenge answered ${res.status}`);
  return (await res.json()) as Challenge;
}
