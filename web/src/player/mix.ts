import { correctionSemitones, createStretchNode } from './stretch.ts';
import { effectiveGain, type Track } from './track.ts';

/**
 * Renders the decoded stems as they are heard now (volume, mute, solo, tempo and pitch) into one
 * stereo buffer: `duration / tempo` seconds. Away from 100 % and 0 semitones the sum goes through
 * the same stretch node as in playback; the node delays what it outputs by its latency, so that
 * much more is rendered and the start is cut off.
 */
export async function mixDown(
  tracks: Track[],
  duration: number,
  { tempo, pitch }: { tempo: number; pitch: number } = { tempo: 1, pitch: 0 },
): Promise<AudioBuffer> {
  const rate = tracks[0]?.buffer?.sampleRate ?? 44_100;
  const semitones = correctionSemitones(tempo, pitch);
  const stretched = Math.abs(semitones) >= 0.001;
  const length = Math.ceil((duration / tempo) * rate);
  let offline = new OfflineAudioContext(2, length, rate);
  let latency = 0;
  let bus: AudioNode = offline.destination;
  if (stretched) {
    // The latency is known only from a node; a first context finds it, the second renders.
    const probe = await createStretchNode(offline);
    latency = Math.ceil((await probe.latency()) * rate);
    offline = new OfflineAudioContext(2, length + latency, rate);
    const node = await createStretchNode(offline);
    await node.schedule({ active: true, semitones, output: 0 });
    node.connect(offline.destination);
    bus = node;
  }
  const anySolo = tracks.some((t) => t.soloed);
  for (const t of tracks) {
    const g = effectiveGain(t, anySolo);
    if (g === 0) continue;
    const gain = new GainNode(offline, { gain: g });
    gain.connect(bus);
    const src = new AudioBufferSourceNode(offline, { buffer: t.buffer!, playbackRate: tempo });
    src.connect(gain);
    src.start(0);
  }
  const rendered = await offline.startRendering();
  if (!stretched) return rendered;
  const out = new AudioBuffer({ numberOfChannels: 2, length, sampleRate: rate });
  for (let c = 0; c < 2; c++) out.copyToChannel(rendered.getChannelData(c).subarray(latency, latency + length), c);
  return out;
}
