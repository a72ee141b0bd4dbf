/**
 * The colours failbook's text printers use, described by their shape: chalk's instance (the
 * CLI's) fits it, and so does a plain one. The library's declarations name this type and not
 * chalk's, so a user's compiler never reads chalk's (SPEC 17).
 */
export type Paint = (text: string) => string;

/** A colour and its bold variant. */
export type Hue = Paint & { readonly bold: Paint };

export interface Colors {
  readonly bold: Paint;
  readonly dim: Paint;
  readonly red: Hue;
  readonly green: Hue;
  readonly yellow: Hue;
  readonly cyan: Hue;
}
