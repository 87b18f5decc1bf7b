import { z } from 'zod';

/** One chord segment of a job's analysis. */
export const ChordSegment = z
  .object({
    start: z.number().meta({ description: 'Seconds from the start (3 decimals).' }),
    end: z.number(),
    chord: z.string().meta({
      description:
        'Root and quality, spelled as the key names are: "C", "C#m", "Eb", "F#", "Bbm"; "N" where no chord sounds.',
    }),
    confidence: z.number().min(0).max(1),
  })
  .meta({ id: 'ChordSegment' });

/**
 * `GET /v1/jobs/{id}/analysis`: tempo, key, beats, downbeats and chords of a finished stem, video or
 * track job (docs/analysis.md). The beat and chord fields are null for a job analysed before they
 * existed, or whose analysis failed; an empty list means analysed and none found (no steady pulse).
 */
export const JobAnalysis = z
  .object({
    jobId: z.string(),
    bpm: z.number().nullable(),
    tempoConfidence: z.number().min(0).max(1).nullable(),
    key: z.string().nullable().meta({ description: '"Eb major", "C# minor"; null when not tonal.' }),
    keyConfidence: z.number().min(0).max(1).nullable(),
    beatsPerBar: z.number().int().nullable().meta({ description: '3 or 4; null without beats.' }),
    beats: z.array(z.number()).nullable().meta({ description: 'Beat times in seconds (3 decimals).' }),
    downbeats: z.array(z.number()).nullable().meta({ description: 'The beats that start a bar: a subset of beats.' }),
    beatConfidence: z.number().min(0).max(1).nullable(),
    chords: z.array(ChordSegment).nullable(),
  })
  .meta({ id: 'JobAnalysis' });
export type JobAnalysisValue = z.infer<typeof JobAnalysis>;
