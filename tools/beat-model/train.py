#!/usr/bin/env python3
"""Trains the beat model and exports it to ONNX (training only):

    python3 tools/beat-model/train.py OUT.onnx PREFIX [PREFIX ...] [--steps N] [--val PREFIX]

PREFIX.f32 / PREFIX.json come from tools/beat-model/features.ts. The network: a 1x1 convolution from
the 2·bands features to CH channels, LAYERS residual blocks of a dilated convolution (kernel 3,
dilations 1, 2, 4, ... 2^(LAYERS-1): a receptive field of about 12 s at 43 frames a second), ELU and
dropout, and a 1x1 convolution to one beat logit per frame (non-causal). Loss: binary cross-entropy
against targets 1 at each beat's frame and 0.5 at its neighbours (the beat widened by a frame).
Crops of CROP frames; time-stretch augmentation by resampling the feature sequence (x0.8-1.25, the
labels scaled exactly); optionally a rubato (--rubato: the rate swinging by up to ±15 %). Seeds fixed; one thread; deterministic algorithms.
"""
import argparse
import json

import numpy as np
import torch
from torch import nn

CH, LAYERS, CROP, BATCH = 20, 9, 640, 16


class BeatNet(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.inp = nn.Conv1d(features, CH, 1)
        self.convs = nn.ModuleList(nn.Conv1d(CH, CH, 3, dilation=2 ** i, padding=2 ** i) for i in range(LAYERS))
        self.mix = nn.ModuleList(nn.Conv1d(CH, CH, 1) for _ in range(LAYERS))
        self.drop = nn.Dropout(0.1)
        self.out = nn.Conv1d(CH, 1, 1)

    def forward(self, x):  # x: batch x frames x features -> logits batch x frames
        h = self.inp(x.transpose(1, 2))
        for conv, mix in zip(self.convs, self.mix):
            h = h + mix(self.drop(nn.functional.elu(conv(h))))
        return self.out(nn.functional.elu(h))[:, 0]


class Exported(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, features):
        return torch.sigmoid(self.net(features))


def load(prefix):
    index = json.load(open(prefix + '.json'))
    data = np.fromfile(prefix + '.f32', dtype=np.float32)
    bands = index[0]['bands']
    data = data.reshape(-1, 2 * bands)
    pieces = []
    for p in index:
        x = data[p['offset']:p['offset'] + p['frames']]
        pieces.append((x, np.array(p['beats'], dtype=np.float64)))
    return pieces


def target(beats, frames):
    y = np.zeros(frames, dtype=np.float32)
    for b in beats:
        i = int(round(b))
        for j, v in ((i - 1, 0.5), (i + 1, 0.5), (i, 1.0)):
            if 0 <= j < frames:
                y[j] = max(y[j], v)
    return y


def crop(rng, pieces, rubato=0.0):
    x, beats = pieces[rng.integers(len(pieces))]
    stretch = float(np.exp(rng.uniform(np.log(0.8), np.log(1.25))))
    # Resampled features: frame n of the new sequence reads frame pos[n] of the old one. With
    # --rubato P, that share of the crops also gets a rubato: the rate swings by up to ±15 % over
    # 5-35 s, the beats moved with it (tried: P 0.5 read the rubato-dev set no better, dev worse).
    n = np.arange(int(len(x) * stretch) + 1)
    rate = np.full(len(n), 1 / stretch)
    if rubato > 0 and rng.random() < rubato:
        depth, period, phase = rng.uniform(0.03, 0.15), rng.uniform(200, 1500), rng.uniform(0, 2 * np.pi)
        rate = rate * (1 + depth * np.sin(2 * np.pi * n / period + phase))
    pos = np.concatenate([[0.0], np.cumsum(rate)[:-1]])
    frames = int(np.searchsorted(pos, len(x) - 1))
    need = min(CROP, frames)
    start = int(rng.integers(0, frames - need + 1))
    t = pos[start:start + need]
    i0 = np.minimum(np.floor(t).astype(int), len(x) - 1)
    i1 = np.minimum(i0 + 1, len(x) - 1)
    w = (t - i0)[:, None].astype(np.float32)
    xs = x[i0] * (1 - w) + x[i1] * w
    y = target(np.interp(beats, pos[:frames], n[:frames], left=-10, right=1e9) - start, need)
    if need < CROP:
        xs = np.pad(xs, ((0, CROP - need), (0, 0)))
        y = np.pad(y, (0, CROP - need))
        m = np.zeros(CROP, dtype=np.float32)
        m[:need] = 1
    else:
        m = np.ones(CROP, dtype=np.float32)
    return xs, y, m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('prefixes', nargs='+')
    ap.add_argument('--steps', type=int, default=3000)
    ap.add_argument('--val')
    ap.add_argument('--rubato', type=float, default=0.0)
    args = ap.parse_args()
    torch.manual_seed(4303)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    rng = np.random.default_rng(4303)
    pieces = [p for prefix in args.prefixes for p in load(prefix)]
    features = pieces[0][0].shape[1]
    net = BeatNet(features)
    print('parameters', sum(p.numel() for p in net.parameters()), 'pieces', len(pieces), flush=True)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps, pct_start=0.1)
    val = load(args.val) if args.val else []
    bce = nn.BCEWithLogitsLoss(reduction='none', pos_weight=torch.tensor(4.0))
    for step in range(args.steps):
        net.train()
        batch = [crop(rng, pieces, args.rubato) for _ in range(BATCH)]
        x = torch.from_numpy(np.stack([b[0] for b in batch]))
        y = torch.from_numpy(np.stack([b[1] for b in batch]))
        m = torch.from_numpy(np.stack([b[2] for b in batch]))
        loss = (bce(net(x), y) * m).sum() / m.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 250 == 0 or step == args.steps - 1:
            msg = f'step {step} loss {loss.item():.4f}'
            if val:
                net.eval()
                with torch.no_grad():
                    vl = [bce(net(torch.from_numpy(x[None])), torch.from_numpy(target(b, len(x))[None])).mean().item()
                          for x, b in val]
                msg += f' val {np.mean(vl):.4f}'
            print(msg, flush=True)
    net.eval()
    torch.onnx.export(Exported(net), torch.zeros(1, 500, features), args.out, input_names=['features'],
                      output_names=['beat'], dynamic_axes={'features': {1: 'frames'}, 'beat': {1: 'frames'}},
                      opset_version=17, dynamo=False)
    print('wrote', args.out, flush=True)


if __name__ == '__main__':
    main()
