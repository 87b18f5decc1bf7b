#!/usr/bin/env python3
"""Scores beat, downbeat and chord estimates with mir_eval (bench only). Reads JSON on stdin:
    {"set": NAME, "items": [{"name", "meter", "ref": {beats, downbeats, bpm, chords?},
                             "est": {beats, downbeats, beatsPerBar, bpm, chords}}]}
Beats: mir_eval.beat.f_measure (70 ms window; mir_eval trims beats before 5 s from both sides) at
the annotated level; the best of it and its halves (every other beat, either phase: a tracker at
half the tempo), the issue's "annotated or half level"; and the best of those and the double (a beat
between each two: a tracker at twice the tempo). Downbeats: the same F-measure on the
downbeats alone. Spacing: the median estimated beat period against the label's, within 4 %
(Acc1) and up to x2, 1/2, x3/2, x2/3 (the metrical levels). Chords: mir_eval.chord.majmin over
duration (the reference's "X" segments are left out), and the share of time with the root right.
"""
import json
import sys

import mir_eval
import numpy as np


def f(ref, est):
    ref, est = np.array(ref, float), np.array(est, float)
    if len(mir_eval.beat.trim_beats(ref)) < 2:
        return None
    return float(mir_eval.beat.f_measure(ref, est, 0.07))


def levels(ref, double=True):
    """The annotated beats, every other one (either phase: a tracker at half the tempo) and, with
    `double`, the beats with one between each two (a tracker at twice the tempo)."""
    ref = np.array(ref, float)
    mids = (ref[:-1] + ref[1:]) / 2
    return [ref, ref[::2], ref[1::2]] + ([np.sort(np.concatenate([ref, mids]))] if double else [])


def chord_label(name):
    if name in ('N', 'X'):
        return name
    return name[:-1] + ':min' if name.endswith('m') else name + ':maj'


def majmin(ref, est):
    ref_iv = np.array([[s, e] for s, e, _ in ref])
    ref_lab = [chord_label(c) for _, _, c in ref]
    est_iv = np.array([[c['start'], c['end']] for c in est]) if est else np.array([[0.0, ref_iv[-1, 1]]])
    est_lab = [chord_label(c['chord']) for c in est] if est else ['N']
    est_iv, est_lab = mir_eval.util.adjust_intervals(est_iv, est_lab, ref_iv.min(), ref_iv.max(), 'N', 'N')
    iv, r, e = mir_eval.util.merge_labeled_intervals(ref_iv, ref_lab, est_iv, est_lab)
    dur = mir_eval.util.intervals_to_durations(iv)
    return (float(mir_eval.chord.weighted_accuracy(mir_eval.chord.majmin(r, e), dur)),
            float(mir_eval.chord.weighted_accuracy(mir_eval.chord.root(r, e), dur)))


def spacing_ok(ref_bpm, est_beats, factors):
    if len(est_beats) < 3:
        return False
    bpm = 60 / float(np.median(np.diff(est_beats)))
    return any(abs(bpm / (ref_bpm * k) - 1) <= 0.04 for k in factors)


def main():
    data = json.load(sys.stdin)
    rows = []
    for it in data['items']:
        ref, est = it['ref'], it['est']
        row = {'name': it['name'], 'meter': it.get('meter')}
        if ref.get('beats'):
            row['f'] = f(ref['beats'], est['beats'])
            row['fHalf'] = max((f(r, est['beats']) or 0) for r in levels(ref['beats'], double=False))
            row['fAny'] = max((f(r, est['beats']) or 0) for r in levels(ref['beats']))
            row['fDown'] = f(ref['downbeats'], est['downbeats']) if len(ref['downbeats']) > 2 else None
            # downbeats where the beats themselves are right: the bar phase's own error
            row['fDownOk'] = row['fDown'] if row['f'] is not None and row['f'] >= 0.8 else None
            row['acc1'] = spacing_ok(ref['bpm'], est['beats'], (1,))
            row['acc2'] = spacing_ok(ref['bpm'], est['beats'], (1, 2, 0.5, 1.5, 2 / 3))
            row['bpb'] = est.get('beatsPerBar')
        if ref.get('chords'):
            row['majmin'], row['root'] = majmin(ref['chords'], est['chords'])
        rows.append(row)
    mean = lambda k, rs: float(np.mean([r[k] for r in rs if r.get(k) is not None])) if any(r.get(k) is not None for r in rs) else float('nan')  # noqa: E731
    groups = {'all': rows}
    for r in rows:
        if r.get('meter'):
            groups.setdefault(f"meter {r['meter']}", []).append(r)
    print(f"mir_eval {mir_eval.__version__}, set {data['set']}")
    print(f"{'group':<14} {'n':>3} {'F beat':>7} {'F +half':>7} {'F +dbl':>7} {'F down':>7} {'(F>=.8)':>7} "
          f"{'Acc1':>6} {'Acc2':>6} {'majmin':>7} {'root':>6}")
    for g, rs in groups.items():
        print(f"{g:<14} {len(rs):>3} {mean('f', rs):>7.3f} {mean('fHalf', rs):>7.3f} {mean('fAny', rs):>7.3f} "
              f"{mean('fDown', rs):>7.3f} {mean('fDownOk', rs):>7.3f} "
              f"{mean('acc1', rs):>6.3f} {mean('acc2', rs):>6.3f} {mean('majmin', rs):>7.3f} {mean('root', rs):>6.3f}")
    print('F beat: annotated level; F +half: also every other beat (a tracker at half tempo); F +dbl: also a beat '
          'between each two (twice the tempo); F down (F>=.8): downbeats on pieces whose beats score F >= 0.8')
    if '--list' in sys.argv:
        for r in rows:
            print('  ' + ' '.join(f'{k}={v:.3f}' if isinstance(v, float) else f'{k}={v}' for k, v in r.items()))


if __name__ == '__main__':
    main()
