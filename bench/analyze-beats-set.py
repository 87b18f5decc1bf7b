#!/usr/bin/env python3
"""Builds labelled beat, downbeat and chord sets from Debian packages (bench only, never product).

    python3 bench/analyze-beats-set.py DIR     # needs apt-get, fluidsynth + fluid-soundfont-gm, abcmidi, mma, mido
    node bin/run-ts.mjs bench/analyze-beats.ts --set DIR/test --python PY    # scores one set

Every label is exact: it is read from the score the audio was rendered from, never from audio.
  * MIDI files from game packages, rendered by fluidsynth with FluidR3 (Debian's General MIDI font):
    beats and downbeats from the file's tempo map and time signatures (a beat is the signature's
    denominator; 6/8, 9/8, 12/8 beat in dotted quarters), kept from the first note to the last
    note's end. `dev` (tuning): freedink-data and planetblupi-music-midi; `test` (held out):
    openttd-openmsx, 31 pieces by several composers (blues, boogie, waltzes, marches, ballads).
  * `rubato` (and `rubato-dev`): the test (and dev) pieces again with a tempo that breathes: every beat gets its own tempo,
    the file's times 1 + 0.12 sin(2 pi beat / 16) + 0.06 sin(2 pi beat / 7), and a ritardando to
    0.75 of the tempo over each piece's last 8 beats; beats follow the new tempo map.
  * `chords`: the ABC tunes of abcmidi's and abcm2ps's examples that carry chord symbols, played
    by abc2midi with its accompaniment (bass and chord on every beat, as the ABC's chord symbols
    say); the label is the chord the accompaniment's notes spell (root + major or minor triad:
    "C", "Am"; a seventh keeps its triad; dim/aug/sus become "X", which mir_eval's majmin leaves
    out), from one chord onset to the next. Split by tune into `chords-dev` and `chords-test`.
  * `meter` (held out, never tuned on): 3/4 and swing from MMA (Musical MIDI Accompaniment, a
    Debian package), which plays a chord chart in a named style: six waltz grooves (Waltz,
    JazzWaltz, CountryWaltz, FrenchWaltz, BroadwayWaltz, ArpeggioWaltz) on a 16-bar waltz chart and
    six swing and shuffle grooves (Swing, EasySwing, CountrySwing, FastSwing, Blues, CountryBlues)
    on a 12-bar blues, at 96-200 BPM; beats and downbeats from MMA's MIDI file as above, chords from
    the chart, one a bar (sevenths keep their triad).
Each entry of DIR/<set>/manifest.json: name, file, origin, seconds, beats, downbeats, beatsPerBar
(the first bar's), meter ("4/4"...), bpm (median beat spacing) and, for chords, chords
[[start, end, label], ...].
"""
import glob
import json
import math
import os
import subprocess
import sys

import mido

DIR = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'beats-set')
SF2 = '/usr/share/sounds/sf2/FluidR3_GM.sf2'
SR = 22050
MAX_SECONDS = 90
PACKAGES = ['freedink-data', 'planetblupi-music-midi', 'openttd-openmsx', 'abcmidi', 'abcm2ps']
NAMES = ['C', 'C#', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'Ab', 'A', 'Bb', 'B']


def sh(*args, cwd=None):
    return subprocess.run(args, check=True, capture_output=True, text=True, cwd=cwd).stdout


def fetch_debs():
    debs = os.path.join(DIR, 'debs')
    share = os.path.join(debs, 'x')
    os.makedirs(share, exist_ok=True)
    for pkg in PACKAGES:
        if not glob.glob(os.path.join(debs, pkg + '_*.deb')):
            sh('apt-get', 'download', pkg, cwd=debs)
        out = os.path.join(share, pkg)
        if not os.path.isdir(out):
            deb = glob.glob(os.path.join(debs, pkg + '_*.deb'))[0]
            sh('dpkg-deb', '-x', deb, out)
    return share


