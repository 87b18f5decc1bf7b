"""Trains the key model on rendered pieces and exports it to ONNX (training only):

    python tools/key-model/train.py DATA_DIR OUT.onnx [--steps N]

DATA_DIR holds train, modal and val features (features.ts); train and modal are trained on together. Every batch takes one crop length (2 s to 30 s,
short crops as often as long ones) and a random pitch shift of the semitone spectrogram with the
label moved (-6..+5 semitones, zeros shifted in at the edge). Atonal pieces train towards the
uniform distribution, so the winning probability is low on music with no clear key. Deterministic:
one thread, fixed seeds, deterministic algorithms; the same data and versions give the same bytes.
Model selection uses only the rendered validation split, never real music.
"""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn.functional as F
from model import SEMITONES, KeyNet

SEED = 33
CROPS = (10, 16, 27, 54, 110, 160)  # frames at 5.38 a second: 2, 3, 5, 10, 20, 30 s


def load(data, split):
    index = json.load(open(os.path.join(data, f'{split}.features.json')))
    feats = np.fromfile(os.path.join(data, f'{split}.features.f32'), dtype=np.float32).reshape(-1, SEMITONES)
    return index, feats


def target(p, shift=0, smooth=0.05):
    t = np.full(24, 1 / 24, dtype=np.float32)
    if p['mode'] is None:
        return t
    t *= smooth
    t[(p['tonic'] + shift) % 12 + (12 if p['mode'] == 'minor' else 0)] += 1 - smooth
    return t


def shifted(x, k):
    """Moves the spectrogram k semitones up (k > 0) or down, zeros shifted in."""
    out = np.zeros_like(x)
    if k >= 0:
        out[:, k:] = x[:, :SEMITONES - k]
    else:
        out[:, :k] = x[:, -k:]
    return out


def batch(rng, index, feats, size):
    length = int(rng.choice(CROPS))
    fits = [i for i, p in enumerate(index) if p['frames'] >= length]
    if len(fits) < size:
        length = 10
        fits = [i for i, p in enumerate(index) if p['frames'] >= length]
    xs, ys = [], []
    for i in rng.choice(fits, size=size, replace=False):
        p = index[i]
        start = p['offset'] + int(rng.integers(0, p['frames'] - length + 1))
        k = int(rng.integers(-6, 6))
        xs.append(shifted(feats[start:start + length], k))
        ys.append(target(p, k))
    return torch.from_numpy(np.stack(xs)), torch.from_numpy(np.stack(ys))


def mirex(est, tonic, mode):
    """MIREX weighted score of key index `est` (0-11 major, 12-23 minor) against the label."""
    em, et = est // 12, est % 12
    rm = 1 if mode == 'minor' else 0
    d = (et - tonic) % 12
    if em == rm:
        return 1.0 if d == 0 else 0.5 if d == 7 else 0.0
    if d == 0:
        return 0.2
    return 0.3 if (rm == 0 and em == 1 and d == 9) or (rm == 1 and em == 0 and d == 3) else 0.0


@torch.no_grad()
def evaluate(model, index, feats):
    """Mean MIREX score on whole pieces and on their middle 2 s; max probability on atonal pieces."""
    model.eval()
    whole, short, atonal = [], [], []
    for p in index:
        x = feats[p['offset']:p['offset'] + p['frames']]
        mid = max(0, p['frames'] // 2 - 5)
        for crop, scores in ((x, whole), (x[mid:mid + 10], short)):
            prob = model(torch.from_numpy(crop[None]))[0]
            if p['mode'] is None:
                atonal.append(float(prob.max()))
            else:
                scores.append(mirex(int(prob.argmax()), p['tonic'], p['mode']))
    model.train()
    return np.mean(whole), np.mean(short), np.mean(atonal)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('data')
    ap.add_argument('out')
    ap.add_argument('--steps', type=int, default=6000)
    ap.add_argument('--batch', type=int, default=32)
    args = ap.parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    rng = np.random.default_rng(SEED)
    train_index, train_feats = load(args.data, 'train')
    modal_index, modal_feats = load(args.data, 'modal')
    train_index += [dict(p, offset=p['offset'] + len(train_feats)) for p in modal_index]
    train_feats = np.concatenate([train_feats, modal_feats])
    val_index, val_feats = load(args.data, 'val')
    model = KeyNet()
    print(f'{sum(p.numel() for p in model.parameters())} parameters, {len(train_index)} training pieces', flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=args.steps, pct_start=0.1)
    running = 0.0
    for step in range(1, args.steps + 1):
        x, y = batch(rng, train_index, train_feats, args.batch)
        loss = -(y * F.log_softmax(model.logits(x), dim=1)).sum(dim=1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        if step % 500 == 0 or step == args.steps:
            w, s, a = evaluate(model, val_index, val_feats)
            print(f'step {step}: loss {running:.3f}, val MIREX whole {w:.3f}, 2 s {s:.3f}, '
                  f'atonal max prob {a:.3f}', flush=True)
    torch.save(model.state_dict(), args.out.replace('.onnx', '.pt'))
    model.eval()
    torch.onnx.export(model, (torch.rand(1, 50, SEMITONES),), args.out, input_names=['spec'],
                      output_names=['probs'], dynamic_axes={'spec': {1: 'frames'}}, opset_version=17,
                      dynamo=False)
    print(f'wrote {args.out} ({os.path.getsize(args.out)} bytes)')


if __name__ == '__main__':
    main()
