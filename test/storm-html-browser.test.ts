/**
 * The storm report's HTML page in real headless Chromium: it renders its charts and tables
 * from the page alone (no request, no script, no console error), shows the regression the
 * comparison found, the sweep's map, and stays readable on a phone.
 */
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failbook, REPO } from "./helpers/cli.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`storm-html-browser: skipped, ${CHROMIUM} is absent (apt-get install -y chromium)`);

const EXAMPLE = join(REPO, "examples/storm-retry-collapse");
const out = mkdtempSync(join(tmpdir(), "failbook-storm-html-"));
/** Screenshots a person can look at after the run. */
const SHOTS = join(REPO, "test-results");

describe.skipIf(!hasChromium)("the storm report page in Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function open(file: string, width = 1280) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const url = pathToFileURL(file).href;
    const requests: string[] = [];
    const console: string[] = [];
    await context.route("**/*", (route) => (route.request().url() === url ? route.continue() : route.abort()));
    context.on("request", (r) => requests.push(r.url()));
    const page = await context.newPage();
    page.on("console", (m) => console.push(`${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => console.push(`pageerror: ${e.message}`));
    await page.goto(url);
    return { page, context, requests, console };
  }

  it("draws the comparison: both playbooks' time series, the phase shaded, the regression marked", async () => {
    const file = join(out, "against.html");
    const r = failbook(["--config", "naive", "storm", "--against", ".", "--format", "html", "--out", file], { cwd: EXAMPLE });
    expect(r.code).toBe(1);
    const { page, context, requests, console } = await open(file);
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(console).toEqual([]);
    expect(await page.locator("script").count()).toBe(0);
    // Two sides, two charts each (calls and attempts; the upstream's load), every line drawn with one point a bucket.
    const lines = await page.$$eval("svg polyline", (ps) => ps.map((p) => (p.getAttribute("points") ?? "").split(" ").length));
    expect(lines).toEqual([60, 60, 60, 60, 60, 60, 60, 60, 60, 60]);
    expect(await page.locator("svg rect.phase").count()).toBe(4);
    // The lines have height: the page draws the figures, not a flat line.
    const box = await page.locator("svg").first().boundingBox();
    expect(box!.width).toBeGreaterThan(800);
    expect(await page.textContent("table")).toContain("metastable");
    expect(await page.locator("td.regression").first().textContent()).toContain("metastable");
    expect(await page.textContent("body")).toContain("Regressed: verdict recovered -> metastable");
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "storm-against.png"), fullPage: true });
    await context.close();
  });

  it("draws a sweep's map with the operating point outlined, and fits a phone's width", async () => {
    const file = join(out, "sweep.html");
    failbook(["storm", "--sweep", "arrival_x=1..4:1", "--sweep", "trigger_ms=5000..15000:5000", "--format", "html", "--out", file], { cwd: EXAMPLE });
    const { page, context, console } = await open(file, 390);
    expect(console).toEqual([]);
    const cells = await page.$$eval("table.map td", (tds) => tds.map((td) => td.className));
    expect(cells).toHaveLength(12);
    expect(cells.filter((c) => c.includes("operating"))).toHaveLength(1);
    expect(cells.some((c) => c.startsWith("cell-stable"))).toBe(true);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, "storm-sweep-phone.png"), fullPage: true });
    await context.close();
  });
});
