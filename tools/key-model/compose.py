"""Composes short labelled pieces for the key model: diatonic harmony with cadences, borrowed chords,
modal mixture, secondary dominants, bass lines, melodies and drums, in all 24 keys (training only).

A piece is a list of notes (start s, duration s, MIDI note, velocity, channel) plus programs and
channel volumes, and its label (tonic pitch class, mode), or mode None for the atonal pieces whose
target is "no key". Everything is drawn from one numpy Generator, so a seed gives the same piece.

The progressions include the cases that fool profile methods: a song that sits on IV or V for
most of its length, minor-key songs that dwell on the relative major (III), major songs that start
on vi, Dorian and Mixolydian vamps, and short phrases of one or two chords.
"""
import numpy as np

MAJOR = (0, 2, 4, 5, 7, 9, 11)
MINOR = (0, 2, 3, 5, 7, 8, 10)
MIXOLYDIAN = (0, 2, 4, 5, 7, 9, 10)
DORIAN = (0, 2, 3, 5, 7, 9, 10)
QUALITY = {'maj': (0, 4, 7), 'min': (0, 3, 7), 'dim': (0, 3, 6), 'aug': (0, 4, 8), 'sus4': (0, 5, 7),
           '7': (0, 4, 7, 10), 'maj7': (0, 4, 7, 11), 'm7': (0, 3, 7, 10), 'm7b5': (0, 3, 6, 10)}

# Chord symbols: root (semitones above the tonic), quality, and the scale a melody uses over it.
M = {'I': (0, 'maj'), 'ii': (2, 'min'), 'iii': (4, 'min'), 'IV': (5, 'maj'), 'V': (7, 'maj'), 'V7': (7, '7'),
     'vi': (9, 'min'), 'viio': (11, 'dim'), 'Imaj7': (0, 'maj7'), 'ii7': (2, 'm7'), 'IVmaj7': (5, 'maj7'),
     'vi7': (9, 'm7'), 'Isus': (0, 'sus4'), 'Vsus': (7, 'sus4'),
     # borrowed from the parallel minor (modal mixture) and secondary dominants
     'iv': (5, 'min'), 'bVI': (8, 'maj'), 'bVII': (10, 'maj'), 'bIII': (3, 'maj'), 'V/V': (2, 'maj'),
     'V/vi': (4, 'maj'), 'V7/IV': (0, '7'), 'V/ii': (9, 'maj'), 'v': (7, 'min'), 'I7': (0, '7')}
m = {'i': (0, 'min'), 'iio': (2, 'dim'), 'III': (3, 'maj'), 'iv': (5, 'min'), 'v': (7, 'min'), 'V': (7, 'maj'),
     'V7': (7, '7'), 'VI': (8, 'maj'), 'VII': (10, 'maj'), 'viio': (11, 'dim'), 'i7': (0, 'm7'),
     'iv7': (5, 'm7'), 'IV': (5, 'maj'), 'bII': (1, 'maj'), 'III+': (3, 'aug'), 'iiø7': (2, 'm7b5'),
     'I': (0, 'maj'), 'VImaj7': (8, 'maj7'), 'Vsus': (7, 'sus4'), 'ii': (2, 'min'), 'IV7': (5, '7')}

