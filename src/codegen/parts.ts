/**
 * The generated module as parts, each written three ways: as TypeScript, as JavaScript and
 * as declarations. The emitter builds every declaration once, with its types in named slots
 * (a constant's type, a function's parameter types); the JavaScript leaves them out and the
 * declarations leave out the code. So `gen ts --out x.js` writes the very module `--out x.ts`
 * does, without a compiler at run time: the embedded sources' JavaScript and declarations are
 * made by the build (scripts/embed-classifier.mjs).
 */

/** One piece of the module in each form; a form a piece has no text in is "". */
export interface Part {
  readonly ts: string;
  readonly js: string;
  readonly dts: string;
}

export type Form = keyof Part;

/**
 * A part whose forms are made when read: `gen ts` writes one form (`--out x.js` two), and
 * making the others too cost about 5 % of its CPU at 10,000 codes. Each form is read once
 * (the sections once per form written), so nothing is kept.
 */
function lazy(make: (form: Form) => string): Part {
  return {
    get ts() {
      return make("ts");
    },
    get js() {
      return make("js");
    },
    get dts() {
      return make("dts");
    },
  };
}

/** Text every form carries as is: comments. */
export const comment = (text: string): Part => ({ ts: text, js: text, dts: text });

/** Types only: nothing in JavaScript. */
export const types = (text: string): Part => ({ ts: text, js: "", dts: text });

export interface ConstantSpec {
  /** Its JSDoc (with its line end), or "". */
  doc?: string;
  exported: boolean;
  name: string;
  /** The annotation TypeScript gives it, and its type in the declarations. */
  type?: string;
  /** The value as JavaScript. */
  value: string;
  /** The value as TypeScript (with `as const`, a type argument), when it differs. */
  tsValue?: string;
  /** Its type in the declarations when it has no annotation (what `as const` infers). */
  declared?: string;
}

/** `const name: type = value;`, exported or not. */
export function constant(c: ConstantSpec): Part {
  const doc = c.doc ?? "";
  const exp = c.exported ? "export " : "";
  const type = c.type ?? c.declared;
  if (type === undefined) throw new Error(`constant ${c.name} needs a type for its declaration`);
  return lazy((form) => {
    if (form === "ts") return `${doc}${exp}const ${c.name}${c.type === undefined ? "" : `: ${c.type}`} = ${c.tsValue ?? c.value};`;
    if (form === "js") return `${doc}${exp}const ${c.name} = ${c.value};`;
    return c.exported ? `${doc}export declare const ${c.name}: ${type};` : "";
  });
}

export interface Parameter {
  name: string;
  type: string;
  /** A default value, which makes it optional in the declaration. */
  init?: string;
}

export interface FunctionSpec {
  doc?: string;
  exported: boolean;
  name: string;
  params: readonly Parameter[];
  returns: string;
  /** The body's lines, JavaScript that TypeScript accepts as is. */
  body: string;
}

/** `function name(params): returns { body }`. */
export function func(f: FunctionSpec): Part {
  const doc = f.doc ?? "";
  const exp = f.exported ? "export " : "";
  const init = (p: Parameter) => (p.init === undefined ? "" : ` = ${p.init}`);
  return lazy((form) => {
    if (form === "ts") return `${doc}${exp}function ${f.name}(${f.params.map((p) => `${p.name}: ${p.type}${init(p)}`).join(", ")}): ${f.returns} {\n${f.body}\n}`;
    if (form === "js") return `${doc}${exp}function ${f.name}(${f.params.map((p) => `${p.name}${init(p)}`).join(", ")}) {\n${f.body}\n}`;
    return f.exported ? `${doc}export declare function ${f.name}(${f.params.map((p) => `${p.name}${p.init === undefined ? "" : "?"}: ${p.type}`).join(", ")}): ${f.returns};` : "";
  });
}

/** A blank line between parts (in a form, only between two parts that have text there). */
export const BLANK = "blank";

/**
 * Parts one after another, a line end between them; BLANK for a blank line. A form keeps
 * the parts it has text in, and no blank line at its ends or two in a row.
 */
export function lines(...items: readonly (Part | typeof BLANK)[]): Part {
  return lazy((f) => {
    const out: string[] = [];
    let blank = false;
    for (const item of items) {
      if (item === BLANK) {
        blank = out.length > 0;
        continue;
      }
      const text = item[f];
      if (text === "") continue;
      if (blank) out.push("");
      blank = false;
      out.push(text);
    }
    return out.join("\n");
  });
}
