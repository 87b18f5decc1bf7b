#!/usr/bin/env python3
"""More training material from MMA's grooves (training only, never product):

    python3 tools/beat-model/make_mma.py DIR [TAKES]

Only the grooves of bench/analyze-beats-mma.py's `mma-dev` half (never `mma-fresh`'s nor the `meter`
set's), each playing TAKES (default 2) new seeded 16-bar charts at new seeded tempi of 60-180 BPM
(seed 4302), with and without drums, labelled from MMA's MIDI file by bench/analyze-beats-set.py's
label_midi (renders off their grid are dropped). Writes DIR/clips/*.wav and DIR/manifest.json.
"""
import importlib.util
import json
import os
import random
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.abspath(sys.argv[1])
TAKES = int(sys.argv[2]) if len(sys.argv) > 2 else 2
argv = sys.argv
spec = importlib.util.spec_from_file_location('mmaset', os.path.join(here, '..', '..', 'bench', 'analyze-beats-mma.py'))
mmaset = importlib.util.module_from_spec(spec)
sys.argv = [argv[0], OUT]
spec.loader.exec_module(mmaset)


def main():
    rng = random.Random(4302)
    work = os.path.join(OUT, 'mma-styles')
    os.makedirs(work, exist_ok=True)
    entries = []
    for i, groove in enumerate(mmaset.grooves()):
        if i % 2 != 0:  # mma-fresh's grooves: held out
            continue
        for take in range(TAKES):
            tempo = rng.randrange(60, 181, 2)
            chart = [c for _ in range(4) for c in rng.choice(mmaset.CHARTS).split()]
            mid = mmaset.play_chart(work, f'{groove}-{take}', groove, tempo, chart)
            if mid is None:
                continue
            bare = mid[:-4] + '-nodrums.mid'
            mmaset.strip_drums(mid, bare)
            for path, name in ((mid, f'mma-{groove}-{take}-{tempo}'), (bare, f'mma-{groove}-{take}-{tempo}-nodrums')):
                try:
                    e = mmaset.beatset.label_midi(path, name, os.path.relpath(path, OUT), OUT)
                except (ValueError, IndexError, subprocess.CalledProcessError):
                    continue
                if e:
                    entries.append(e)
            print(len(entries), groove, flush=True)
    with open(os.path.join(OUT, 'manifest.json'), 'w') as f:
        json.dump(entries, f, indent=1)


if __name__ == '__main__':
    main()
