#!/usr/bin/env python3
"""Two more labelled beat sets from MMA's style library (bench only, never product):

    python3 bench/analyze-beats-mma.py DIR     # needs mma, fluidsynth + fluid-soundfont-gm, mido
    node bin/run-ts.mjs bench/analyze-beats.ts --set DIR/mma-dev --python PY

MMA (Musical MIDI Accompaniment, a Debian package) plays a chord chart in a named style ("groove":
drums, bass, comping, arpeggios). The grooves of its standard library that the `meter` set
(bench/analyze-beats-set.py) does not use, 4/4 and 2/4 feels only, are split alternately by name into
`mma-dev` (tuning) and `mma-fresh` (held out). Each groove plays a random 16-bar chart (a seeded
choice of common progressions) at a seeded tempo of 72-168 BPM, twice: as MMA plays it, and with its
drum channel removed (bass and comping alone: off-beat piano, swung eighths and arpeggios with no
kick or snare to mark the beat). Beats and downbeats come from MMA's MIDI file exactly as in
bench/analyze-beats-set.py (label_midi: the quarter note is the beat; pieces not played to their
grid are dropped).
"""
import importlib.util
import json
import os
import random
import subprocess
import sys

DIR = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'beats-set')
spec = importlib.util.spec_from_file_location('beatset', os.path.join(os.path.dirname(__file__), 'analyze-beats-set.py'))
beatset = importlib.util.module_from_spec(spec)
sys.argv = [sys.argv[0], DIR]
spec.loader.exec_module(beatset)

STDLIB = '/usr/share/mma/lib/stdlib'
# Used by the meter set, or not a steady 2/4 or 4/4 groove (waltzes, 5/4, 6/8, metronomes, the empty one).
SKIP = {'waltz', 'jazzwaltz', 'countrywaltz', 'frenchwaltz', 'broadwaywaltz', 'arpeggiowaltz', 'swing',
        'easyswing', 'countryswing', 'fastswing', 'blues', 'countryblues', 'none', 'jazz-54', 'metronome',
        'metronome3', 'metronome6', 'metronome68', 'fastjazzwaltz', 'fastwaltz', 'latinwaltz', 'modernjazzwaltz',
        'rockwaltz', 'vienesewaltz', 'arpeggio68', 'ballad68', 'blues68', '68march', '68swing', 'gypsyjazz'}
CHARTS = [
    'C Am F G7', 'C F G7 C', 'Dm7 G7 Cmaj7 A7', 'Am Dm E7 Am', 'F Bb C7 F', 'G Em C D7', 'C C7 F Fm',
    'Em Am D7 G', 'Bb Gm Cm F7', 'D A Bm G', 'Am G F E7', 'C Dm Em F',
]


def grooves():
    names = sorted(f[:-4] for f in os.listdir(STDLIB) if f.endswith('.mma'))
    return [n for n in names if n not in SKIP]


def play_chart(work, stem, groove, tempo, chart):
    """MMA plays `chart` (a bar a chord) in `groove` at `tempo`: work/stem.mid, or None where MMA fails."""
    src = os.path.join(work, f'{stem}.mma')
    with open(src, 'w') as f:
        f.write(f'Tempo {tempo}\nGroove {groove}\n')
        f.writelines(f'{k + 1} {c}\n' for k, c in enumerate(chart))
    try:
        subprocess.run(['mma', src], cwd=work, check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError:
        return None
    return src[:-4] + '.mid'


def strip_drums(src, dst):
    """The MIDI file without its drums (channel 10)."""
    beatset.rewrite_events(src, dst, lambda t, m: None if getattr(m, 'channel', None) == 9 else t)


def main():
    rng = random.Random(43)
    names = grooves()
    sets = {'mma-dev': [], 'mma-fresh': []}
    work = os.path.join(DIR, 'mma-styles')
    os.makedirs(work, exist_ok=True)
    for i, groove in enumerate(names):
        split = 'mma-dev' if i % 2 == 0 else 'mma-fresh'
        tempo = rng.randrange(72, 169, 2)
        chart = [c for _ in range(4) for c in rng.choice(CHARTS).split()]
        mid = play_chart(work, groove, groove, tempo, chart)
        if mid is None:
            print('mma failed:', groove, flush=True)
            continue
        bare = mid[:-4] + '-nodrums.mid'
        strip_drums(mid, bare)
        for path, name in ((mid, f'mma-{groove}-{tempo}'), (bare, f'mma-{groove}-{tempo}-nodrums')):
            try:
                e = beatset.label_midi(path, name, os.path.relpath(path, DIR), os.path.join(DIR, split))
            except (ValueError, IndexError, subprocess.CalledProcessError) as err:
                print('skipped:', name, err, flush=True)
                continue
            if e:
                sets[split].append(e)
                print(split, name, e['meter'], e['bpm'], flush=True)
    for split, entries in sets.items():
        with open(os.path.join(DIR, split, 'manifest.json'), 'w') as f:
            json.dump(entries, f, indent=1)
        print(split, len(entries), 'pieces')


if __name__ == '__main__':
    main()