def events(mid):
    """(tick, kind, value) of tempo, signature and note events over all tracks, sorted by tick."""
    out = []
    for tr in mid.tracks:
        t = 0
        for m in tr:
            t += m.time
            if m.type == 'set_tempo':
                out.append((t, 'tempo', m.tempo))
            elif m.type == 'time_signature':
                out.append((t, 'sig', (m.numerator, m.denominator)))
            elif m.type == 'note_on' and m.velocity > 0:
                out.append((t, 'on', (m.channel, m.note)))
            elif m.type == 'note_off' or (m.type == 'note_on' and m.velocity == 0):
                out.append((t, 'off', (m.channel, m.note)))
    return sorted(out, key=lambda e: e[0])


def tick_to_seconds(mid, evs):
    tempos = [(0, 500000)] + [(t, v) for t, k, v in evs if k == 'tempo']
    tempos.sort(key=lambda x: x[0])
    marks = []  # (tick, seconds, tempo) at each change
    sec, last_tick, tempo = 0.0, 0, 500000
    for t, v in tempos:
        sec += (t - last_tick) * tempo / 1e6 / mid.ticks_per_beat
        marks.append((t, sec, v))
        last_tick, tempo = t, v

    def conv(tick):
        lo = 0
        for i, (t, _, _) in enumerate(marks):
            if t <= tick:
                lo = i
        t0, s0, tp = marks[lo]
        return s0 + (tick - t0) * tp / 1e6 / mid.ticks_per_beat

    return conv


def grid(mid, evs):
    """Beat and downbeat ticks from the time signatures (changes take effect at the next bar line)."""
    tpq = mid.ticks_per_beat
    sigs = [(t, v) for t, k, v in evs if k == 'sig'] or [(0, (4, 4))]
    if sigs[0][0] > 0:
        sigs.insert(0, (0, (4, 4)))
    end = max(t for t, k, _ in evs if k in ('on', 'off'))
    beats, downs, meters = [], [], []
    tick, si = 0, 0
    while tick <= end:
        while si + 1 < len(sigs) and sigs[si + 1][0] <= tick:
            si += 1
        num, den = sigs[si][1]
        step = tpq * 4 / den
        per_bar = num
        if den == 8 and num % 3 == 0 and num > 3:
            step, per_bar = step * 3, num // 3
        downs.append(tick)
        meters.append(f'{num}/{den}')
        for b in range(per_bar):
            beats.append(tick + b * step)
        tick += per_bar * step
    return beats, downs, meters


def rewrite_events(mid_path, out_path, place):
    """The MIDI file with each event at `place(tick, message)` (an absolute tick), or left out where that is None."""
    mid = mido.MidiFile(mid_path)
    for tr in mid.tracks:
        t, kept = 0, []
        for m in tr:
            t += m.time
            at = place(t, m)
            if at is not None:
                kept.append((at, m))
        tr.clear()
        last = 0
        for t, m in kept:
            tr.append(m.copy(time=t - last))
            last = t
    mid.save(out_path)


def truncate(mid_path, out_path, last_tick):
    """The MIDI file without its events after `last_tick` (fluidsynth renders whole files)."""
    def place(t, m):
        ends = m.type == 'end_of_track' or m.type == 'note_off' or (m.type == 'note_on' and m.velocity == 0)
        return min(t, last_tick) if t <= last_tick or ends else None
    rewrite_events(mid_path, out_path, place)


def render(mid_path, out, seconds, last_tick):
    raw, cut_mid = out + '.raw.wav', out + '.cut.mid'
    truncate(mid_path, cut_mid, last_tick)
    sh('fluidsynth', '-ni', '-g', '0.5', '-r', str(SR), '-F', raw, SF2, cut_mid)
    sh('ffmpeg', '-v', 'error', '-y', '-i', raw, '-t', str(seconds), '-ac', '1', '-ar', str(SR), out)
    os.remove(raw)
    os.remove(cut_mid)


