/** A binary min-heap of numbers (plan indexes): ready steps start in plan order. */
export class MinHeap {
  #a: number[] = [];

  get size(): number {
    return this.#a.length;
  }

  peek(): number | undefined {
    return this.#a[0];
  }

  push(v: number): void {
    const a = this.#a;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= v) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = v;
  }

  pop(): number | undefined {
    const a = this.#a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && a[r]! < a[l]! ? r : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }

  clear(): void {
    this.#a = [];
  }

  toArray(): number[] {
    return [...this.#a].sort((x, y) => x - y);
  }
}
