/**
 * The real metrics pipeline for tests (SPEC 24): `@opentelemetry/sdk-metrics` with the
 * Prometheus exporter on a free loopback port, registered as the global MeterProvider, and a
 * scrape over HTTP parsed into series.
 */
import { metrics } from "@opentelemetry/api";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { freePort } from "./net.js";


export interface Scraper {
  /** The exposition text, as Prometheus would fetch it. */
  text(): Promise<string>;
  /** Every sample, keyed `name{label="value",...}` (labels sorted, the exporter's `otel_scope_*` left out). */
  series(): Promise<Map<string, number>>;
  close(): Promise<void>;
}

/** Register a MeterProvider whose Prometheus exporter listens on a free loopback port. */
export async function prometheusPipeline(): Promise<Scraper> {
  const port = await freePort();
  const exporter = new PrometheusExporter({ host: "127.0.0.1", port, preventServerStart: true });
  await exporter.startServer();
  const provider = new MeterProvider({ readers: [exporter] });
  metrics.setGlobalMeterProvider(provider);
  const text = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    if (!response.ok) throw new Error(`scrape: HTTP ${response.status}`);
    return response.text();
  };
  return {
    text,
    series: async () => parseExposition(await text()),
    close: async () => {
      metrics.disable();
      await provider.shutdown();
    },
  };
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/gy;

/** The Prometheus text format's samples; a line that is neither a comment nor a sample fails the parse. */
export function parseExposition(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const labels: [string, string][] = [];
    LABEL.lastIndex = 0;
    const body = m[2] ?? "";
    let l: RegExpExecArray | null;
    while (LABEL.lastIndex < body.length && (l = LABEL.exec(body)) !== null) labels.push([l[1], l[2].replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c))]);
    if (LABEL.lastIndex !== body.length) throw new Error(`labels that do not parse: ${JSON.stringify(line)}`);
    series.set(seriesKey(m[1], Object.fromEntries(labels.filter(([k]) => !k.startsWith("otel_scope_")))), Number(m[3]));
  }
  return series;
}

/** `name{a="1",b="2"}` with the labels sorted (values as JSON strings), the key `parseExposition` uses. */
export function seriesKey(name: string, labels: Record<string, string> = {}): string {
  const keys = Object.keys(labels).sort();
  return keys.length === 0 ? name : `${name}{${keys.map((k) => `${k}=${JSON.stringify(labels[k])}`).join(",")}}`;
}
