#!/usr/bin/env python3
"""Builds a rendered tempo development set (bench only, never product): 150 pieces of 30 s composed by
tools/key-model/compose.py in 2/4, 3/4, 4/4 and 12/8-like feels at 60-180 BPM, half with drums,
rendered with Debian's General MIDI soundfonts (tools/key-model/render.py).

    python3 bench/analyze-tempo-devset.py DIR      # then: node bin/run-ts.mjs bench/analyze-tempo.ts --set DIR

Tempo rules are chosen on this set, where the notated beat is known exactly, so the real-music set
(bench/analyze-realset.py) stays a test that nobody tuned on. The label is the composer's beat
(a quarter note; a dotted quarter in the 12/8-like feel), its meter and whether drums play.
"""
import json
import os
import sys
import tempfile

import numpy as np
import soundfile as sf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'tools', 'key-model'))
from compose import compose  # noqa: E402
from render import SR, VOICES, render_batch  # noqa: E402

DIR = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'tempo-devset')
PIECES = 150
BATCH = 30


def main():
    rng = np.random.default_rng(2700)
    os.makedirs(os.path.join(DIR, 'clips'), exist_ok=True)
    manifest = []
    with tempfile.TemporaryDirectory() as work:
        for first in range(0, PIECES, BATCH):
            pieces = [compose(rng, int(rng.integers(12)), str(rng.choice(['major', 'minor'])), seconds=30)
                      for _ in range(BATCH)]
            audio = render_batch(pieces, VOICES[(first // BATCH) % len(VOICES)], rng, work)
            for i, (p, a) in enumerate(zip(pieces, audio)):
                name = f'dev-{first + i:03d}'
                sf.write(os.path.join(DIR, 'clips', f'{name}.wav'), a / (np.max(np.abs(a)) + 1e-9) * 0.5, SR,
                         subtype='PCM_16')
                meter = '12/8' if p['triplet'] else f"{p['meter']}/4"
                manifest.append(dict(name=name, file=f'clips/{name}.wav', tempo=round(p['bpm'], 2), meter=meter,
                                     drums=p['drums'], seconds=round(len(a) / SR, 2)))
            print(f'{len(manifest)} / {PIECES}', flush=True)
    with open(os.path.join(DIR, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)


if __name__ == '__main__':
    main()
