"""Audio augmentation of rendered pieces (training only): EQ, band limits, reverb, compression and
noise, each drawn at random from one numpy Generator. Pitch shift is done on the features instead
(train.py shifts the semitone spectrogram and moves the label with it), which costs nothing.
"""
import numpy as np
from scipy import signal

SR = 22050


def peaking(f0, gain_db, q):
    """RBJ audio-EQ-cookbook peaking filter."""
    a = 10 ** (gain_db / 40)
    w = 2 * np.pi * f0 / SR
    alpha = np.sin(w) / (2 * q)
    b = [1 + alpha * a, -2 * np.cos(w), 1 - alpha * a]
    den = [1 + alpha / a, -2 * np.cos(w), 1 - alpha / a]
    return np.array(b) / den[0], np.array(den) / den[0]


def coloured_noise(rng, n, colour):
    white = rng.standard_normal(n)
    if colour == 'white':
        return white
    spec = np.fft.rfft(white)
    f = np.maximum(np.fft.rfftfreq(n, 1 / SR), 20)
    spec /= f ** (0.5 if colour == 'pink' else 1.0)
    return np.fft.irfft(spec, n)


def augment(x, rng):
    x = x.astype(np.float64)
    if rng.random() < 0.15:
        return normalise(x, rng)
    if rng.random() < 0.7:
        for _ in range(int(rng.integers(1, 4))):
            b, a = peaking(float(np.exp(rng.uniform(np.log(60), np.log(8000)))), float(rng.uniform(-12, 12)),
                           float(rng.uniform(0.5, 2.5)))
            x = signal.lfilter(b, a, x)
    if rng.random() < 0.25:  # a band-limited recording: telephone, old tape, small speaker
        lo, hi = float(rng.uniform(60, 400)), float(rng.uniform(2500, 9000))
        x = signal.sosfilt(signal.butter(2, [lo, hi], btype='band', fs=SR, output='sos'), x)
    if rng.random() < 0.5:
        rt60 = float(rng.uniform(0.3, 2.5))
        t = np.arange(int(rt60 * SR)) / SR
        ir = rng.standard_normal(len(t)) * np.exp(-6.9 * t / rt60)
        ir[0] = 1 / float(rng.uniform(0.3, 1.5))
        wet = signal.fftconvolve(x, ir)[:len(x)]
        wet *= np.std(x) / (np.std(wet) + 1e-12)
        mix = float(rng.uniform(0.15, 0.6))
        x = (1 - mix) * x + mix * wet
    if rng.random() < 0.4:  # compression / saturation
        drive = float(rng.uniform(1, 8))
        x = np.tanh(drive * x / (np.max(np.abs(x)) + 1e-12)) / np.tanh(drive)
    if rng.random() < 0.5:
        noise = coloured_noise(rng, len(x), str(rng.choice(['white', 'pink', 'brown'])))
        snr = float(rng.uniform(5, 35))
        x = x + noise * np.sqrt(np.mean(x ** 2) / (np.mean(noise ** 2) + 1e-12) / 10 ** (snr / 10))
    return normalise(x, rng)


def normalise(x, rng):
    peak = np.max(np.abs(x)) + 1e-12
    return (x / peak * 10 ** (float(rng.uniform(-30, -1)) / 20)).astype(np.float32)
