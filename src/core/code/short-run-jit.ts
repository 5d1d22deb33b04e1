// Keeps the extraction code of a parsing thread out of the engine's top optimizing tier
// (docs/code.md#where-it-runs). JavaScriptCore compiles a function hot enough with FTL on background
// threads; for the tree walk of an index run (tree-sitter's node accessors and extract.ts) those
// compiles cost about 0.7 s of CPU per thread, more than the faster code gives back in a run of a
// few seconds, and on two cores they take the CPU from the parsing itself. The next tier down (DFG)
// still compiles them. Measured on this repository: −10% CPU and −15% wall for a cold index.
import { noFTL } from "bun:jsc";

/** Every function, getter and setter of each object (a prototype, a module's functions). */
export function keepOutOfFtl(...owners: object[]): void {
  for (const owner of owners) {
    for (const property of Object.values(Object.getOwnPropertyDescriptors(owner))) {
      for (const fn of [property.value, property.get, property.set]) if (typeof fn === "function") noFTL(fn);
    }
  }
}
