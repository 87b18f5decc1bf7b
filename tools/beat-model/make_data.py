#!/usr/bin/env python3
"""The beat model's training material (training only, never product):

    python3 tools/beat-model/make_data.py DIR [PIECES]

Pieces of tools/key-model/compose.py (30 s, 60-180 BPM, 2/4, 3/4, 4/4, 12/8 feel, half with drums),
a quarter of the straight ones swung (every note on the off-beat eighth moved to 2/3 of the beat:
the shuffle the signal tracker takes for the beat), rendered by fluidsynth with FluidR3 GM, whose
renders sit on the composer's grid (bench/analyze-beats-composed.py). The labels are that grid: a
beat every 60 / bpm s from 0, a downbeat every `meter` beats. Seed 4301, another stream than the tempo
development set's (2700). Writes DIR/clips/*.wav and DIR/manifest.json (bench/analyze-beats.ts's form).
"""
import json
import os
import sys
import tempfile

import numpy as np
import soundfile as sf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'key-model'))
from compose import compose  # noqa: E402
from render import SR, VOICES, render_batch  # noqa: E402

BATCH = 30


def swing(p):
    """Moves every note that starts on an off-beat eighth (within 20 ms) to 2/3 of its beat."""
    beat = 60 / p['bpm']
    out = []
    for start, dur, note, vel, ch in p['notes']:
        k, frac = divmod(start / beat, 1.0)
        if abs(frac - 0.5) * beat < 0.02:
            start = (k + 2 / 3) * beat + (frac - 0.5) * beat
            dur = min(dur, beat / 3)
        out.append((start, dur, note, vel, ch))
    p['notes'] = sorted(out)
    return p


def main():
    out = os.path.abspath(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = np.random.default_rng(4301)
    os.makedirs(os.path.join(out, 'clips'), exist_ok=True)
    manifest = []
    with tempfile.TemporaryDirectory() as work:
        for first in range(0, count, BATCH):
            pieces = []
            for _ in range(BATCH):
                p = compose(rng, int(rng.integers(12)), str(rng.choice(['major', 'minor'])), seconds=30)
                p['swung'] = not p['triplet'] and rng.random() < 0.25
                pieces.append(swing(p) if p['swung'] else p)
            audio = render_batch(pieces, VOICES[0], rng, work)
            for i, (p, a) in enumerate(zip(pieces, audio)):
                name = f'train-{first + i:04d}'
                sf.write(os.path.join(out, 'clips', f'{name}.wav'), a / (np.max(np.abs(a)) + 1e-9) * 0.5, SR,
                         subtype='PCM_16')
                period = 60 / p['bpm']
                per_bar = 4 if p['triplet'] else p['meter']
                seconds = len(a) / SR
                beats = [round(k * period, 4) for k in range(int((seconds - 1) / period) + 1)]
                meter = '12/8' if p['triplet'] else f"{p['meter']}/4"
                manifest.append(dict(name=name + ('-swing' if p['swung'] else '') + ('-drums' if p['drums'] else ''),
                                     file=f'clips/{name}.wav', meter=meter, beats=beats, downbeats=beats[::per_bar],
                                     beatsPerBar=per_bar, bpm=round(p['bpm'], 2)))
            print(f'{len(manifest)} / {count}', flush=True)
    with open(os.path.join(out, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)


if __name__ == '__main__':
    main()
