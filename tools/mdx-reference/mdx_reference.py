#!/usr/bin/env python3
"""An independent numpy reference of python-audio-separator's MDX-Net pipeline (MDXSeparator.separate
with its default mdx_params: hop 1024, segment_size = dim_t, overlap 0.25, batch 1), for synthetic
networks whose behaviour is known, so Stemforge's MDX engine can be checked without real weights.

It follows the published code step by step, in numpy instead of torch:
  - the mix, decoded at 44.1 kHz stereo, scaled down to a peak of 0.9 when above (spec_utils.normalize);
  - demix: trim = n_fft // 2 zeros before, pad = gen + trim - n % gen after; chunks of hop * (dim_t - 1)
    every int((1 - overlap) * chunk) samples, zero-padded past the end; each through
    torch.stft(center=True, reflect, periodic Hann) -> [L_re, L_im, R_re, R_im] x dim_f bins (first
    three zeroed) -> network (-0.5 * net(-X) + 0.5 * net(X) with enable_denoise) -> torch.istft;
    np.hanning(actual) blending, result / divider, [trim : -trim][:n], times compensate;
  - primary = that, secondary = mix - primary; each scaled down to a peak of 0.9 when above.

Networks (what tests/helpers write as ONNX): identity; swap (left and right exchanged); mask (the
fixed spectral mask of `mask_value` below).

    python3 tools/mdx-reference/mdx_reference.py INPUT MODEL_JSON NETWORK OUT_PRIMARY.f32 OUT_SECONDARY.f32
writes each stem as raw little-endian float32, interleaved stereo. Needs numpy and ffmpeg.
"""
import json
import subprocess
import sys

import numpy as np

SAMPLE_RATE = 44100
HOP = 1024
PEAK = 0.9


def decode(path):
    raw = subprocess.run(
        ["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "f32le", "-ac", "2", "-ar", str(SAMPLE_RATE), "pipe:1"],
        check=True, capture_output=True,
    ).stdout
    return np.frombuffer(raw, dtype="<f4").reshape(-1, 2).T.copy()


def normalize(wave):
    peak = np.abs(wave).max()
    if peak > PEAK:
        wave = wave * (PEAK / peak)
    return wave


def mask_value(dim_f):
    """The fixed mask of the 'mask' network, [4, dim_f, 1]: a falling ramp on the left channel's
    planes, a rising one on the right's."""
    f = np.arange(dim_f, dtype=np.float64) / dim_f
    left = 1.0 - 0.75 * f
    right = 0.25 + 0.75 * f
    return np.stack([left, left, right, right])[:, :, None].astype(np.float32)


def network(kind, spec, dim_f):
    if kind == "identity":
        return spec
    if kind == "swap":
        return spec[[2, 3, 0, 1]]
    if kind == "mask":
        return spec * mask_value(dim_f)
    raise SystemExit(f"unknown network {kind}")


def stft(chunk, n_fft, dim_f, dim_t):
    """torch.stft(center=True, pad_mode='reflect', window=hann(periodic)) of each channel, as
    [L_re, L_im, R_re, R_im] x dim_f x dim_t."""
    window = np.hanning(n_fft + 1)[:-1]
    planes = []
    for ch in chunk:
        x = np.pad(ch.astype(np.float64), n_fft // 2, mode="reflect")
        frames = np.stack([x[t * HOP : t * HOP + n_fft] * window for t in range(dim_t)], axis=1)
        bins = np.fft.rfft(frames, axis=0)[:dim_f]
        planes += [bins.real, bins.imag]
    spec = np.stack(planes).astype(np.float32)
    spec[:, :3, :] = 0
    return spec


def istft(spec, n_fft, dim_t):
    """torch.istft(center=True, window=hann(periodic)) with the bins above dim_f as zeros."""
    window = np.hanning(n_fft + 1)[:-1]
    length = n_fft + HOP * (dim_t - 1)
    out = []
    for c in range(2):
        full = np.zeros((n_fft // 2 + 1, dim_t), dtype=np.complex128)
        full[: spec.shape[1]] = spec[2 * c].astype(np.float64) + 1j * spec[2 * c + 1].astype(np.float64)
        frames = np.fft.irfft(full, n=n_fft, axis=0) * window[:, None]
        y = np.zeros(length)
        envelope = np.zeros(length)
        for t in range(dim_t):
            y[t * HOP : t * HOP + n_fft] += frames[:, t]
            envelope[t * HOP : t * HOP + n_fft] += window**2
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append((y / envelope)[n_fft // 2 : length - n_fft // 2])
    return np.stack(out).astype(np.float32)


def demix(mix, card, kind):
    n_fft = card["mdx_n_fft_scale_set"]
    dim_f = card["mdx_dim_f_set"]
    dim_t = 2 ** card["mdx_dim_t_set"]
    overlap = card.get("overlap", 0.25)
    denoise = card.get("enable_denoise", False)
    trim = n_fft // 2
    chunk_size = HOP * (dim_t - 1)
    gen_size = chunk_size - 2 * trim
    pad = gen_size + trim - (mix.shape[-1] % gen_size)
    mixture = np.concatenate((np.zeros((2, trim), dtype="float32"), mix, np.zeros((2, pad), dtype="float32")), 1)
    step = int((1 - overlap) * chunk_size)
    result = np.zeros((2, mixture.shape[-1]), dtype=np.float32)
    divider = np.zeros((2, mixture.shape[-1]), dtype=np.float32)
    for start in range(0, mixture.shape[-1], step):
        end = min(start + chunk_size, mixture.shape[-1])
        actual = end - start
        part = mixture[:, start:end]
        if actual != chunk_size:
            part = np.concatenate((part, np.zeros((2, chunk_size - actual), dtype="float32")), -1)
        spec = stft(part, n_fft, dim_f, dim_t)
        if denoise:
            pred = network(kind, -spec, dim_f) * -0.5 + network(kind, spec, dim_f) * 0.5
        else:
            pred = network(kind, spec, dim_f)
        wave = istft(pred, n_fft, dim_t)
        if overlap != 0:
            window = np.hanning(actual)
            wave[:, :actual] *= window
            divider[:, start:end] += window
        else:
            divider[:, start:end] += 1
        result[:, start:end] += wave[:, :actual]
    tar = (result / divider)[:, trim:-trim][:, : mix.shape[-1]]
    return tar * card["compensate"]


def main():
    if len(sys.argv) != 6:
        raise SystemExit(__doc__)
    source, card_path, kind, out_primary, out_secondary = sys.argv[1:]
    with open(card_path) as f:
        card = json.load(f)
    mix = normalize(decode(source))
    primary = demix(mix, card, kind)
    secondary = mix - primary
    for wave, path in ((normalize(primary), out_primary), (normalize(secondary), out_secondary)):
        wave.T.astype("<f4").tofile(path)


if __name__ == "__main__":
    main()
