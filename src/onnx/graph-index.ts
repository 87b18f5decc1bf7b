import type { OnnxNode } from './node.ts';

/** Who produces and who reads each tensor of a graph: what pattern-matching rewrites look up. */
export interface GraphIndex {
  /** Index of the node that produces `tensor`. */
  producerOf(tensor: string | undefined): number | undefined;
  /** The node that produces `tensor`, when it is `op` of the default domain. */
  from(tensor: string | undefined, op: string): OnnxNode | undefined;
  /** Index of the one node that reads `tensor` (undefined when none or several do). */
  onlyConsumer(tensor: string | undefined): number | undefined;
}

/** A malformed node may lack an input or output: every lookup takes `undefined` and finds nothing. */
export function indexGraph(nodes: readonly OnnxNode[]): GraphIndex {
  const producer = new Map<string, number>();
  const consumers = new Map<string, number[]>();
  nodes.forEach((n, i) => {
    for (const o of n.outputs) producer.set(o, i);
    for (const x of n.inputs) consumers.set(x, [...(consumers.get(x) ?? []), i]);
  });
  const producerOf = (tensor: string | undefined) => (tensor === undefined ? undefined : producer.get(tensor));
  return {
    producerOf,
    from(tensor, op) {
      const i = producerOf(tensor);
      const n = i === undefined ? undefined : nodes[i];
      return n?.op === op && !n.domain ? n : undefined;
    },
    onlyConsumer(tensor) {
      const c = (tensor === undefined ? undefined : consumers.get(tensor)) ?? [];
      return c.length === 1 ? c[0] : undefined;
    },
  };
}
