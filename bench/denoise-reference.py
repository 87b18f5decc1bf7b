"""Independent reference of DeepFilterNet3 inference, written from upstream's definitions
(libDF/src/lib.rs: vorbis window, analysis/synthesis with wnorm, erb_fb, compute_band_corr,
band_mean_norm_erb, band_unit_norm, calc_norm_alpha; df/enhance.py: padding, df_features, output
trim; df/deepfilternet3.py DfNet.forward: pad_feat, Mask, DF on the noisy spectrum for bins < nb_df;
df/multiframe.py DF: pad (order-1-lookahead, lookahead) and unfold), compared stage by stage with
the dumps of bench/denoise-stages.ts. numpy + onnxruntime only; a bench, not product code.

    node bin/run-ts.mjs bench/denoise-stages.ts IN.wav DIR && python3 bench/denoise-reference.py IN.wav DIR
"""

import configparser
import os
import subprocess
import sys

import numpy as np
import onnxruntime as ort

inp, dump = sys.argv[1], sys.argv[2]
shared = os.environ.get("STEMFORGE_SHARED", os.path.join(os.path.dirname(__file__), "../../shared"))
mdir = os.path.join(shared, "models", "dfn3")
cfg = configparser.ConfigParser()
cfg.read(os.path.join(mdir, "config.ini"))
sr = cfg.getint("df", "sr")
n_fft = cfg.getint("df", "fft_size")
hop = cfg.getint("df", "hop_size")
nb_erb = cfg.getint("df", "nb_erb")
nb_df = cfg.getint("df", "nb_df")
min_nb = cfg.getint("df", "min_nb_erb_freqs")
tau = cfg.getfloat("df", "norm_tau")
df_order = cfg.getint("df", "df_order")
df_la = cfg.getint("df", "df_lookahead")
conv_la = cfg.getint("deepfilternet", "conv_lookahead")
F = n_fft // 2 + 1

raw = subprocess.run(
    ["ffmpeg", "-nostdin", "-v", "error", "-i", inp, "-f", "f32le", "-ac", "1", "-ar", str(sr), "pipe:1"],
    check=True,
    capture_output=True,
).stdout
x = np.frombuffer(raw, dtype="<f4").astype(np.float64)


def load(name, shape):
    return np.fromfile(os.path.join(dump, name), dtype="<f4").reshape(shape)


def rel(a, b):
    """Largest absolute difference relative to the reference's largest magnitude."""
    return float(np.max(np.abs(a - b)) / (np.max(np.abs(b)) + 1e-30))


def si_sdr(ref, est):
    n = min(len(ref), len(est))
    r, e = ref[:n] - ref[:n].mean(), est[:n] - est[:n].mean()
    s = np.dot(r, e) / (np.dot(r, r) + 1e-12) * r
    return 10 * np.log10((np.dot(s, s) + 1e-12) / (np.dot(e - s, e - s) + 1e-12))


report = []