# Plain diatonic progressions, as most songs are, and colourful ones (borrowed chords, secondary
# dominants, modal vamps, songs sitting on IV or V): a first model trained mostly on the colourful
# ones learnt that accidentals say little and leaned to the subdominant on real music.
MAJOR_PLAIN = [
    'I V vi IV', 'vi IV I V', 'I vi IV V', 'IV I V vi', 'I IV vi V', 'ii V I I', 'I IV I V', 'IV V iii vi ii V I I',
    'I vi ii V7', 'Imaj7 IVmaj7 Imaj7 IVmaj7', 'I I IV IV V IV I V', 'ii7 V7 Imaj7 vi7', 'I Isus I Isus', 'IV V I vi',
    'vi vi IV V', 'V7 I V7 I', 'IV V7 I I', 'I viio iii vi ii V I I', 'Vsus V I I', 'I IV V I', 'I V I V',
    'I iii vi IV', 'I ii IV V', 'I I I I',
]
MAJOR_COLOUR = [
    'I bVII IV I', 'I iii IV iv', 'I bVI bVII I', 'I V/V IV I', 'V V IV V V IV V I', 'IV IV I IV IV V I I',
    'IV IV IV I', 'V IV V IV', 'I V/vi vi IV', 'I bIII IV I', 'I IV iv I', 'I bVII I bVII', 'I V7/IV IV iv',
]
MINOR_PLAIN = [
    'i VI III VII', 'i iv V i', 'i VII VI V', 'i iv VII III VI iio V i', 'VI VII i i', 'iv i V i', 'i v iv i',
    'VI iv i V', 'i VII i VII', 'i i iv iv V V i i', 'i iv7 VII III', 'iiø7 V7 i i', 'i VI iv V7', 'i7 iv7 i7 iv7',
    'i VImaj7 III VII', 'iv V i VI', 'i VII VI VII', 'i iv v i', 'Vsus V i i', 'i iv i V', 'i i i i', 'i VI VII i',
]
MINOR_COLOUR = [
    'i IV i IV', 'i III VII IV', 'i bII V i', 'III VII i i', 'III III VII VII VI VI V V', 'iv iv V V', 'VI VI VII i',
    'i III+ III VI', 'III VI iv V', 'i i i I', 'V V i i', 'III iv V i',
]
# Modal pieces: a tonic held by the bass and the melody over another key's notes, as much game,
# rock and folk music is (Mixolydian: the major scale with a flat 7th; Dorian: the minor scale with a
# natural 6th). A model trained without them named the key of the notes' collection (the
# subdominant's) where a listener names the tonic.
MIXOLYDIAN_TEMPLATES = ['I bVII IV I', 'I bVII I bVII', 'I IV bVII I', 'I v IV I', 'I I bVII IV', 'I7 IV I7 IV',
                        'I bVII v I', 'I IV I bVII', 'I I I bVII']
DORIAN_TEMPLATES = ['i IV i IV', 'i ii i IV', 'i IV VII i', 'i i IV IV', 'i IV7 i IV7', 'i VII IV i', 'i ii IV i',
                    'i i i IV']


def markov_progression(rng, mode, n):
    """A functional walk: tonic -> predominant -> dominant -> tonic, with some detours."""
    if mode == 'major':
        groups = {'T': ['I', 'I', 'vi', 'iii', 'Imaj7'], 'P': ['IV', 'IV', 'ii', 'ii7', 'IVmaj7'],
                  'D': ['V', 'V', 'V7', 'viio', 'Vsus']}
        colour = {'P': ['iv', 'bVI', 'V/V'], 'D': ['bVII']}
        tonic = 'I'
    else:
        groups = {'T': ['i', 'i', 'VI', 'III', 'i7'], 'P': ['iv', 'iv', 'iio', 'VI', 'iv7'],
                  'D': ['V', 'V7', 'VII', 'v', 'viio']}
        colour = {'P': ['bII', 'IV'], 'D': []}
        tonic = 'i'
    step = {'T': (['T', 'P', 'D'], [0.2, 0.5, 0.3]), 'P': (['P', 'D', 'T'], [0.2, 0.7, 0.1]),
            'D': (['T', 'D', 'P'], [0.75, 0.15, 0.1])}
    f = rng.choice(['T', 'P', 'D'], p=[0.6, 0.25, 0.15])
    out = []
    for _ in range(n):
        pool = colour.get(f) if rng.random() < 0.1 and colour.get(f) else groups[f]
        out.append(str(rng.choice(pool)))
        names, p = step[f]
        f = str(rng.choice(names, p=p))
    if rng.random() < 0.6:  # cadence
        out[-2:] = [('V7' if rng.random() < 0.5 else 'V'), tonic] if n >= 2 else [tonic]
    return out


def progression(rng, mode, modal=False):
    if modal:
        t = str(rng.choice(MIXOLYDIAN_TEMPLATES if mode == 'major' else DORIAN_TEMPLATES)).split()
        table = M if mode == 'major' else m
        return [table[c] for c in t * int(rng.integers(1, 3))]
    if rng.random() < 0.6:
        plain = rng.random() < 0.75
        pool = (MAJOR_PLAIN if plain else MAJOR_COLOUR) if mode == 'major' else (MINOR_PLAIN if plain else MINOR_COLOUR)
        t = str(rng.choice(pool)).split()
        if rng.random() < 0.3:  # a rotation: the loop heard from another chord
            r = int(rng.integers(len(t)))
            t = t[r:] + t[:r]
        reps = int(rng.integers(1, 3))
        t = t * reps
    else:
        t = markov_progression(rng, mode, int(rng.integers(3, 9)))
    if rng.random() < 0.15:  # a short excerpt of one or two chords
        t = t[:int(rng.integers(1, 3))]
    table = M if mode == 'major' else m
    return [table[c] for c in t]


