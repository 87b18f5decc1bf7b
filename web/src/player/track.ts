/** One stem of the transport and the loop every stem shares. */
export interface Track {
  name: string;
  url: string;
  /** Null until decoded; until then a play streams the stem through `media`. */
  buffer: AudioBuffer | null;
  media: HTMLAudioElement | null;
  /** media -> mediaGain -> gain: silences the media at the handover's exact context time. */
  mediaGain: GainNode | null;
  volume: number;
  muted: boolean;
  soloed: boolean;
  gain: GainNode;
  source: AudioBufferSourceNode | null;
  /** The context time and buffer offset this stem's current source was started with (for sync checks). */
  startedAt: number;
  startOffset: number;
}

export interface Loop {
  enabled: boolean;
  start: number;
  end: number;
}

/** The gain a stem gets: any solo silences the stems that are not soloed; mute silences. */
export function effectiveGain(track: Pick<Track, 'volume' | 'muted' | 'soloed'>, anySolo: boolean): number {
  if (anySolo) return track.soloed ? track.volume : 0;
  return track.muted ? 0 : track.volume;
}

/** A stem not decoded yet, at full volume, its gain connected to `output` (the player's bus). */
export function newTrack(ctx: AudioContext, { name, url }: { name: string; url: string }, output: AudioNode): Track {
  const gain = new GainNode(ctx);
  gain.connect(output);
  return {
    name,
    url,
    buffer: null,
    media: null,
    mediaGain: null,
    volume: 1,
    muted: false,
    soloed: false,
    gain,
    source: null,
    startedAt: 0,
    startOffset: 0,
  };
}
