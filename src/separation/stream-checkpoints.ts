import type { OverlapAddState } from './overlap-add.ts';

/** Where a streamed separation stands after a segment: enough to go on exactly as it would have. */
export interface StreamState {
  /** Index in the plan of the next segment to run. */
  next: number;
  /** Frames of every stem written to the sinks so far. */
  emitted: number;
  /** Each pass's overlap-add window. */
  passes: OverlapAddState[];
}

/** What `separateStream` asks of its checkpoints (`segment-checkpoints.ts`). */
export interface StreamCheckpoints {
  /**
   * The state to go on from, its stems' samples up to `emitted` already written again to the sinks;
   * null to start at the first segment. `identity` names everything the output depends on.
   */
  resume(identity: string): Promise<StreamState | null>;
  /** Records the state after a segment, once its samples were written through the recording sinks. */
  save(state: StreamState): Promise<void>;
}
