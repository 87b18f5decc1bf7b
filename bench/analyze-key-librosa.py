#!/usr/bin/env python3
"""The real-music set's key-labelling methods run on the excerpts themselves (bench only):

    /tmp/v/bin/python bench/analyze-key-librosa.py DIR

DIR is what bench/analyze-realset.py built. A 30 s excerpt's "librosa" key label is where librosa's
CQT chroma + Krumhansl-Kessler and its STFT chroma + Temperley agree; its 2 s excerpt carries that
label. Scoring the same two methods on the 2 s excerpts (mir_eval.key.weighted_score, as
bench/analyze-score.py) shows how far a global chroma-profile method gets on 2 s of music when
judged against its own reading of the surrounding 30 s: a reference point for stemforge's 2 s score,
not a ceiling.
"""
import json
import os
import sys
import warnings

import librosa
import mir_eval
import numpy as np

warnings.filterwarnings('ignore')
DIR = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '/tmp/realset')
NAMES = ['C', 'Db', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'Ab', 'A', 'Bb', 'B']
KK = ([6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88],
      [6.33, 2.68, 3.52, 5.38, 2.6, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17])
TEMPERLEY = ([5, 2, 3.5, 2, 4.5, 4, 2, 4.5, 2, 3.5, 1.5, 4], [5, 2, 3.5, 4.5, 2, 4, 2, 4.5, 3.5, 2, 1.5, 4])


def profile_key(chroma, profiles):
    best = (-2.0, None)
    for mode, profile in zip(('major', 'minor'), profiles):
        for tonic in range(12):
            r = np.corrcoef(np.roll(chroma, -tonic), profile)[0, 1]
            if r > best[0]:
                best = (r, f'{NAMES[tonic]} {mode}')
    return best[1]


def main():
    entries = [e for e in json.load(open(os.path.join(DIR, 'manifest.json'))) if e.get('key')]
    rows = {'30 s': {'cqt+KK': [], 'stft+Temperley': []}, '2 s': {'cqt+KK': [], 'stft+Temperley': []}}
    for e in entries:
        y, sr = librosa.load(os.path.join(DIR, e['file']), sr=22050)
        estimates = {
            'cqt+KK': profile_key(librosa.feature.chroma_cqt(y=y, sr=sr).sum(axis=1), KK),
            'stft+Temperley': profile_key(librosa.feature.chroma_stft(y=y, sr=sr).sum(axis=1), TEMPERLEY),
        }
        group = '2 s' if e['seconds'] <= 2 else '30 s'
        for method, est in estimates.items():
            rows[group][method].append(mir_eval.key.weighted_score(e['key'], est))
        print(f"{e['name']:44} {e['key']:9} {estimates['cqt+KK']:9} {estimates['stft+Temperley']}")
    for group, methods in rows.items():
        for method, scores in methods.items():
            print(f'{group:5} {method:15} MIREX {np.mean(scores):.3f} of {len(scores)}')


if __name__ == '__main__':
    main()
