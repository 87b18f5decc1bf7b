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

/**
 * Albrecht & Shanahan 2013, "The use of large corpora to train a new type of key-finding
 * algorithm" (Music Perception 31(1)): pitch-class durations in 490 common-practice pieces.
 */
export const ALBRECHT_SHANAHAN: KeyProfile = {
  name: 'albrecht-shanahan',
  major: [0.238, 0.006, 0.111, 0.006, 0.137, 0.094, 0.016, 0.214, 0.009, 0.08, 0.008, 0.081],
  minor: [0.22, 0.006, 0.104, 0.123, 0.019, 0.103, 0.012, 0.214, 0.062, 0.022, 0.061, 0.052],
};

/** Bellman 2005 / Budge 1943: chord-frequency-derived profiles (as tabulated in Sapp's Humdrum tools). */
export const BELLMAN_BUDGE: KeyProfile = {
  name: 'bellman-budge',
  major: [16.8, 0.86, 12.95, 1.41, 13.49, 11.93, 1.25, 20.28, 1.8, 8.04, 0.62, 10.57],
  minor: [18.16, 0.69, 12.99, 13.34, 1.07, 11.15, 1.38, 21.07, 7.49, 1.53, 0.92, 10.21],
};