def label_midi(mid_path, name, origin, set_dir):
    mid = mido.MidiFile(mid_path)
    evs = events(mid)
    notes = [t for t, k, _ in evs if k == 'on']
    if not notes:
        return None
    sec = tick_to_seconds(mid, evs)
    beats, downs, meters = grid(mid, evs)
    first = sec(min(notes))
    end_tick = max(t for t, k, _ in evs if k in ('on', 'off'))
    last = min(MAX_SECONDS, sec(end_tick))
    last_tick = next((t for t, k, _ in evs if k in ('on', 'off') and sec(t) > last + 1), end_tick)
    if last - first < 15:
        return None
    keep = lambda s: first - 0.05 <= s <= last  # noqa: E731
    b = [round(sec(t), 4) for t in beats if keep(sec(t))]
    d = [round(sec(t), 4) for t in downs if keep(sec(t))]
    os.makedirs(os.path.join(set_dir, 'clips'), exist_ok=True)
    out = os.path.join(set_dir, 'clips', name + '.wav')
    if not os.path.exists(out):
        render(mid_path, out, last + 1, last_tick)
    rendered = float(sh('ffprobe', '-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', out))
    if rendered < last - 1:  # fluidsynth renders some files as silence (freedink 104.mid)
        print('not rendered:', name, rendered, flush=True)
        return None
    # Only a score played to its grid labels its audio: most note onsets must sit within 30 ms of a
    # sixteenth or an eighth-note triplet of the tempo map (a file recorded without a click does not).
    onsets = [sec(t) for t in notes if first <= sec(t) <= last]
    subdivisions = sorted({round(x + (y - x) * k / m, 4) for x, y in zip(b, b[1:]) for m in (4, 3) for k in range(m)})
    if on_grid(onsets, subdivisions) < 0.8:
        print('off the grid:', name, flush=True)
        return None
    spacing = sorted(y - x for x, y in zip(b, b[1:]))
    meter = meters[0]
    return dict(name=name, file=f'clips/{name}.wav', origin=origin, seconds=round(last + 1, 2), beats=b,
                downbeats=d, beatsPerBar=len([x for x in b if x < d[1]]) - len([x for x in b if x < d[0]])
                if len(d) > 1 else None, meter=meter, meters=sorted(set(meters)),
                tempoChanges=len({v for _, k, v in evs if k == 'tempo'}),
                bpm=round(60 / spacing[len(spacing) // 2], 2))


def on_grid(onsets, grid_times):
    import bisect
    hits = 0
    for o in onsets:
        i = bisect.bisect_left(grid_times, o)
        near = [abs(o - grid_times[j]) for j in (i - 1, i) if 0 <= j < len(grid_times)]
        hits += bool(near) and min(near) <= 0.03
    return hits / max(1, len(onsets))


def rubato(mid_path, out_path):
    """The piece with a tempo of its own on every beat (see the module's docstring)."""
    mid = mido.MidiFile(mid_path)
    evs = events(mid)
    tpq = mid.ticks_per_beat
    tempos = [(0, 500000)] + sorted((t, v) for t, k, v in evs if k == 'tempo')
    end = max(t for t, k, _ in evs if k in ('on', 'off'))
    n = int(end // tpq) + 1
    new = []
    for b in range(n):
        tick = b * tpq
        base = [v for t, v in tempos if t <= tick][-1]
        factor = 1 + 0.12 * math.sin(2 * math.pi * b / 16) + 0.06 * math.sin(2 * math.pi * b / 7)
        if b >= n - 8:
            factor *= 1 - 0.25 * (b - (n - 8)) / 8
        new.append((tick, int(base / factor)))
    for tr in mid.tracks:  # drop the old tempo events, keep every other event's absolute time
        t, kept = 0, []
        for m in tr:
            t += m.time
            if m.type != 'set_tempo':
                kept.append((t, m))
        if tr is mid.tracks[0]:
            kept += [(tick, mido.MetaMessage('set_tempo', tempo=v)) for tick, v in new]
            kept.sort(key=lambda x: (x[0], x[1].type != 'set_tempo'))
        tr.clear()
        last = 0
        for t, m in kept:
            tr.append(m.copy(time=t - last))
            last = t
    mid.save(out_path)


def chord_name(pcs):
    """The triad the accompaniment's pitch classes spell: 'C', 'Am', or 'X' (none major/minor)."""
    for root in sorted(pcs):
        if (root + 7) % 12 in pcs:
            if (root + 4) % 12 in pcs:
                return NAMES[root]
            if (root + 3) % 12 in pcs:
                return NAMES[root] + 'm'
    return 'X'


def abc_chords(mid_path, seconds):
    """Chord labels from abc2midi's accompaniment channel: each chord onset's pitch classes."""
    mid = mido.MidiFile(mid_path)
    evs = events(mid)
    sec = tick_to_seconds(mid, evs)
    chans = {}
    for t, k, v in evs:
        if k == 'on':
            chans.setdefault(v[0], []).append((t, v[1]))
    # abc2midi plays the melody on channel 0, the accompaniment's bass and chord on later channels
    acc = sorted((t, n) for ch, ns in chans.items() if ch != 0 for t, n in ns)
    if not acc:
        return None
    onsets = {}
    for t, n in acc:
        onsets.setdefault(t, set()).add(n % 12)
    # A bass note alone (gchord's "f" on beat one) does not change the chord: merge it into the next
    # chord onset.
    labels, ticks = [], sorted(onsets)
    for i, t in enumerate(ticks):
        pcs = onsets[t]
        if len(pcs) < 3:
            continue
        name = chord_name(pcs)
        start = sec(t)
        # the chord starts with its bass note when that sounded just before
        if i > 0 and len(onsets[ticks[i - 1]]) < 3 and (not labels or labels[-1][2] != name):
            start = sec(ticks[i - 1])
        if labels and labels[-1][2] == name:
            continue
        if labels:
            labels[-1][1] = round(start, 4)
        labels.append([round(start, 4), None, name])
    if not labels:
        return None
    labels[-1][1] = round(min(seconds, sec(max(t for t, k, _ in evs if k == 'off'))), 4)
    return [lab for lab in labels if lab[0] < seconds]


def split_abc(path, out_dir):
    """Each X: tune of an ABC file into its own file, with the accompaniment on."""
    text = open(path, encoding='latin-1').read()
    tunes = []
    for chunk in text.split('\nX:')[1:] if not text.startswith('X:') else ('\n' + text).split('\nX:')[1:]:
        body = 'X:' + chunk
        if body.count('"') < 8:
            continue
        tunes.append(body)
    files = []
    for i, body in enumerate(tunes):
        base = os.path.basename(path).rsplit('.', 1)[0]
        f = os.path.join(out_dir, f'{base}-{i + 1}.abc')
        with open(f, 'w') as fh:
            fh.write(body)
        files.append(f)
    return files


def build_midi_sets(share):
    sets = {'dev': [], 'test': [], 'rubato': [], 'rubato-dev': []}
    sources = {
        'dev': sorted(glob.glob(os.path.join(share, 'freedink-data', '**', '*.mid'), recursive=True))
        + sorted(glob.glob(os.path.join(share, 'planetblupi-music-midi', '**', '*.mid'), recursive=True)),
        'test': sorted(glob.glob(os.path.join(share, 'openttd-openmsx', '**', '*.mid'), recursive=True)),
    }
    for split, files in sources.items():
        for f in files:
            pkg = os.path.relpath(f, share).split(os.sep)[0].split('-')[0]
            name = f'{pkg}-' + os.path.basename(f).rsplit('.', 1)[0].lower().replace('_', '-')
            e = label_midi(f, name, os.path.relpath(f, share), os.path.join(DIR, split))
            if e:
                sets[split].append(e)
                print(split, json.dumps({k: e[k] for k in ('name', 'meter', 'bpm', 'tempoChanges')}), flush=True)
            rset = 'rubato' if split == 'test' else 'rubato-dev'
            os.makedirs(os.path.join(DIR, rset, 'midi'), exist_ok=True)
            rf = os.path.join(DIR, rset, 'midi', name + '.mid')
            rubato(f, rf)
            e = label_midi(rf, name + '-rubato', os.path.relpath(f, share), os.path.join(DIR, rset))
            if e:
                sets[rset].append(e)
    return sets


def build_chord_sets(share):
    work = os.path.join(DIR, 'abc')
    os.makedirs(work, exist_ok=True)
    tunes = []
    for f in sorted(glob.glob(os.path.join(share, 'abc*', '**', '*.abc'), recursive=True)):
        tunes += split_abc(f, work)
    sets = {'chords-dev': [], 'chords-test': []}
    for i, abc in enumerate(tunes):
        name = os.path.basename(abc).rsplit('.', 1)[0]
        mid = abc.rsplit('.', 1)[0] + '.mid'
        try:
            sh('abc2midi', abc, '-o', mid)
        except subprocess.CalledProcessError:
            continue
        if not os.path.exists(mid):
            continue
        split = 'chords-dev' if i % 2 == 0 else 'chords-test'
        e = label_midi(mid, name, os.path.relpath(abc, DIR), os.path.join(DIR, split))
        if not e:
            continue
        chords = abc_chords(mid, e['seconds'])
        if not chords or len({c[2] for c in chords}) < 2:
            continue
        e['chords'] = chords
        sets[split].append(e)
        print(split, name, len(chords), 'chords', flush=True)
    return sets


WALTZ_CHART = 'C Am Dm G7 C Am F G7 E7 Am D7 G7 C F G7 C'.split()
BLUES_CHART = 'F7 Bb7 F7 F7 Bb7 Bb7 F7 F7 C7 Bb7 F7 C7'.split()
MMA_PIECES = [(g, 3, t, WALTZ_CHART) for g, t in [('Waltz', 96), ('JazzWaltz', 150), ('CountryWaltz', 120),
                                                    ('FrenchWaltz', 170), ('BroadwayWaltz', 132), ('ArpeggioWaltz', 108)]] + \
             [(g, 4, t, BLUES_CHART) for g, t in [('Swing', 132), ('EasySwing', 100), ('CountrySwing', 160),
                                                    ('FastSwing', 200), ('Blues', 110), ('CountryBlues', 120)]]


def triad(symbol):
    """'G7' -> 'G', 'Am' -> 'Am', 'Dm7' -> 'Dm', 'Bb7' -> 'Bb': the chart symbol's triad."""
    root = symbol[:2] if len(symbol) > 1 and symbol[1] in '#b' else symbol[:1]
    rest = symbol[len(root):]
    return root + ('m' if rest.startswith('m') and not rest.startswith('maj') else '')


def build_mma_set():
    work = os.path.join(DIR, 'mma')
    os.makedirs(work, exist_ok=True)
    entries = []
    for groove, beats, tempo, chart in MMA_PIECES:
        name = f'mma-{groove.lower()}-{tempo}'
        src = os.path.join(work, name + '.mma')
        bars = chart * 2
        with open(src, 'w') as f:
            f.write(f'Tempo {tempo}\nTime {beats}\nGroove {groove}\n')
            f.writelines(f'{i + 1} {c}\n' for i, c in enumerate(bars))
        sh('mma', src, cwd=work)
        e = label_midi(src[:-4] + '.mid', name, os.path.relpath(src, DIR), os.path.join(DIR, 'meter'))
        if not e:
            continue
        bar = beats * 60 / tempo
        e['chords'] = [[round(i * bar, 4), round(min((i + 1) * bar, e['seconds']), 4), triad(c)]
                       for i, c in enumerate(bars) if i * bar < e['seconds']]
        entries.append(e)
        print('meter', name, e['meter'], e['bpm'], flush=True)
    return {'meter': entries}


def main():
    share = fetch_debs()
    sets = {**build_midi_sets(share), **build_chord_sets(share), **build_mma_set()}
    for split, entries in sets.items():
        os.makedirs(os.path.join(DIR, split), exist_ok=True)
        with open(os.path.join(DIR, split, 'manifest.json'), 'w') as f:
            json.dump(entries, f, indent=1)
        print(split, len(entries), 'pieces')


if __name__ == '__main__':
    main()
