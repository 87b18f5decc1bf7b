import type { NewNode, OnnxNode } from './node.ts';

/** Nodes to drop and new nodes to put in place of given node indexes; what a graph rewrite returns. */
export interface GraphEdit {
  drop: Set<number>;
  /** New nodes written just before node index k (k = nodes.length appends). */
  insertBefore: Map<number, NewNode[]>;
  /** Opset imports to add, by domain. */
  addOpsets: Record<string, number>;
}

export function emptyEdit(): GraphEdit {
  return { drop: new Set(), insertBefore: new Map(), addOpsets: {} };
}

/**
 * Also drops every node whose outputs nothing reads any more (what a rewrite left behind), to a
 * fixed point. Reads are the remaining nodes', the inserted nodes' and the graph outputs.
 */
export function dropDeadNodes(nodes: OnnxNode[], edit: GraphEdit, graphOutputs: readonly string[]): void {
  const inserted = [...edit.insertBefore.values()].flat();
  for (let changed = true; changed; ) {
    const read = new Set([...graphOutputs, ...inserted.flatMap((n) => n.inputs)]);
    nodes.forEach((n, i) => {
      if (!edit.drop.has(i)) for (const x of n.inputs) read.add(x);
    });
    changed = false;
    nodes.forEach((n, i) => {
      if (edit.drop.has(i) || n.outputs.length === 0 || n.outputs.some((o) => read.has(o))) return;
      edit.drop.add(i);
      changed = true;
    });
  }
}
