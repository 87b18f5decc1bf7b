/** Tempo and key detection: the public surface for workers, the CLI and benchmarks. */
export { analyzeAudio, analyzeAudioDetailed, AnalysisError, ANALYSIS_SAMPLE_RATE } from './analyze-audio.ts';
export type { AnalyzeInput, AudioAnalysis, DetailedAnalysis } from './analyze-audio.ts';
export { analyzeAudioInThread } from './analyze-off-thread.ts';
export { formatKey, parseKey, camelot, type Key, type Mode } from './key-names.ts';
