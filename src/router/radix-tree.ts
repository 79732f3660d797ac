/**
 * The approximate radix tree of SGLang Model Gateway's cache-aware policy: one character tree shared by
 * all workers ("tenants"), each node recording which tenants have routed text through it and when. It is
 * approximate because it records what the router sent where, not what the engines still hold.
 *
 * Characters are Unicode code points (Rust `char`s), so sizes and match lengths count code points; nodes
 * never split inside a surrogate pair. "When" is a logical clock that advances once per insert, so the LRU
 * order is deterministic. Each tenant's size is the characters of the nodes it owns; `evict(max)` removes
 * each tenant's least recently used leaves (nodes it owns with no child it owns) until its size is at most
 * `max`, dropping nodes no tenant owns any more.
 */

class TreeNode {
  children = new Map<number, TreeNode>();
  tenants = new Map<string, number>();
  chars: number;
  constructor(
    public text: string,
    public parent: TreeNode | null,
  ) {
    this.chars = codePoints(text, 0, text.length);
  }
}

/** Unicode code points of the whole text (Rust's `chars().count()`). */
export function charCount(text: string): number {
  return codePoints(text, 0, text.length);
}

function codePoints(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Code units of `text` from `at` that equal the start of `edge`, never ending between a surrogate pair. */
function sharedUnits(text: string, at: number, edge: string): number {
  const max = Math.min(text.length - at, edge.length);
  let n = 0;
  while (n < max && text.charCodeAt(at + n) === edge.charCodeAt(n)) n++;
  if (n > 0 && n < edge.length) {
    const last = edge.charCodeAt(n - 1);
    const next = edge.charCodeAt(n);
    if (last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) n--;
  }
  return n;
}

export interface PrefixMatch {
  /** Code points of the input matched by the tree. */
  matchedChars: number;
  inputChars: number;
  /** The tenant at the deepest matched node that routed there most recently; null when the tree is empty. */
  tenant: string | null;
}

/** A min-heap of (tick, sequence) → node, for the LRU walk of one tenant. */
class LeafHeap {
  private items: { tick: number; seq: number; node: TreeNode }[] = [];
  private seq = 0;
  get size(): number {
    return this.items.length;
  }
  private less(a: number, b: number): boolean {
    const x = this.items[a]!;
    const y = this.items[b]!;
    return x.tick < y.tick || (x.tick === y.tick && x.seq < y.seq);
  }
  private swap(a: number, b: number): void {
    const t = this.items[a]!;
    this.items[a] = this.items[b]!;
    this.items[b] = t;
  }
  push(tick: number, node: TreeNode): void {
    this.items.push({ tick, seq: this.seq++, node });
    let i = this.items.length - 1;
    while (i > 0 && this.less(i, (i - 1) >> 1)) {
      this.swap(i, (i - 1) >> 1);
      i = (i - 1) >> 1;
    }
  }
  pop(): TreeNode | undefined {
    const top = this.items[0];
    const last = this.items.pop();
    if (top === undefined || last === undefined) return undefined;
    if (this.items.length > 0) {
      this.items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.items.length && this.less(l, m)) m = l;
        if (r < this.items.length && this.less(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top.node;
  }
}

export class ApproxTree {
  private readonly root = new TreeNode('', null);
  private tick = 0;
  private readonly sizes = new Map<string, number>();

  /** Characters the tenant owns in the tree. */
  size(tenant: string): number {
    return this.sizes.get(tenant) ?? 0;
  }

  tenants(): string[] {
    return [...this.sizes.keys()];
  }

  private own(node: TreeNode, tenant: string, tick: number): void {
    if (!node.tenants.has(tenant)) this.sizes.set(tenant, this.size(tenant) + node.chars);
    node.tenants.set(tenant, tick);
  }

  /** Records that `text` was routed to `tenant`. */
  insert(text: string, tenant: string): void {
    const tick = ++this.tick;
    let node = this.root;
    this.own(node, tenant, tick);
    let at = 0;
    while (at < text.length) {
      const first = text.codePointAt(at)!;
      const child = node.children.get(first);
      if (child === undefined) {
        const leaf = new TreeNode(text.slice(at), node);
        node.children.set(first, leaf);
        this.own(leaf, tenant, tick);
        return;
      }
      const shared = sharedUnits(text, at, child.text);
      if (shared < child.text.length) this.split(child, shared);
      const next = node.children.get(first)!;
      this.own(next, tenant, tick);
      node = next;
      at += shared;
    }
  }

  /** Splits `child` after `units` code units: a new parent with the head, owned by the same tenants. */
  private split(child: TreeNode, units: number): void {
    const parent = child.parent!;
    const head = new TreeNode(child.text.slice(0, units), parent);
    head.tenants = new Map(child.tenants);
    child.text = child.text.slice(units);
    child.chars -= head.chars;
    child.parent = head;
    parent.children.set(head.text.codePointAt(0)!, head);
    head.children.set(child.text.codePointAt(0)!, child);
  }

  /** The longest prefix of `text` in the tree, whichever tenants routed it. */
  match(text: string): PrefixMatch {
    let node = this.root;
    let deepest = this.root;
    let units = 0;
    while (units < text.length) {
      const child = node.children.get(text.codePointAt(units)!);
      if (child === undefined) break;
      const shared = sharedUnits(text, units, child.text);
      units += shared;
      deepest = child;
      if (shared < child.text.length) break;
      node = child;
    }
    let tenant: string | null = null;
    let latest = -1;
    for (const [t, tick] of deepest.tenants)
      if (tick > latest) {
        tenant = t;
        latest = tick;
      }
    return { matchedChars: codePoints(text, 0, units), inputChars: codePoints(text, 0, text.length), tenant };
  }

  /** The longest prefix of `text` that `tenant` owns (code points). */
  matchTenant(text: string, tenant: string): number {
    let node = this.root;
    let units = 0;
    while (units < text.length) {
      const child = node.children.get(text.codePointAt(units)!);
      if (child === undefined || !child.tenants.has(tenant)) break;
      const shared = sharedUnits(text, units, child.text);
      units += shared;
      if (shared < child.text.length) break;
      node = child;
    }
    return codePoints(text, 0, units);
  }

  private ownsNoChild(node: TreeNode, tenant: string): boolean {
    for (const c of node.children.values()) if (c.tenants.has(tenant)) return false;
    return true;
  }

  /** Evicts each tenant's least recently used leaves until it owns at most `maxSize` characters. */
  evict(maxSize: number): void {
    for (const tenant of this.tenants()) {
      if (this.size(tenant) <= maxSize) continue;
      const heap = new LeafHeap();
      const stack = [...this.root.children.values()];
      while (stack.length > 0) {
        const node = stack.pop()!;
        const tick = node.tenants.get(tenant);
        if (tick === undefined) continue;
        if (this.ownsNoChild(node, tenant)) heap.push(tick, node);
        else stack.push(...node.children.values());
      }
      while (this.size(tenant) > maxSize && heap.size > 0) {
        const node = heap.pop()!;
        node.tenants.delete(tenant);
        this.sizes.set(tenant, this.size(tenant) - node.chars);
        const parent = node.parent!;
        if (node.tenants.size === 0) parent.children.delete(node.text.codePointAt(0)!);
        const parentTick = parent.tenants.get(tenant);
        if (parent !== this.root && parentTick !== undefined && this.ownsNoChild(parent, tenant))
          heap.push(parentTick, parent);
      }
    }
  }
}
