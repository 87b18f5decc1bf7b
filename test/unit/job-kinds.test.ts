import { describe, expect, it } from 'vitest';
import { JOB_KIND_CATALOG, JOB_KINDS, kindsInStage, stageTypes } from '../../src/domain/job-kinds.ts';
import { JOB_PRESENTERS } from '../../src/jobs/present/job-presenters.ts';
import { JOB_PAYLOADS } from '../../src/jobs/payloads.ts';
import { assertStageHandlers, STAGE_HANDLERS } from '../../src/worker/stage-handlers.ts';

describe('the job-kind catalog', () => {
  it('is the one list: every kind has its payloads, its presenter and a handler per stage', () => {
    expect(JOB_KINDS).toEqual(Object.keys(JOB_KIND_CATALOG));
    for (const kind of JOB_KINDS) {
      expect(JOB_PAYLOADS[kind], kind).toBeDefined();
      expect(JOB_PRESENTERS[kind], kind).toBeDefined();
    }
    expect(Object.keys(STAGE_HANDLERS).sort()).toEqual(stageTypes().sort());
    expect(() => assertStageHandlers(STAGE_HANDLERS)).not.toThrow();
  });

  it('start-up refuses a catalog stage without a handler, naming it', () => {
    const { 'track:download': _, ...withoutOne } = STAGE_HANDLERS;
    expect(() => assertStageHandlers(withoutOne)).toThrow('no worker handler for track:download');
    expect(() => assertStageHandlers({})).toThrow(stageTypes().join(', '));
  });

  it('keeps what the kinds declare today: stages, events and labels', () => {
    expect(kindsInStage('download')).toEqual(['video', 'track']);
    expect(kindsInStage('inference')).toEqual(['stem', 'video', 'track', 'denoise']);
    expect(JOB_KINDS.filter((k) => JOB_KIND_CATALOG[k].emitsEvents)).toEqual(['stem', 'video', 'track']);
    expect(JOB_KINDS.map((k) => JOB_KIND_CATALOG[k].label)).toEqual(['Stems', 'Video', 'Track', 'Voice cleaning']);
  });
});
