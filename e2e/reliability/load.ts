import { request as httpRequest } from 'node:http';

export interface SubmitOutcome {
  /** HTTP status, or the socket error code when no response arrived. */
  outcome: number | string;
  submissionId?: string;
}

/**
 * One JSON submit over a fresh connection (no keep-alive), so a refused or reset connection is
 * told apart from an answered request without keep-alive races.
 */
export function submitOnce(url: string, formId: string, fields: Record<string, unknown>, headers: Record<string, string> = {}): Promise<SubmitOutcome> {
  const body = JSON.stringify(fields);
  return new Promise((resolve) => {
    const req = httpRequest(
      `${url}/v1/submit/${formId}`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let submissionId: string | undefined;
          try {
            submissionId = (JSON.parse(text) as { submissionId?: string }).submissionId;
          } catch {
            submissionId = undefined;
          }
          resolve({ outcome: res.statusCode ?? 0, ...(submissionId ? { submissionId } : {}) });
        });
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ outcome: err.code ?? 'ERROR' }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ outcome: err.code ?? 'ERROR' }));
    req.end(body);
  });
}

/** Keeps `concurrency` submits in flight until stop() is called; collects every outcome. */
export function steadyLoad(url: string, formId: string, concurrency: number) {
  const outcomes: SubmitOutcome[] = [];
  let stopped = false;
  let sequence = 0;
  const workers = Array.from({ length: concurrency }, async () => {
    while (!stopped) {
      const n = sequence++;
      outcomes.push(await submitOnce(url, formId, { n, message: `load ${n}` }));
    }
  });
  return {
    outcomes,
    answered: () => outcomes.filter((o) => o.outcome === 200).length,
    stop: async () => {
      stopped = true;
      await Promise.all(workers);
    },
  };
}