def scale_over(mode, root, quality, modal=False):
    """The pitch classes (relative to the tonic) a melody uses over a chord: the key's scale, with
    the chord's own tones replacing the scale's where they differ (raised 7th over V in minor,
    b7 over bVII, b3 over iv in major, ...)."""
    if modal:
        base = set(MIXOLYDIAN if mode == 'major' else DORIAN)
    else:
        base = set(MAJOR if mode == 'major' else MINOR)
    tones = {(root + i) % 12 for i in QUALITY[quality]}
    for t in tones:
        for d in (-1, 1):
            if (t + d) % 12 in base and t not in base:
                base.discard((t + d) % 12)
        base.add(t)
    return sorted(base)


PROGRAMS = {
    'comp': [0, 1, 2, 4, 5, 6, 7, 11, 16, 17, 18, 19, 24, 25, 26, 27, 28, 46, 48, 49, 50, 51, 52, 61, 80, 81,
             88, 89, 90, 91, 92, 94, 95],
    'bass': [32, 33, 34, 35, 36, 37, 38, 39, 42, 43, 58, 70, 87],
    'melody': [0, 4, 6, 8, 10, 11, 12, 13, 22, 24, 26, 29, 40, 41, 42, 56, 57, 60, 64, 65, 66, 68, 69, 70, 71, 72,
               73, 74, 75, 78, 79, 80, 81, 82, 83, 84, 85, 105, 108],
}
DRUM = {'kick': 36, 'snare': 38, 'clap': 39, 'hat': 42, 'open': 46, 'ride': 51, 'crash': 49, 'tom': 45}


