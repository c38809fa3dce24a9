import { describe, expect, it } from 'vitest';
import { csvHeader, csvRow } from '../../src/frontends/dashboard/pages/submissions/export.js';
import type { ExportedSubmission } from '../../src/features/submissions/submission.types.js';

const submission = (payload: ExportedSubmission['payload']): ExportedSubmission => ({
  id: 'sub_1',
  createdAt: '2026-12-04T10:00:00.000Z',
  isSpam: false,
  spamReason: null,
  country: 'DE',
  payload,
});

describe('CSV cells', () => {
  it('write a stored file as its name and size, alone or among several, never as [object Object]', () => {
    const cv = { file: { id: 'fil_1', name: 'cv.pdf', size: 2048, type: 'application/pdf' } };
    const photo = { file: { id: 'fil_2', name: 'me.png', size: 512, type: 'image/png' } };
    const row = csvRow(submission({ cv, photos: [cv, photo], name: 'Ada' }), ['cv', 'photos', 'name']);
    expect(row).not.toContain('[object Object]');
    expect(row).toBe('2026-12-04T10:00:00.000Z,cv.pdf (2 KiB),"cv.pdf (2 KiB); me.png (512 B)",Ada,sub_1,0,,DE,open,,\r\n');
  });

  it('keep numbers as numbers and neutralise formulas in text and in lists', () => {
    expect(csvRow(submission({ n: -5, f: '=1+1', list: ['@SUM(A1)', 'ok'] }), ['n', 'f', 'list'])).toBe(
      `2026-12-04T10:00:00.000Z,-5,'=1+1,"'@SUM(A1); ok",sub_1,0,,DE,open,,\r\n`,
    );
    expect(csvHeader(['n'])).toBe('createdAt,n,id,isSpam,spamReason,country,state,assignee,tags\r\n');
  });
});
