"""The key model (training only; the product runs its ONNX export, models/key-model.onnx).

Input: a semitone spectrogram, frames x 72 (C2..B7, src/analysis/key-spectrogram.ts), raw
magnitudes. Output: probabilities of the 24 keys, C major..B major then C minor..B minor.

Transposition equivariant by construction: every layer is a convolution along the pitch axis, and
the last one scores "the tonic is here, in this mode" at each of the 72 semitones; the scores of
the same pitch class in its six octaves are pooled (log-sum-exp). A key the training data holds in
one tonic is learnt for all twelve, and the model has no notion of which keys are common.
Time is pooled by a plain mean, so a long input weighs all its parts alike, like a key label.
"""
import torch
from torch import nn

SEMITONES = 72
OCTAVES = SEMITONES // 12


class KeyNet(nn.Module):
    def __init__(self, channels=16, hidden=48, context=25):
        super().__init__()
        self.frames = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1), nn.ELU(),
            nn.Conv2d(channels, channels, 3, padding=1), nn.ELU(),
            nn.Conv2d(channels, channels, 3, padding=1), nn.ELU(),
        )
        # Each tonic candidate sees an octave either side: the scale, its bass and its melody.
        self.keys = nn.Sequential(
            nn.Conv1d(channels, hidden, context, padding=context // 2), nn.ELU(), nn.Dropout(0.1),
            nn.Conv1d(hidden, 2, 1),
        )

    def logits(self, spec):
        """spec: (batch, frames, 72) magnitudes -> (batch, 24) logits."""
        x = spec / (spec.mean(dim=(1, 2), keepdim=True) + 1e-8)
        x = torch.log1p(x).unsqueeze(1)
        x = self.frames(x).mean(dim=2)  # (batch, channels, 72)
        x = self.keys(x)  # (batch, 2, 72): major / minor tonic score at each semitone
        x = x.reshape(x.shape[0], 2, OCTAVES, 12).logsumexp(dim=2)
        return x.reshape(x.shape[0], 24)

    def forward(self, spec):
        return torch.softmax(self.logits(spec), dim=1)
