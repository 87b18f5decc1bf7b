import { describe, expect, it } from 'vitest';
import { splitGraph } from '../../src/onnx/graph-split.ts';
import type { OnnxNode } from '../../src/onnx/node.ts';

const node = (name: string, op: string, inputs: string[], outputs: string[]): OnnxNode => ({
  name,
  op,
  domain: '',
  inputs,
  outputs,
  attributes: {},
});

// A two-level U-Net in miniature: enc0 -> enc1 -> mid -> dec1 (+ skip enc1) -> dec0 (+ skip enc0).
const nodes: OnnxNode[] = [
  node('/c', 'Constant', [], ['k']),
  node('/enc0', 'Mul', ['x', 'k'], ['e0']),
  node('/enc1', 'Relu', ['e0'], ['e1']),
  node('/mid', 'Relu', ['e1'], ['m']),
  node('/dec1', 'Add', ['m', 'e1'], ['d1']),
  node('/dec0', 'Add', ['d1', 'e0'], ['d0']),
  node('/out', 'Mul', ['d0', 'k'], ['y']),
];

describe('splitGraph', () => {
  it('puts the seeds and everything downstream second, and lets only produced tensors cross', () => {
    const s = splitGraph(nodes, (n) => n.name.startsWith('/dec'), ['x'], ['y']);
    expect(s.first.map((i) => nodes[i]!.name)).toEqual(['/c', '/enc0', '/enc1', '/mid']);
    // The constant is copied into the second part instead of crossing.
    expect(s.second.map((i) => nodes[i]!.name)).toEqual(['/c', '/dec1', '/dec0', '/out']);
    expect(s.cut).toEqual(['e0', 'e1', 'm']);
    expect(s.firstInputs).toEqual(['x']);
    expect(s.secondInputs).toEqual([]);
    expect(s.secondOutputs).toEqual(['y']);
    expect(s.firstOutputs).toEqual([]);
  });

  it('keeps a graph input the second part reads as its input', () => {
    const withInput = [...nodes.slice(0, -1), node('/out', 'Mul', ['d0', 'x'], ['y'])];
    const s = splitGraph(withInput, (n) => n.name.startsWith('/dec'), ['x'], ['y']);
    expect(s.secondInputs).toEqual(['x']);
    expect(s.second.map((i) => withInput[i]!.name)).toEqual(['/dec1', '/dec0', '/out']);
  });
});
