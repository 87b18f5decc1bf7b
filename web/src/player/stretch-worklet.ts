// The AudioWorklet module of the tempo and pitch node (stretch.ts): evaluated in the
// AudioWorkletGlobalScope, the library registers its processor there. Built as its own file by
// web/build.mjs, because a worklet module is loaded by URL.
import 'signalsmith-stretch';
