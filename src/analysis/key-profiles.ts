/**
 * Key profiles: the expected weight of each scale degree (index 0 = tonic, in semitones) in music of
 * a key. Values are the published tables; correlation with a chromagram (Krumhansl-Schmuckler) is
 * invariant to their scale, so each is used as printed.
 */
export interface KeyProfile {
  name: string;
  major: readonly number[];
  minor: readonly number[];
}

/** Krumhansl & Kessler 1982 probe-tone ratings (Krumhansl 1990, "Cognitive Foundations of Musical Pitch"). */
export const KRUMHANSL: KeyProfile = {
  name: 'krumhansl',
  major: [6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88],
  minor: [6.33, 2.68, 3.52, 5.38, 2.6, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17],
};

/** Temperley 1999, "What's key for key? The Krumhansl-Schmuckler key-finding algorithm reconsidered". */
export const TEMPERLEY: KeyProfile = {
  name: 'temperley',
  major: [5, 2, 3.5, 2, 4.5, 4, 2, 4.5, 2, 3.5, 1.5, 4],
  minor: [5, 2, 3.5, 4.5, 2, 4, 2, 4.5, 3.5, 2, 1.5, 4],
};

/**
 * Faraldo, Gómez, Jordà & Herrera 2016, "Key estimation in electronic dance music" (ECIR), the
 * automatically derived "edma" profiles (from a Beatport corpus).
 */
export const EDMA: KeyProfile = {
  name: 'edma',
  major: [1, 0.2875, 0.502, 0.4048, 0.605, 0.5614, 0.3205, 0.7966, 0.3159, 0.4506, 0.4202, 0.3889],
  minor: [1, 0.3096, 0.4415, 0.5827, 0.3262, 0.4948, 0.2889, 0.7804, 0.4328, 0.2903, 0.5331, 0.3217],
};

export const KEY_PROFILES: readonly KeyProfile[] = [KRUMHANSL, TEMPERLEY, EDMA];
