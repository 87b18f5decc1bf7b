#!/usr/bin/env python3
"""Exports a BS-RoFormer or Mel-Band RoFormer checkpoint to ONNX for Stemforge's next model family
(docs/models.md, "RoFormer: what the next family needs"). Not part of the product: run it where torch
and the model's code are, then install the result as a folder model with a card.

The graph is the network between the STFT and the iSTFT: the STFT, iSTFT and chunk blending stay in
Stemforge (onnxruntime's STFT differs from torch's at the edges, and complex tensors do not export).
Input  `spec`:  [batch, bins * channels, frames, 2] float32: the network's own `stft_repr`, the
                centred STFT of one chunk merged 'b s f t c -> b (f s) t c' (frequency-major,
                channel-minor; last axis real, imaginary), bins = n_fft // 2 + 1,
                frames = chunk_size // hop_length + 1.
Output `mask`:  [batch, stems, bins * channels, frames, 2] (BS-RoFormer): the complex mask per stem,
                multiplied (complex) with `spec` before the iSTFT. Mel-Band RoFormer: the masks of
                its gathered bands, which the family scatters back and averages (`freq_indices`,
                `num_bands_per_freq`, written into the card).

    pip install torch pyyaml einops beartype rotary-embedding-torch   # from the machine's pip index
    python3 tools/roformer-export/export.py CONFIG.yaml MODEL.ckpt OUT.onnx [--mel] [--code DIR]

`--code DIR` is a checkout of python-audio-separator (its audio_separator/separator/uvr_lib_v5/roformer/
holds BSRoformer and MelBandRoformer); without it the `bs_roformer` package is imported. Before writing,
the script runs one chunk through torch and through the exported graph (onnxruntime, if installed) and
prints the largest difference. Written against the published code; not run on this project's machines
(no checkpoint can be had there).
"""
import argparse
import sys

import torch
import yaml


def load_network(config, checkpoint, mel, code):
    if code:
        sys.path.insert(0, code)
        from audio_separator.separator.uvr_lib_v5.roformer.bs_roformer import BSRoformer
        from audio_separator.separator.uvr_lib_v5.roformer.mel_band_roformer import MelBandRoformer
    else:
        from bs_roformer import BSRoformer, MelBandRoformer
    cls = MelBandRoformer if mel else BSRoformer
    net = cls(**config["model"])
    state = torch.load(checkpoint, map_location="cpu")
    net.load_state_dict(state.get("state_dict", state) if isinstance(state, dict) else state)
    return net.eval()


class MaskOnly(torch.nn.Module):
    """The RoFormer between its STFT and its iSTFT, as the network's own forward runs it
    (python-audio-separator's uvr_lib_v5/roformer/bs_roformer.py and mel_band_roformer.py):
    input the merged spectrogram `stft_repr`, 'b (f s) t c' (frequency-major, channel-minor, c =
    real/imag), output the per-stem complex masks 'b n (f s) t c' that the forward multiplies with
    it. Mel-Band RoFormer gathers its overlapping bands first (`freq_indices`)."""

    def __init__(self, net, mel):
        super().__init__()
        if getattr(net, "skip_connection", False):
            raise SystemExit("skip_connection models are not covered by this export")
        self.net = net
        self.mel = mel

    def forward(self, stft_repr):
        n = self.net
        b, fs, t, _ = stft_repr.shape
        x = stft_repr[:, n.freq_indices] if self.mel else stft_repr
        x = x.permute(0, 2, 1, 3).reshape(b, t, -1)  # 'b f t c -> b t (f c)'
        x = n.band_split(x)  # b t bands d
        for block in n.layers:
            if len(block) == 3:
                linear_t, time_t, freq_t = block
                shape = x.shape
                x = linear_t(x.reshape(shape[0], -1, shape[-1])).reshape(shape)
            else:
                time_t, freq_t = block
            x = x.permute(0, 2, 1, 3)  # 'b t f d -> b f t d'
            bf = x.shape
            x = time_t(x.reshape(-1, bf[2], bf[3])).reshape(bf).permute(0, 2, 1, 3)  # back to b t f d
            bt = x.shape
            x = freq_t(x.reshape(-1, bt[2], bt[3])).reshape(bt)
        x = n.final_norm(x)
        masks = torch.stack([head(x) for head in n.mask_estimators], dim=1)  # b n t (f c)
        # b n f t c. Mel-Band RoFormer's f is its gathered bands: its forward scatters them back onto
        # the bins and averages the overlaps (`num_bands_per_freq`), which the family does.
        return masks.reshape(b, masks.shape[1], t, -1, 2).permute(0, 1, 3, 2, 4)

def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config")
    p.add_argument("checkpoint")
    p.add_argument("out")
    p.add_argument("--mel", action="store_true", help="Mel-Band RoFormer (default: BS-RoFormer)")
    p.add_argument("--code", help="a python-audio-separator checkout")
    a = p.parse_args()
    with open(a.config) as f:
        config = yaml.safe_load(f)
    net = load_network(config, a.checkpoint, a.mel, a.code)
    channels = 2 if config["model"].get("stereo", True) else 1
    n_fft = config["model"]["stft_n_fft"]
    hop = config["model"]["stft_hop_length"]
    frames = config["audio"]["chunk_size"] // hop + 1
    wrapped = MaskOnly(net, a.mel).eval()
    example = torch.randn(1, (n_fft // 2 + 1) * channels, frames, 2)
    with torch.no_grad():
        want = wrapped(example)
    torch.onnx.export(
        wrapped,
        (example,),
        a.out,
        input_names=["spec"],
        output_names=["mask"],
        dynamic_axes={"spec": {0: "batch"}, "mask": {0: "batch"}},
        opset_version=17,
    )
    try:
        import onnxruntime as ort

        got = ort.InferenceSession(a.out).run(None, {"spec": example.numpy()})[0]
        print(f"largest difference, onnxruntime vs torch: {abs(got - want.numpy()).max():.3g}")
    except ImportError:
        print("onnxruntime not installed: the export was not checked")
    print(f"wrote {a.out}: spec {list(example.shape)} -> mask {list(want.shape)}")


if __name__ == "__main__":
    main()
