/**
 * Secrets of every family SPEC 16 names, as fast-check arbitraries and as fixed samples.
 * Every secret is assembled at run time, so that no scanner mistakes this file for a leak.
 *
 * A secret comes with its `cores`: the parts that must not survive redaction anywhere (the
 * token itself, a password, each line of a key's body). Cores are random and long enough
 * that finding one in an output can only mean a leak.
 */
import fc from "fast-check";

export interface Secret {
  family: string;
  /** The text as it appears in input: a header, a pair, a URL, a bare token. */
  text: string;
  cores: string[];
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const B64URL = ALNUM + "_-";
const B64 = ALNUM + "+/";

// Arrays of characters, not fc.string: that one mixes in words like "toString", which a core must never be.
const chars = (alphabet: string, min: number, max = min) => fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""));
const join = (...parts: string[]) => parts.join("");

const bearer = fc.tuple(fc.constantFrom("Bearer", "bearer", "BEARER"), fc.constantFrom(" ", "\t", "  ", " \t"), chars(ALNUM + "._~+/-", 24, 48)).map(([word, space, token]): Secret => ({ family: "bearer", text: join(word, space, token), cores: [token] }));

const stripe = fc.tuple(fc.constantFrom("sk", "rk"), fc.constantFrom("live", "test"), chars(ALNUM, 24, 32)).map(([a, b, rest]): Secret => {
  const text = join(a, "_", b, "_", rest);
  return { family: "stripe", text, cores: [rest] };
});

const aws = fc.tuple(fc.constantFrom("AKIA", "ASIA"), chars(UPPER_DIGITS, 16)).map(([prefix, rest]): Secret => ({ family: "aws", text: prefix + rest, cores: [prefix + rest] }));

const b64url = (text: string) => Buffer.from(text).toString("base64url");
const jwt = fc.tuple(chars(ALNUM, 6, 12), chars(B64URL, 32, 43)).map(([subject, signature]): Secret => {
  const payload = b64url(JSON.stringify({ sub: subject, iat: 1516239022 }));
  const text = [b64url(JSON.stringify({ alg: "HS256", typ: "JWT" })), payload, signature].join(".");
  return { family: "jwt", text, cores: [payload, signature] };
});

// Keys that contain a key word anywhere, in any case: the `\b` of the old pattern missed `access_token`.
const KEYS = ["token", "access_token", "client_secret", "DB_PASSWORD", "password", "Passwd", "api_key", "apikey", "X-Api-Key", "AWS_ACCESS_KEY", "secret", "refresh_token"];
const keyValue = fc
  .tuple(
    fc.constantFrom(...KEYS),
    fc.constantFrom("=", ": ", ":", " = ", "=\t"),
    fc.constantFrom("", '"', "'"),
    chars(ALNUM, 12, 24),
  )
  .map(([key, sep, quote, value]): Secret => ({ family: "key-value", text: join(key, sep, quote, value, quote), cores: [value] }));
const jsonPair = fc.tuple(fc.constantFrom(...KEYS), chars(ALNUM, 12, 24)).map(([key, value]): Secret => ({ family: "json pair", text: `"${key}": "${value}"`, cores: [value] }));

const github = fc.oneof(
  fc.tuple(fc.constantFrom("ghp", "gho", "ghs", "ghu"), chars(ALNUM, 36)).map(([prefix, rest]): Secret => ({ family: "github", text: join(prefix, "_", rest), cores: [rest] })),
  fc.tuple(chars(ALNUM, 22), chars(ALNUM + "_", 59)).map(([a, b]): Secret => ({ family: "github", text: join("github", "_pat_", a, "_", b), cores: [a, b] })),
);

const slack = fc.tuple(fc.constantFrom("a", "b", "p", "r", "s"), chars("0123456789", 10, 12), chars("0123456789", 10, 12), chars(ALNUM, 24)).map(([t, a, b, c]): Secret => ({ family: "slack", text: join("xox", t, "-", a, "-", b, "-", c), cores: [c] }));

// OpenAI's two key forms are two families, so that every fixed sample holds both: the
// independent scanner knows only the project form, and a test that it is not blind must
// not depend on a random draw having made one.
const openaiLegacy = chars(ALNUM, 48).map((rest): Secret => ({ family: "openai", text: join("sk", "-", rest), cores: [rest] }));
const openai = fc.tuple(chars(B64URL, 58), chars(B64URL, 58)).map(([a, b]): Secret => ({ family: "openai", text: join("sk", "-proj-", a, "T3Blbk", "FJ", b), cores: [a, b] }));

const anthropic = chars(B64URL, 93).map((rest): Secret => ({ family: "anthropic", text: join("sk", "-ant-api03-", rest, "AA"), cores: [rest] }));

const google = chars(B64URL, 35).map((rest): Secret => ({ family: "google", text: join("AI", "za", rest), cores: [rest] }));

const privateKey = fc.tuple(fc.constantFrom("RSA ", "EC ", "OPENSSH ", ""), fc.array(chars(B64, 64), { minLength: 2, maxLength: 4 }), chars(B64, 20, 40)).map(([type, lines, last]): Secret => {
  const body = [...lines, last + "=="];
  const text = [`-----BEGIN ${type}PRIVATE KEY-----`, ...body, `-----END ${type}PRIVATE KEY-----`].join("\n");
  return { family: "private key", text, cores: body.map((l) => l.slice(0, 32)) };
});

const urlPassword = fc.tuple(fc.constantFrom("https", "postgres", "mongodb", "redis", "mysql"), chars("abcdefghijklmnopqrstuvwxyz", 4, 8), chars(ALNUM, 12, 20)).map(([scheme, user, password]): Secret => ({
  family: "url password",
  text: `${scheme}://${user}:${password}@db.internal.example:5432/app`,
  cores: [password],
}));

export const FAMILIES = { bearer, stripe, aws, jwt, keyValue, jsonPair, github, slack, openaiLegacy, openai, anthropic, google, privateKey, urlPassword } as const;

/** Any secret of any family. */
export const anySecret: fc.Arbitrary<Secret> = fc.oneof(...Object.values(FAMILIES));

/** One fixed sample of each family (a seeded draw), for table tests and end-to-end runs. */
export function sampleSecrets(seed = 1): Secret[] {
  return Object.values(FAMILIES).map((arb, i) => fc.sample(arb, { seed: seed + i, numRuns: 1 })[0]);
}

/** The cores of `secrets` found in `text`: empty when nothing leaked. */
export function leaks(text: string, secrets: readonly Secret[]): string[] {
  return secrets.flatMap((s) => s.cores.filter((core) => text.includes(core)).map((core) => `${s.family}: ${core}`));
}
