"""Renders classical pieces and atonal material for the key's tonality gate (bench only).

Tonal: string quartets, chorales, arias and piano pieces of music21's corpus (MusicXML/Humdrum
scores, BSD-licensed toolkit; the scores are public-domain works), the first SECONDS of each
rendered with fluidsynth and a Debian General MIDI soundfont (fluid-soundfont-gm), each with the
instrument of its kind or a piano, organ or string ensemble in turn. The label is the score's own
key signature read in the mode that music21's symbolic key finder chooses; pieces where the two
disagree on the tonic (a movement that opens away from its signature) are left out.
Atonal, no tonal centre: Schoenberg's op. 19 piano pieces and Webern's op. 16 no. 2 (free
atonality and a twelve-tone canon), and note soups composed here: every pitch class equally often,
as random notes, random chromatic clusters and twelve-tone rows.

    apt-get install fluidsynth fluid-soundfont-gm
    python3 -m venv /tmp/kc && /tmp/kc/bin/pip install music21 mido
    /tmp/kc/bin/python bench/analyze-key-classical.py DIR

writes DIR/*.wav (22.05 kHz mono) and DIR/manifest.json for bench/analyze-key-classical.ts.

    /tmp/kc/bin/python bench/analyze-key-classical.py DIR --soups SEED

renders only note soups, from another seed, with a kind the first set lacks (two chromatic random
walks against each other): atonal material for a held-out check (bench/analyze-key-centre.ts).
"""
import json
import os
import subprocess
import sys

import mido
import numpy as np
from music21 import corpus

SECONDS = 30
SR = 22050
SOUNDFONT = '/usr/share/sounds/sf2/FluidR3_GM.sf2'
PIANO, ORGAN, STRINGS, QUARTET, CHOIR = 0, 19, 48, None, 52
TONAL = [
    ('mozart/k80/movement1', QUARTET),
    ('mozart/k155/movement1', QUARTET),
    ('mozart/k156/movement1', QUARTET),
    ('mozart/k458/movement1', QUARTET),
    ('mozart/k545/movement1_exposition', PIANO),
    ('haydn/opus1no1/movement1', QUARTET),
    ('haydn/opus74no1/movement1', QUARTET),
    ('beethoven/opus18no1/movement1', QUARTET),
    ('beethoven/opus18no3', QUARTET),
    ('beethoven/opus59no1/movement1', QUARTET),
    ('beethoven/opus59no3/movement3', STRINGS),
    ('schumann_robert/opus41no1/movement2', QUARTET),
    ('corelli/opus3no1/1grave', STRINGS),
    ('handel/rinaldo/Lascia_chio_pianga', STRINGS),
    ('cpebach/h186', PIANO),
    ('joplin/maple_leaf_rag', PIANO),
    ('schubert/Lindenbaum', PIANO),
    ('verdi/laDonnaEMobile', STRINGS),
    ('bach/bwv66.6', CHOIR),
    ('bach/bwv84.5', ORGAN),
    ('bach/bwv244.3', ORGAN),
    ('bach/bwv269', CHOIR),
    ('bach/bwv347', ORGAN),
    ('bach/bwv153.1', CHOIR),
    ('bach/bwv86.6', STRINGS),
    ('bach/bwv267', PIANO),
]
ATONAL = [('schoenberg/opus19/movement2', PIANO), ('schoenberg/opus19/movement6', PIANO),
          ('webern/webern_dormi_jesu_op_16_no_2', STRINGS)]
QUARTET_PROGRAMS = [40, 40, 41, 42]  # violin, violin, viola, cello
NAMES = ['C', 'C#', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'Ab', 'A', 'Bb', 'B']


def set_programs(path, program):
    """One channel per part, each to `program` (a quartet: violins, viola, cello); the file is cut
    after SECONDS + 2 s, where every note is stopped (rendering whole movements only to cut them
    would take minutes each, and a note left sounding keeps fluidsynth rendering)."""
    mid = mido.MidiFile(path)
    for t, track in enumerate(mid.tracks):
        channel = [c for c in range(16) if c != 9][t % 15]
        for msg in track:
            if not msg.is_meta and hasattr(msg, 'channel'):
                msg.channel = channel
    out = mido.MidiFile(type=0, ticks_per_beat=1000)
    track = mido.MidiTrack([mido.MetaMessage('set_tempo', tempo=1_000_000, time=0)])
    out.tracks.append(track)
    now = 0.0
    last = 0
    parts = {}
    for msg in mid:  # all tracks merged, times in seconds
        now += msg.time
        if now > SECONDS + 2:
            break
        if msg.is_meta:
            continue
        if msg.type == 'program_change':
            part = parts.setdefault(msg.channel, len(parts))
            msg = msg.copy(program=QUARTET_PROGRAMS[min(part, 3)] if program is None else program)
        tick = int(round(now * 1000))
        track.append(msg.copy(time=tick - last))
        last = tick
    for c in range(16):
        track.append(mido.Message('control_change', channel=c, control=123, value=0, time=0))
    out.save(path)


