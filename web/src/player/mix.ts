import { effectiveGain, type Track } from './track.ts';

/**
 * Renders the decoded stems as they are heard now (volume, mute, solo) into one stereo buffer of
 * `duration` seconds.
 */
export function mixDown(tracks: Track[], duration: number): Promise<AudioBuffer> {
  const rate = tracks[0]?.buffer?.sampleRate ?? 44_100;
  const offline = new OfflineAudioContext(2, Math.ceil(duration * rate), rate);
  const anySolo = tracks.some((t) => t.soloed);
  for (const t of tracks) {
    const g = effectiveGain(t, anySolo);
    if (g === 0) continue;
    const gain = new GainNode(offline, { gain: g });
    gain.connect(offline.destination);
    const src = new AudioBufferSourceNode(offline, { buffer: t.buffer! });
    src.connect(gain);
    src.start(0);
  }
  return offline.startRendering();
}
