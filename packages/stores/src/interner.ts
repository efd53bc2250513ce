/**
 * One copy of each string, and of each list of strings, that many rows repeat (types, sources, categories,
 * workspace ids, lists of actor names: 100k items repeat a few hundred), where each row read from the
 * database brings its own copies. Never forgets: for values of which there are few.
 */
export class Interner {
  private readonly strings = new Map<string, string>();
  private readonly lists = new Map<string, readonly string[]>();

  string(value: string): string {
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  }

  /** The list as one frozen copy, its strings interned too. */
  list(values: readonly string[]): readonly string[] {
    const key = values.join('\u0000');
    let known = this.lists.get(key);
    if (!known) this.lists.set(key, (known = Object.freeze(values.map((v) => this.string(v)))));
    return known;
  }
}