# --- libDF: window, norm, analysis -----------------------------------------------------------
n = np.arange(n_fft)
window = np.sin(0.5 * np.pi * np.sin(0.5 * np.pi * (n + 0.5) / (n_fft // 2)) ** 2)  # libDF DFState::new
wnorm = 1.0 / (n_fft**2 / (2 * hop))  # libDF DFState::new
audio = np.concatenate([x, np.zeros(n_fft)])  # enhance.py: F.pad(audio, (0, n_fft))
T = len(audio) // hop
mem = np.zeros(n_fft - hop)
spec = np.zeros((T, F), dtype=np.complex128)
for t in range(T):
    buf = np.concatenate([mem, audio[t * hop : (t + 1) * hop]])
    spec[t] = np.fft.rfft(buf * window) * wnorm
    mem = buf[hop:]
ours = load("spec.f32", (T, F, 2))
report.append(("STFT (vorbis window, wnorm = 2*hop/N^2)", rel(ours[..., 0] + 1j * ours[..., 1], spec)))


# --- libDF erb_fb ----------------------------------------------------------------------------
def freq2erb(f):
    return 9.265 * np.log1p(f / (24.7 * 9.265))


def erb2freq(e):
    return 24.7 * 9.265 * (np.exp(e / 9.265) - 1)


lo, hi = freq2erb(0.0), freq2erb(sr / 2)
step = (hi - lo) / nb_erb
widths, prev, over = [], 0, 0
for i in range(1, nb_erb + 1):
    fb = int(np.round(erb2freq(lo + i * step) / (sr / n_fft)))
    nf = fb - prev - over
    if nf < min_nb:
        over, nf = min_nb - nf, min_nb
    else:
        over = 0
    widths.append(nf)
    prev = fb
widths[-1] += 1
widths[-1] -= sum(widths) - F
widths = np.array(widths)
report.append(("ERB band widths", rel(load("widths.f32", (nb_erb,)), widths.astype(np.float64))))

# --- calc_norm_alpha, features ---------------------------------------------------------------
a_ = np.exp(-hop / sr / tau)
precision, alpha = 3, 1.0
while alpha >= 1.0:
    alpha = round(a_, precision)
    precision += 1
edges = np.concatenate([[0], np.cumsum(widths)])
power = np.stack([np.mean(np.abs(spec[:, edges[b] : edges[b + 1]]) ** 2, axis=1) for b in range(nb_erb)], 1)
erb_db = 10 * np.log10(power + 1e-10)
state = np.linspace(-60.0, -90.0, nb_erb)  # MEAN_NORM_INIT
feat_erb = np.zeros_like(erb_db)
for t in range(T):
    state = erb_db[t] * (1 - alpha) + state * alpha
    feat_erb[t] = (erb_db[t] - state) / 40.0
ustate = np.linspace(0.001, 0.0001, nb_df)  # UNIT_NORM_INIT
feat_spec = np.zeros((T, nb_df), dtype=np.complex128)
for t in range(T):
    ustate = np.abs(spec[t, :nb_df]) * (1 - alpha) + ustate * alpha
    feat_spec[t] = spec[t, :nb_df] / np.sqrt(ustate)
report.append((f"ERB features (alpha {alpha})", rel(load("erb.f32", (T, nb_erb)), feat_erb)))
oc = load("cplx.f32", (T, 2, nb_df))
report.append(("unit-norm complex features", rel(oc[:, 0] + 1j * oc[:, 1], feat_spec)))

# --- network: DfNet.pad_feat shifts features by conv_lookahead (zeros at the end) --------------
opts = ort.SessionOptions()
opts.intra_op_num_threads = 1
sess = {k: ort.InferenceSession(os.path.join(mdir, f"{k}.onnx"), opts) for k in ("enc", "erb_dec", "df_dec")}
fe = np.concatenate([feat_erb[conv_la:], np.zeros((conv_la, nb_erb))]).astype(np.float32)
fs = np.concatenate([feat_spec[conv_la:], np.zeros((conv_la, nb_df))])
fs = np.stack([fs.real, fs.imag]).astype(np.float32)
e0, e1, e2, e3, emb, c0, lsnr = sess["enc"].run(None, {"feat_erb": fe[None, None], "feat_spec": fs[None]})
m = sess["erb_dec"].run(None, {"emb": emb, "e3": e3, "e2": e2, "e1": e1, "e0": e0})[0][0, 0]
coefs = sess["df_dec"].run(["coefs"], {"emb": emb, "c0": c0})[0][0]  # [T, nb_df, order*2]
coefs = coefs.reshape(T, nb_df, df_order, 2)
coefs = coefs[..., 0] + 1j * coefs[..., 1]
report.append(("ERB mask (whole sequence)", rel(load("mask.f32", (T, nb_erb)), m)))
oco = load("coefs.f32", (T, nb_df, df_order, 2))
report.append(("DF coefficients (whole sequence)", rel(oco[..., 0] + 1j * oco[..., 1], coefs)))

# --- Mask + DF (multiframe.DF: pad order-1-lookahead before, lookahead after; unfold) ----------
gains = np.repeat(m, widths, axis=1)
spec_m = spec * gains
padded = np.concatenate([np.zeros((df_order - 1 - df_la, F)), spec, np.zeros((df_la, F))])
spec_e = spec_m.copy()
spec_e[:, :nb_df] = 0
for k in range(df_order):
    spec_e[:, :nb_df] += padded[k : k + T, :nb_df] * coefs[:, :, k]
oe = load("enh.f32", (T, F, 2))
report.append(("mask + deep filter", rel(oe[..., 0] + 1j * oe[..., 1], spec_e)))


# --- synthesis (libDF frame_synthesis) and enhance.py's trim ----------------------------------
def synth(s):
    out = np.zeros(T * hop)
    smem = np.zeros(n_fft - hop)
    for t in range(T):
        fr = np.fft.irfft(s[t], n_fft) * n_fft * window  # realfft inverse is unnormalised
        out[t * hop : (t + 1) * hop] = fr[:hop] + smem[:hop]
        smem = np.concatenate([smem[hop:], np.zeros(hop)]) + fr[hop:]
    d = n_fft - hop
    return out[d : d + len(x)]


ref_out = synth(spec_e)
report.append(("identity: synthesis(analysis(x)) vs x", rel(synth(spec), x)))

print(f"# Stage-by-stage: our port vs the upstream-definition reference ({os.path.basename(inp)}, {T} frames)")
print("| stage | max |ours - ref| / max |ref| |")
print("|---|---:|")
for name, v in report:
    print(f"| {name} | {v:.2e} |")
print("\n# Whole output vs the reference output (SI-SDR, dB; higher = closer)")
for name in ("out-full", "out-default", "out-product"):
    path = os.path.join(dump, f"{name}.f32")
    if os.path.exists(path):
        o = np.fromfile(path, dtype="<f4").astype(np.float64)
        print(f"{name}: length {len(o)} (input {len(x)}), SI-SDR vs reference {si_sdr(ref_out, o):.1f} dB")
clean = os.environ.get("REF_CLEAN")
if clean:
    raw = subprocess.run(
        ["ffmpeg", "-nostdin", "-v", "error", "-i", clean, "-f", "f32le", "-ac", "1", "-ar", str(sr), "pipe:1"],
        check=True,
        capture_output=True,
    ).stdout
    c = np.frombuffer(raw, dtype="<f4").astype(np.float64)
    sec = sr
    print("\n# Against the clean speech (SI-SDR dB: whole file / first second)")
    print(f"noisy: {si_sdr(c, x):.2f} / {si_sdr(c[:sec], x[:sec]):.2f}")
    print(f"reference (upstream definitions): {si_sdr(c, ref_out):.2f} / {si_sdr(c[:sec], ref_out[:sec]):.2f}")
    for name in ("out-full", "out-default", "out-product"):
        path = os.path.join(dump, f"{name}.f32")
        if os.path.exists(path):
            o = np.fromfile(path, dtype="<f4").astype(np.float64)
            print(f"{name}: {si_sdr(c, o):.2f} / {si_sdr(c[:sec], o[:sec]):.2f}")
