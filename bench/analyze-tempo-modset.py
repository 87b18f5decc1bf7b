#!/usr/bin/env python3
"""Builds a second tempo development set, of real music (bench only, never product): the tracker
modules of five Debian game packages that the real-music test set (bench/analyze-realset.py) does
not use: pingus-data, ri-li-data, pachi-data, bugsquish and solarwolf (IT, S3M, XM and ProTracker).

    python3 bench/analyze-tempo-modset.py DIR     # then: node bin/run-ts.mjs bench/analyze-tempo.ts --set DIR

Tempo rules are chosen on the rendered set (bench/analyze-tempo-devset.py) and on this one together,
so the real-music set stays a test. A module's label is its initial speed and tempo (row time =
speed * 2.5 / tempo s, 4 rows per beat, or the IT file's rows-per-beat highlight), exactly as the
real-music set labels its modules, and kept only where librosa's beat tracker agrees at some
metrical level. Each module gives one 30 s excerpt from a quarter of the way in (or its start when
it is shorter than 45 s).
"""
import glob
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('realset', os.path.join(HERE, 'analyze-realset.py'))
realset = importlib.util.module_from_spec(spec)
spec.loader.exec_module(realset)

DIR = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'tempo-modset')
realset.DIR = DIR  # realset.cut writes under DIR/clips
PACKAGES = ['pingus-data', 'ri-li-data', 'pachi-data', 'bugsquish', 'solarwolf']
EXTENSIONS = ('.it', '.s3m', '.xm', '.mod')


def module_tempo(path):
    if path.lower().endswith('.s3m'):
        b = open(path, 'rb').read(0x40)
        speed, bpm = b[0x31] or 6, b[0x32] or 125
        return 24 * bpm / (4 * speed)
    return realset.module_tempo(path)


def main():
    share = realset.fetch_debs(PACKAGES)
    mods = sorted(p for p in glob.glob(os.path.join(share, '**', '*'), recursive=True)
                  if p.endswith(EXTENSIONS))  # case-sensitive: ri-li's language.It is not a module
    manifest = []
    for mod in mods:
        game = os.path.relpath(mod, share).split(os.sep)
        game = game[1] if game[0] == 'games' else game[0]
        name = f'{game}-' + os.path.basename(mod).rsplit('.', 1)[0].lower().replace('_', '-')
        dur = realset.duration(mod)
        start = round(0.25 * dur, 1) if dur > 45 else 0
        seconds = min(30, dur - start)
        if seconds < 10:
            continue
        clip = realset.cut(mod, name, start, seconds)
        t1, _, _, _ = realset.librosa_labels(clip)
        mt = module_tempo(mod)
        tempo = round(mt, 2) if realset.relates(t1, mt) else None
        entry = dict(name=name, origin=os.path.relpath(mod, os.path.dirname(os.path.dirname(share))), start=start,
                     seconds=round(seconds, 2), file=f'clips/{name}.wav', tempo=tempo,
                     tempoMethod='module' if tempo else None,
                     note=f'module tempo {mt:.2f}, librosa beat_track {t1:.1f}')
        manifest.append(entry)
        print(json.dumps(entry), flush=True)
    with open(os.path.join(DIR, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)


if __name__ == '__main__':
    main()
