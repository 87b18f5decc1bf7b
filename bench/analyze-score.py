#!/usr/bin/env python3
"""Scores tempo and key estimates with mir_eval (bench only). Reads JSON on stdin:
    {"sets": {"new": [{"name", "tempoRef", "tempoEst", "keyRef", "keyEst"}...], "old": [...]}}
Tempo: mir_eval.tempo.detection with both reference tempi set to the single label (weight 0.5) and
tol=0.04, so its p-score is Acc1 (within 4 %); Acc2 also accepts the estimate at x2, 1/2, x3, 1/3
(Gouyon et al. 2006). Key: mean of mir_eval.key.weighted_score (MIREX: 1 same, .5 fifth, .3 relative,
.2 parallel); a null estimate counts as 'X' (unknown, scores 0).
"""
import json
import sys

import mir_eval
import numpy as np


def tempo_ok(ref, est, factor=1.0):
    if est is None:
        return 0.0
    p, _, _ = mir_eval.tempo.detection(np.array([ref, ref]), 0.5, np.array([est * factor] * 2), tol=0.04)
    return float(p)


def main():
    data = json.load(sys.stdin)
    print(f"mir_eval {mir_eval.__version__}")
    print(f"{'set':<5} {'tempo n':>7} {'Acc1 (p-score)':>15} {'Acc2':>6}   {'key n':>5} {'MIREX':>6} {'exact':>6} {'2 s n':>5} {'2 s MIREX':>9}")
    for name, items in data['sets'].items():
        t = [i for i in items if i.get('tempoRef')]
        acc1 = np.mean([tempo_ok(i['tempoRef'], i['tempoEst']) for i in t]) if t else float('nan')
        acc2 = np.mean([max(tempo_ok(i['tempoRef'], i['tempoEst'], f) for f in (1, 2, 0.5, 3, 1 / 3)) for i in t]) if t else float('nan')
        k = [i for i in items if i.get('keyRef')]
        scores = [mir_eval.key.weighted_score(i['keyRef'], i['keyEst'] or 'X') for i in k]
        short = [s for s, i in zip(scores, k) if i.get('short')]
        print(f"{name:<5} {len(t):>7} {acc1:>15.3f} {acc2:>6.3f}   {len(k):>5} {np.mean(scores):>6.3f} "
              f"{np.mean([s == 1 for s in scores]):>6.3f} {len(short):>5} {np.mean(short) if short else float('nan'):>9.3f}")


if __name__ == '__main__':
    main()
