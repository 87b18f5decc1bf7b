"""Makes the key model's training audio (training only, never product):

    python tools/key-model/make_data.py OUT_DIR --split train|val|modal [--pieces N]
    # 2400 train, 480 val, 800 modal (Mixolydian and Dorian pieces, trained on with train)

Composes N pieces (compose.py) with keys and modes cycling through all 24 keys, renders them in
batches of 40 with a renderer and soundfont per batch (render.py), augments each (augment.py) and
writes every piece as raw float32 mono at 22.05 kHz (OUT_DIR/SPLIT/NNNNN.f32) with a manifest
(OUT_DIR/SPLIT.json: file, tonic, mode, seconds, voice). One seed per split, so the same command
gives the same files. About 6 % of pieces are atonal (mode null): their target is "no key".
"""
import argparse
import json
import os
import tempfile

import numpy as np
from augment import augment
from compose import compose, compose_atonal
from render import VOICES, render_batch

SEEDS = {'train': 33, 'val': 3300, 'modal': 3333}
BATCH = 40


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--split', choices=list(SEEDS), default='train')
    ap.add_argument('--pieces', type=int, default=2400)
    args = ap.parse_args()
    rng = np.random.default_rng(SEEDS[args.split])
    folder = os.path.join(args.out, args.split)
    os.makedirs(folder, exist_ok=True)
    manifest = []
    with tempfile.TemporaryDirectory() as work:
        for first in range(0, args.pieces, BATCH):
            ids = range(first, min(args.pieces, first + BATCH))
            pieces = []
            for i in ids:
                if rng.random() < 0.06:
                    pieces.append(compose_atonal(rng))
                else:
                    pieces.append(compose(rng, i % 12, 'major' if (i // 12) % 2 == 0 else 'minor',
                                          modal=args.split == 'modal'))
            voice = VOICES[(first // BATCH) % len(VOICES)]
            audio = render_batch(pieces, voice, rng, work)
            for i, p, a in zip(ids, pieces, audio):
                name = f'{i:05d}.f32'
                augment(a, rng).tofile(os.path.join(folder, name))
                manifest.append(dict(file=f'{args.split}/{name}', tonic=p['tonic'], mode=p['mode'],
                                     seconds=round(len(a) / 22050, 2), voice=voice[1].split('/')[-1]))
            print(f'{args.split}: {len(manifest)} / {args.pieces}', flush=True)
            # Written after every batch: the first N pieces of a longer run are the same files.
            with open(os.path.join(args.out, f'{args.split}.json'), 'w') as f:
                json.dump(manifest, f, indent=0)


if __name__ == '__main__':
    main()
