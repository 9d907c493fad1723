// `--shard i/n`: which part of the work one CI machine does. Units (a case, or a stage's property
// suite) are dealt round-robin in course order, so every machine given the same course, hidden
// cases and seed computes the same split, and together the shards cover every unit exactly once.

export interface Shard {
  /** 1-based, as people count machines. */
  index: number;
  count: number;
}

export const WHOLE: Shard = { index: 1, count: 1 };

/** "2/4" -> { index: 2, count: 4 }; undefined when the text is not a shard. */
export function parseShard(text: string): Shard | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match) return undefined;
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || index < 1 || index > count) return undefined;
  return { index, count };
}

/** Whether the unit at `position` (0-based, over all units of the run in course order) is this shard's. */
export function inShard(position: number, shard: Shard): boolean {
  return position % shard.count === shard.index - 1;
}
