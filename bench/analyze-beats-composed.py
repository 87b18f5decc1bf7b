#!/usr/bin/env python3
"""A beat set from the rendered tempo development set (bench only, never product):

    python3 bench/analyze-tempo-devset.py /tmp/tempo-dev              # 150 composed pieces, 30 s each
    python3 bench/analyze-beats-composed.py /tmp/tempo-dev /tmp/beats/composed
    node bin/run-ts.mjs bench/analyze-beats.ts --set /tmp/beats/composed --python PY

tools/key-model/compose.py writes each piece on a steady grid from time 0: the beat (a quarter note,
a dotted quarter in the 12/8-like feel) every 60 / bpm s, with comping (block, stabs, arpeggios,
strums, off-beat chords, Alberti), bass lines (root, fifths, octaves, walking, pedal, syncopated),
melodies and, on half of them, drums, with up to 15 ms of timing jitter. The labels are that grid.
Only the pieces fluidsynth rendered are kept (the first three of every five batches of 30: pieces
0-89): timidity's renders (90-149) start at another offset than render.py cuts them at (the beats
found there sit 0.1-0.45 of a beat off the grid on pieces whose spacing is right), which does not
matter to a tempo label and ruins a beat label. Fluidsynth's are 5-40 ms late against the grid
(the instruments' attacks), inside mir_eval's 70 ms. Downbeats: every `meter` beats (4 for the
12/8-like feel, whose manifest does not say 2 or 4). Never used to choose a beat setting before
issue 43's third session, which checked the low-band phase check on it after choosing it.
"""
import json
import os
import sys

src, out = (os.path.abspath(a) for a in sys.argv[1:3])
BATCH, FLUIDSYNTH_BATCHES, VOICES = 30, 3, 5
os.makedirs(out, exist_ok=True)
link = os.path.join(out, 'clips')
if not os.path.exists(link):
    os.symlink(os.path.join(src, 'clips'), link)
entries = []
for i, e in enumerate(json.load(open(os.path.join(src, 'manifest.json')))):
    if (i // BATCH) % VOICES >= FLUIDSYNTH_BATCHES:
        continue
    period = 60 / e['tempo']
    per_bar = 4 if e['meter'] == '12/8' else int(e['meter'].split('/')[0])
    beats = [round(k * period, 4) for k in range(int((e['seconds'] - 1) / period) + 1)]
    entries.append(dict(name=e['name'] + ('-drums' if e['drums'] else ''), file=e['file'], meter=e['meter'],
                        beats=beats, downbeats=beats[::per_bar], beatsPerBar=per_bar, bpm=e['tempo']))
with open(os.path.join(out, 'manifest.json'), 'w') as f:
    json.dump(entries, f, indent=1)
print(len(entries), 'pieces in', out)