def drum_pattern(rng, meter, steps):
    """One bar of drums on a 16th (or triplet-8th) grid: (step, note, velocity)."""
    style = str(rng.choice(['rock', 'four', 'half', 'break', 'sparse', 'hats']))
    beat = steps // meter
    hits = []
    for b in range(meter):
        s = b * beat
        if style == 'four' or (style in ('rock', 'break') and b % 2 == 0) or (style == 'half' and b == 0):
            hits.append((s, DRUM['kick'], 110))
        if (style in ('rock', 'four') and b % 2 == 1) or (style == 'half' and b == meter // 2 and b > 0):
            hits.append((s, DRUM['snare' if rng.random() < 0.8 else 'clap'], 105))
        if style == 'break' and b % 2 == 1:
            hits.append((s, DRUM['snare'], 105))
            hits.append((s + beat // 2, DRUM['kick'], 90))
        if style == 'sparse' and b == 0:
            hits.append((s, DRUM['kick'], 100))
        if style != 'sparse':
            for k in range(0, beat, max(1, beat // 2) if rng.random() < 0.6 else max(1, beat // 4)):
                hits.append((s + k, DRUM['ride' if style == 'hats' and rng.random() < 0.3 else 'hat'], 70))
    return hits


def compose(rng, tonic, mode, seconds=None, modal=False):
    """One piece in `tonic` (0 = C) and `mode` ('major' / 'minor'), about `seconds` long (default:
    2 to 24 s at random)."""
    meter = int(rng.choice([4, 3, 2], p=[0.72, 0.2, 0.08]))
    triplet = meter != 3 and rng.random() < 0.12  # 12/8-like feel
    bpm = float(rng.uniform(60, 180))
    beat = 60 / bpm
    steps = meter * (3 if triplet else 4)
    step = meter * beat / steps
    bars_per_chord = float(rng.choice([0.5, 1, 1, 1, 2]))
    chords = progression(rng, mode, modal)
    # Length: 2 to about 24 s, whatever the tempo.
    target = float(rng.choice([rng.uniform(2, 6), rng.uniform(6, 14), rng.uniform(12, 24)]))
    if seconds is not None:
        target = seconds
    bar = meter * beat
    chord_len = bars_per_chord * bar
    n = max(1, int(np.ceil(target / chord_len)))
    seq = [chords[i % len(chords)] for i in range(n)]
    notes = []
    layers = {'comp': rng.random() < 0.9, 'bass': rng.random() < 0.8, 'melody': rng.random() < 0.7,
              'drums': rng.random() < 0.5, 'counter': rng.random() < 0.2}
    if not (layers['comp'] or layers['bass'] or layers['melody']):
        layers['melody'] = True
    if rng.random() < 0.05:  # a solo line alone (a trumpet loop, a flute)
        layers = {'comp': False, 'bass': False, 'melody': True, 'drums': False, 'counter': False}
    jitter = float(rng.uniform(0, 0.015))
    base = 48 + int(rng.integers(-5, 8))  # comping register G2..G3 to G3..G4, whatever the key
    comp_style = str(rng.choice(['block', 'stabs', 'arp', 'strum', 'offbeat', 'alberti']))
    bass_style = str(rng.choice(['root', 'rootfifth', 'octave', 'walk', 'pedal', 'sync']))
    pedal = rng.random() < (0.3 if modal else 0.1)

    def add(t, d, note, vel, ch):
        if 21 <= note <= 108 and d > 0.02:
            t = max(0.0, t + rng.normal(0, jitter))
            notes.append((t, d, int(note), int(np.clip(vel + rng.normal(0, 8), 20, 127)), ch))

    prev = None
    for ci, (root, quality) in enumerate(seq):
        t0 = ci * chord_len
        tones = [(tonic + root + i) for i in QUALITY[quality]]
        if layers['comp']:
            inv = int(rng.integers(0, len(tones)))
            voicing = sorted([base + ((p - base) % 12) for p in tones])
            voicing = voicing[inv:] + [v + 12 for v in voicing[:inv]]
            if rng.random() < 0.3:
                voicing = voicing + [voicing[0] + 12]
            if prev is not None and rng.random() < 0.5:  # nearer the previous voicing
                shift = -12 if np.mean(voicing) - np.mean(prev) > 6 else 12 if np.mean(prev) - np.mean(voicing) > 6 else 0
                voicing = [v + shift for v in voicing]
            prev = voicing
            vel = int(rng.integers(55, 95))
            if comp_style == 'block':
                for v in voicing:
                    add(t0, chord_len * 0.98, v, vel, 0)
            elif comp_style in ('stabs', 'offbeat'):
                k = 0
                while k * beat < chord_len - 1e-6:
                    off = beat / 2 if comp_style == 'offbeat' else 0
                    for v in voicing:
                        add(t0 + k * beat + off, beat * 0.45, v, vel, 0)
                    k += 1
            elif comp_style == 'strum':
                for i, v in enumerate(voicing):
                    add(t0 + i * 0.02, chord_len * 0.95 - i * 0.02, v, vel, 0)
            else:
                order = voicing + voicing[-2:0:-1] if comp_style == 'arp' else [voicing[0], voicing[-1], voicing[1], voicing[-1]]
                k = 0
                while k * step < chord_len - 1e-6:
                    add(t0 + k * step, step * 1.5, order[k % len(order)], vel, 0)
                    k += 1
        if layers['bass']:
            r = 36 + (tonic + root) % 12
            if r > 45:
                r -= 12
            if pedal:
                r = 36 + tonic % 12 - (12 if tonic % 12 > 9 else 0)
            vel = int(rng.integers(70, 110))
            beats = max(1, int(round(chord_len / beat)))
            for b in range(beats):
                t = t0 + b * beat
                if bass_style in ('root', 'pedal') or pedal:
                    if b % 2 == 0 or beats < 2:
                        add(t, min(2 * beat, chord_len - b * beat) * 0.95, r, vel, 1)
                elif bass_style == 'rootfifth':
                    add(t, beat * 0.9, r + (7 if b % 2 else 0), vel, 1)
                elif bass_style == 'octave':
                    add(t, beat * 0.45, r, vel, 1)
                    add(t + beat / 2, beat * 0.45, r + 12, vel - 10, 1)
                elif bass_style == 'walk':
                    sc = scale_over(mode, root, quality, modal)
                    pc = sc[int(rng.integers(len(sc)))] if b else root % 12
                    add(t, beat * 0.9, 36 + (tonic + pc) % 12, vel, 1)
                else:
                    add(t, beat * 0.4, r, vel, 1)
                    if rng.random() < 0.5:
                        add(t + beat * 0.75, beat * 0.2, r, vel - 15, 1)
        for layer, ch, lo in (('melody', 2, 60), ('counter', 3, 52)):
            if not layers[layer]:
                continue
            sc = scale_over(mode, root, quality, modal)
            pitches = [p for p in range(lo, lo + 19) if (p - tonic) % 12 in sc]
            chord_pcs = {(tonic + root + i) % 12 for i in QUALITY[quality]}
            k = 0.0
            cur = int(rng.integers(len(pitches)))
            while k < chord_len - 1e-6:
                d = step * float(rng.choice([1, 2, 2, 4, 4, 8] if layer == 'melody' else [4, 8]))
                if rng.random() < 0.15:
                    k += d
                    continue
                cur = int(np.clip(cur + rng.choice([-2, -1, -1, 1, 1, 2, 3, -3]), 0, len(pitches) - 1))
                on_beat = abs((k / beat) - round(k / beat)) < 1e-3
                if on_beat and pitches[cur] % 12 not in chord_pcs and rng.random() < 0.7:
                    near = [i for i, p in enumerate(pitches) if p % 12 in chord_pcs]
                    cur = min(near, key=lambda i: abs(i - cur)) if near else cur
                add(t0 + k, min(d, chord_len - k) * 0.9, pitches[cur], int(rng.integers(70, 110)), ch)
                k += d
    end = n * chord_len
    if layers['melody'] and rng.random() < (0.9 if modal else 0.5):  # phrase ends on the tonic
        add(end, beat * 2, 60 + tonic % 12 + (12 if tonic % 12 < 4 else 0), 90, 2)
        end += beat * 2
    if layers['drums']:
        pat = drum_pattern(rng, meter, steps)
        nbars = int(np.ceil(end / bar))
        for b in range(nbars):
            for s, note, vel in pat:
                t = b * bar + s * step
                if t < end:
                    add(t, 0.1, note, vel, 9)
            if b == 0 and rng.random() < 0.5:
                add(0, 0.5, DRUM['crash'], 100, 9)
    programs = {ch: int(rng.choice(PROGRAMS[role])) for ch, role in ((0, 'comp'), (1, 'bass'), (2, 'melody'),
                                                                    (3, 'comp'))}
    volumes = {ch: int(rng.integers(70, 127)) for ch in (0, 1, 2, 3)}
    volumes[9] = int(rng.integers(40, 127))
    return dict(notes=sorted(notes), programs=programs, volumes=volumes, seconds=end, tonic=tonic, mode=mode,
                bpm=bpm, meter=meter, triplet=triplet, drums=layers['drums'])


def compose_atonal(rng):
    """Music with no key, whose target is the uniform distribution: random chromatic notes, clusters,
    whole-tone runs, or drums alone."""
    kind = str(rng.choice(['chromatic', 'cluster', 'wholetone', 'drums']))
    seconds = float(rng.uniform(2, 16))
    notes = []
    t = 0.0
    while t < seconds:
        d = float(rng.uniform(0.08, 0.6))
        if kind == 'chromatic':
            for _ in range(int(rng.integers(1, 4))):
                notes.append((t, d * 1.5, int(rng.integers(36, 90)), int(rng.integers(50, 110)), int(rng.integers(0, 3))))
        elif kind == 'cluster':
            lo = int(rng.integers(40, 70))
            for p in range(lo, lo + int(rng.integers(5, 13))):
                notes.append((t, d * 2, p, 70, 0))
        elif kind == 'wholetone':
            start = int(rng.integers(0, 2))
            notes.append((t, d, 48 + start + 2 * int(rng.integers(0, 12)), 90, 2))
        else:
            notes.append((t, 0.1, int(rng.choice([35, 36, 38, 40, 42, 44, 46, 49, 51])), int(rng.integers(60, 120)), 9))
        t += d
    programs = {ch: int(rng.choice(PROGRAMS['comp'])) for ch in (0, 1, 2, 3)}
    volumes = {ch: 100 for ch in (0, 1, 2, 3, 9)}
    return dict(notes=sorted(notes), programs=programs, volumes=volumes, seconds=seconds, tonic=-1, mode=None,
                bpm=120.0)