def render(mid, wav):
    raw = wav + '.raw.wav'
    subprocess.run(['fluidsynth', '-ni', '-q', '-g', '0.6', '-r', str(SR), '-F', raw, SOUNDFONT, mid], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(['ffmpeg', '-nostdin', '-v', 'error', '-y', '-i', raw, '-t', str(SECONDS), '-ac', '1',
                    '-af', 'silenceremove=start_periods=1:start_threshold=-50dB', '-c:a', 'pcm_s16le', wav],
                   check=True)
    os.remove(raw)


def label(score):
    """The key signature's tonic in the mode music21's key finder picks, or None where they disagree."""
    found = score.analyze('key')
    sigs = score.flatten().getElementsByClass('KeySignature')
    if not sigs:
        return None
    key = sigs[0].asKey(found.mode)
    if key.tonic.pitchClass != found.tonic.pitchClass:
        return None
    return f'{NAMES[key.tonic.pitchClass]} {key.mode}'


def soup(rng, kind, path):
    """A minute of notes with no tonal centre, as a MIDI file: every pitch class equally often."""
    mid = mido.MidiFile(ticks_per_beat=480)
    track = mido.MidiTrack()
    mid.tracks.append(track)
    track.append(mido.Message('program_change', channel=0, program=int(rng.choice([PIANO, STRINGS, ORGAN]))))
    events = []
    t = 0.0
    row = rng.permutation(12)
    walk = [int(rng.integers(48, 60)), int(rng.integers(64, 76))] if kind == 'walk' else []
    while t < SECONDS:
        if kind == 'random':
            notes = [int(rng.integers(36, 90))]
        elif kind == 'cluster':
            low = int(rng.integers(40, 72))
            notes = [low + i for i in range(int(rng.integers(4, 9)))]
        elif kind == 'walk':  # two voices, each a chromatic random walk
            notes = [int(np.clip(w + rng.integers(-3, 4), 36, 90)) for w in walk]
            walk = notes
        else:  # a twelve-tone row, transposed and in any octave
            shift = int(rng.integers(0, 12))
            notes = [48 + (int(p) + shift) % 12 + 12 * int(rng.integers(0, 3)) for p in row[:3]]
            row = np.roll(row, -3)
        dur = float(rng.choice([0.25, 0.5, 0.75, 1.0]))
        for n in notes:
            events.append((t, 1, n))
            events.append((t + dur, 0, n))
        t += dur
    events.sort()
    now = 0
    for time, on, note in events:
        tick = int(round(time * 960))
        track.append(mido.Message('note_on' if on else 'note_off', note=note, velocity=80 if on else 0,
                                  time=tick - now))
        now = tick
    mid.save(path)


def soups(out, seed, kinds):
    manifest = []
    rng = np.random.default_rng(seed)
    for kind in kinds:
        for k in range(3):
            name = f'soup-{kind}-{k}' if seed == 44 else f'soup{seed}-{kind}-{k}'
            mid = os.path.join(out, name + '.mid')
            soup(rng, kind, mid)
            render(mid, os.path.join(out, name + '.wav'))
            os.remove(mid)
            manifest.append({'file': name + '.wav', 'kind': 'atonal', 'key': None})
    return manifest


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if '--soups' in sys.argv:
        manifest = soups(out, int(sys.argv[sys.argv.index('--soups') + 1]), ['random', 'cluster', 'row', 'walk'])
        with open(os.path.join(out, 'manifest.json'), 'w') as f:
            json.dump(manifest, f, indent=1)
        return
    manifest = []
    programs = [PIANO, ORGAN, STRINGS]
    for i, (work, program) in enumerate(TONAL + ATONAL):
        score = corpus.parse(work)
        tonal = i < len(TONAL)
        key = label(score) if tonal else None
        if tonal and key is None:
            print(f'skipped {work}: opens away from its key signature')
            continue
        name = work.replace('/', '-')
        mid = os.path.join(out, name + '.mid')
        try:  # the opening bars are enough for SECONDS
            score.measures(0, 40).write('midi', fp=mid)
        except Exception as e:  # noqa: BLE001 (music21 raises plain exceptions on odd repeat marks)
            print(f'skipped {work}: {e}')
            continue
        set_programs(mid, program if program is not None or len(score.parts) == 4 else programs[i % 3])
        render(mid, os.path.join(out, name + '.wav'))
        os.remove(mid)
        manifest.append({'file': name + '.wav', 'kind': 'classical' if tonal else 'atonal', 'key': key})
        print(name, key)
    manifest += soups(out, 44, ['random', 'cluster', 'row'])
    with open(os.path.join(out, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)


main()
