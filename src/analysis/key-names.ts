/**
 * Key names as DJ software shows them: tonic + " major" / " minor", each tonic spelled the way its
 * key signature is written (fewest accidentals: "Eb major", "C# minor", "Bb minor"). The two
 * six-accidental keys take the spellings most DJ tools print: "F# major" and "Eb minor".
 */
export type Mode = 'major' | 'minor';

export interface Key {
  /** Pitch class of the tonic, C = 0. */
  tonic: number;
  mode: Mode;
}

const MAJOR_NAMES = ['C', 'Db', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'Ab', 'A', 'Bb', 'B'];
const MINOR_NAMES = ['C', 'C#', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'G#', 'A', 'Bb', 'B'];

const PITCH_CLASSES: Record<string, number> = { C: 0, D: 2, E: 4, F: 5, G: 7, A: 9, B: 11 };

export function formatKey(key: Key): string {
  const names = key.mode === 'major' ? MAJOR_NAMES : MINOR_NAMES;
  return `${names[key.tonic]} ${key.mode}`;
}

/**
 * A chord's name, its root spelled as the key of the same root and mode is ("Eb", "C#m", "F#",
 * "Bbm"), so a chord and the key it names read alike.
 */
export function chordName(root: number, minor: boolean): string {
  return minor ? `${MINOR_NAMES[root]}m` : `${MAJOR_NAMES[root]}`;
}

/**
 * Parses "Eb major", "D# minor", "F#m", "Bbmaj", "A min", "C" (major), with sharps/flats in ASCII
 * or as ♯/♭. Returns null when it is not a key.
 */
export function parseKey(text: string): Key | null {
  const m = /^\s*([A-Ga-g])\s*([#♯b♭]?)\s*(major|maj|minor|min|m)?\s*$/i.exec(text);
  if (!m) return null;
  let tonic = PITCH_CLASSES[(m[1] ?? '').toUpperCase()];
  if (tonic === undefined) return null;
  if (m[2] === '#' || m[2] === '♯') tonic += 1;
  if (m[2] === 'b' || m[2] === '♭') tonic -= 1;
  const suffix = (m[3] ?? '').toLowerCase();
  const minor = suffix === 'minor' || suffix === 'min' || m[3] === 'm';
  return { tonic: ((tonic % 12) + 12) % 12, mode: minor ? 'minor' : 'major' };
}

/**
 * Camelot wheel code (Mixed In Key): neighbouring numbers are a fifth apart, B = major, A = minor;
 * a key and its relative share the number. C major = 8B, A minor = 8A.
 */
export function camelot(key: Key): string {
  const major = key.mode === 'major' ? key.tonic : (key.tonic + 3) % 12;
  const n = ((((7 * major) % 12) + 7) % 12) + 1;
  return `${n}${key.mode === 'major' ? 'B' : 'A'}`;
}
