"""Renders composed pieces to audio with Debian's General MIDI soundfonts (training only).

Pieces are rendered in batches: one MIDI file holds a batch's pieces one after another, 3 s apart
(loading a 140 MB soundfont per piece would cost more than rendering it), and the rendered file
is cut back into pieces at their known start times. Each batch uses one renderer and soundfont;
each piece gets its own programs, channel volumes, reverb and chorus sends and a detune of up to
±40 cents (pitch bend on every melodic channel: the model must read keys of recordings that are
not at A = 440 Hz; the product compensates the tuning it measures, so the label does not move).
"""
import os
import subprocess
import tempfile

import mido
import numpy as np
import soundfile as sf

SR = 22050
GAP = 3.0
# (renderer, soundfont or timidity config): every General MIDI set Debian ships, both renderers.
VOICES = [
    ('fluidsynth', '/usr/share/sounds/sf2/FluidR3_GM.sf2'),
    ('fluidsynth', '/usr/share/sounds/sf2/TimGM6mb.sf2'),
    ('fluidsynth', '/usr/share/sounds/sf3/MuseScore_General.sf3'),
    ('timidity', 'soundfont /usr/share/sounds/sf2/FluidR3_GM.sf2'),
    ('timidity', 'soundfont /usr/share/sounds/sf2/TimGM6mb.sf2'),
]


def write_midi(pieces, path, rng):
    """One type-0 file at 1 ms a tick; returns each piece's start time in seconds."""
    mid = mido.MidiFile(type=0, ticks_per_beat=1000)
    events = []  # (ms, order, message): order puts setup before notes and note-offs before note-ons
    starts = []
    t = 0.5
    for p in pieces:
        starts.append(t)
        ms = int(round(t * 1000))
        bend = int(round(float(rng.uniform(-40, 40)) / 200 * 8191))
        for ch in (0, 1, 2, 3, 9):
            if ch != 9:
                events.append((ms, 0, mido.Message('program_change', channel=ch, program=p['programs'][ch])))
                events.append((ms, 0, mido.Message('pitchwheel', channel=ch, pitch=bend)))
            events.append((ms, 0, mido.Message('control_change', channel=ch, control=7, value=p['volumes'][ch])))
            events.append((ms, 0, mido.Message('control_change', channel=ch, control=91,
                                                value=int(rng.integers(0, 90)))))
            events.append((ms, 0, mido.Message('control_change', channel=ch, control=93,
                                                value=int(rng.integers(0, 60)))))
        for start, dur, note, vel, ch in p['notes']:
            on = ms + 10 + int(round(start * 1000))
            events.append((on, 2, mido.Message('note_on', channel=ch, note=note, velocity=vel)))
            events.append((on + max(20, int(round(dur * 1000))), 1, mido.Message('note_off', channel=ch, note=note)))
        end = ms + int(round((p['seconds'] + 1.0) * 1000))
        for ch in (0, 1, 2, 3, 9):
            events.append((end, 1, mido.Message('control_change', channel=ch, control=123, value=0)))
        t += p['seconds'] + 1.0 + GAP
    events.sort(key=lambda e: (e[0], e[1]))
    track = mido.MidiTrack()
    track.append(mido.MetaMessage('set_tempo', tempo=1_000_000, time=0))
    last = 0
    for ms, _, msg in events:
        track.append(msg.copy(time=ms - last))
        last = ms
    mid.tracks.append(track)
    mid.save(path)
    return starts


def render(midi, wav, voice):
    renderer, font = voice
    if renderer == 'fluidsynth':
        subprocess.run(['fluidsynth', '-ni', '-q', '-F', wav, '-T', 'wav', '-O', 'float', '-r', str(SR),
                        '-g', '0.4', font, midi], check=True, capture_output=True)
    else:
        with tempfile.NamedTemporaryFile('w', suffix='.cfg', delete=False) as cfg:
            cfg.write(font + '\n')
        try:
            subprocess.run(['timidity', '-c', cfg.name, '-Ow', '--output-mono', '-s', str(SR), '-A', '40',
                            '-idq', '-o', wav, midi], check=True, capture_output=True)
        finally:
            os.unlink(cfg.name)


def render_batch(pieces, voice, rng, workdir):
    """Renders `pieces` with `voice`; returns one float32 mono signal per piece (1 s of tail kept)."""
    midi = os.path.join(workdir, 'batch.mid')
    wav = os.path.join(workdir, 'batch.wav')
    starts = write_midi(pieces, midi, rng)
    render(midi, wav, voice)
    audio, sr = sf.read(wav, dtype='float32', always_2d=True)
    assert sr == SR, sr
    audio = audio.mean(axis=1)
    out = []
    for p, t in zip(pieces, starts):
        a = int(round(t * SR))
        b = a + int(round((p['seconds'] + 1.0) * SR))
        out.append(np.ascontiguousarray(audio[a:b]))
    os.unlink(midi)
    os.unlink(wav)
    return out
