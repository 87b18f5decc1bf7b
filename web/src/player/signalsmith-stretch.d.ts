/** The package ships JavaScript only; this is the part of its API the player uses (its README). */
declare module 'signalsmith-stretch' {
  const SignalsmithStretch: (ctx: BaseAudioContext, options?: AudioWorkletNodeOptions) => Promise<AudioWorkletNode>;
  export default SignalsmithStretch;
}
