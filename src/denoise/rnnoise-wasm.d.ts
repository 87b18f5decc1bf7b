// @echogarden/rnnoise-wasm ships no types; src/denoise/rnnoise.ts types the module it returns.
declare module '@echogarden/rnnoise-wasm' {
  const factory: () => Promise<unknown>;
  export default factory;
}
