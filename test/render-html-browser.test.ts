/**
 * The rendered HTML page in real headless Chromium: search, filters, anchors, deprecated
 * links, no network request, nothing from YAML executes, and a phone-sized viewport.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProject } from "../src/load/project.js";
import { renderRegistry } from "../src/render/render.js";
import { REPO } from "./helpers/cli.js";
import { NASTY, nastyProject, smallProject } from "./helpers/render-projects.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`render-html-browser: skipped, ${CHROMIUM} is absent (apt-get install -y chromium)`);

const out = mkdtempSync(join(tmpdir(), "failbook-html-"));
function pageFile(name: string, projectDir: string): string {
  const file = join(out, `${name}.html`);
  writeFileSync(file, renderRegistry(loadProject({ cwd: projectDir }).project, "html"));
  return pathToFileURL(file).href;
}

interface Opened {
  page: Page;
  context: BrowserContext;
  /** Every URL the page asked for, its own file included. */
  requests: string[];
  /** Console messages and uncaught errors. */
  console: string[];
  dialogs: string[];
}

describe.skipIf(!hasChromium)("the rendered HTML page in Chromium", () => {
  let browser: Browser;
  const opened: BrowserContext[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
  });
  afterAll(async () => {
    for (const c of opened) await c.close();
    await browser?.close();
  });

  async function open(url: string, options: { width?: number; height?: number; dark?: boolean } = {}): Promise<Opened> {
    const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 900 }, colorScheme: options.dark ? "dark" : "light" });
    opened.push(context);
    const requests: string[] = [];
    const console: string[] = [];
    const dialogs: string[] = [];
    // Anything but the page's own file is recorded and refused.
    const own = url.replace(/#.*$/, "");
    await context.route("**/*", (route) => (route.request().url() === own ? route.continue() : route.abort()));
    context.on("request", (r) => requests.push(r.url()));
    const page = await context.newPage();
    page.on("console", (m) => console.push(`${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => console.push(`pageerror: ${e.message}`));
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(url);
    return { page, context, requests, console, dialogs };
  }

  const visibleCodes = (page: Page) => page.$$eval("tr[data-search]", (rows) => rows.filter((r) => !(r as HTMLElement).hidden).map((r) => r.id));

  it("shows only the codes that match a code fragment typed in the search box", async () => {
    const { page, requests, console } = await open(pageFile("small", smallProject()));
    expect(await visibleCodes(page)).toHaveLength(6);
    await page.fill("[data-role=search]", "pay.");
    expect(await visibleCodes(page)).toEqual(["pay.declined", "pay.approval_pending"]);
    expect(await page.textContent("[data-role=count]")).toBe("2 of 6 codes");
    await page.fill("[data-role=search]", "NET.T");
    // net.reset matches too: it is deprecated in favour of net.timeout.
    expect(await visibleCodes(page)).toEqual(["net.reset", "net.timeout"]);
    expect(await page.isVisible("text=Reserved codes")).toBe(false);
    await page.fill("[data-role=search]", "no such thing");
    expect(await visibleCodes(page)).toEqual([]);
    expect(await page.isVisible("text=No code matches the search and filters.")).toBe(true);
    expect(requests).toEqual([page.url()]);
    expect(console).toEqual([]);
  });

  it("filters by class and by status", async () => {
    const { page } = await open(pageFile("small", smallProject()));
    await page.selectOption("[data-role=class]", "permanent");
    expect(await visibleCodes(page)).toEqual(["pay.declined", "pay.approval_pending"]);
    await page.selectOption("[data-role=status]", "reserved");
    expect(await visibleCodes(page)).toEqual(["pay.approval_pending"]);
    await page.selectOption("[data-role=class]", "");
    await page.selectOption("[data-role=status]", "deprecated");
    expect(await visibleCodes(page)).toEqual(["net.reset"]);
  });

  it("strikes a deprecated code through and links it to its replacement's anchor, even past the filters", async () => {
    const { page, requests } = await open(pageFile("small", smallProject()));
    expect(await page.$eval("tr[id='net.reset'] a.code", (a) => a.querySelector("s") !== null)).toBe(true);
    await page.selectOption("[data-role=status]", "deprecated");
    await page.click("tr[id='net.reset'] .replaced-by a");
    expect(new URL(page.url()).hash).toBe("#net.timeout");
    expect(await page.$eval(":target", (el) => el.id)).toBe("net.timeout");
    expect(await page.isVisible("tr[id='net.timeout']")).toBe(true);
    expect(await page.inputValue("[data-role=status]")).toBe("");
    expect(requests).toEqual([page.url().replace(/#.*$/, "")]);
  });

  it("opens at a code's anchor (the id is the code itself)", async () => {
    const { page, requests } = await open(pageFile("small", smallProject()) + "#http.rate_limited");
    expect(await page.$eval(":target", (el) => el.id)).toBe("http.rate_limited");
    expect(requests).toHaveLength(1);
  });

  it("runs nothing from the registry's texts and shows them literally", async () => {
    const { page, console, dialogs, requests } = await open(pageFile("nasty", nastyProject()));
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(console).toEqual([]); // a CSP violation would show here
    expect(requests).toEqual([page.url()]);
    const evil = "tr[id='evil|code`<b>']";
    expect(await page.textContent(`${evil} .summary`)).toBe(NASTY.summary);
    expect(await page.textContent("h1 .registry-name")).toBe(NASTY.name);
    expect(await page.$$eval("table[data-role=table] > tbody > tr[data-search]", (rows) => rows.length)).toBe(3);
    expect(await page.$$eval("td", (cells) => cells.filter((c) => c.closest("table")?.getAttribute("data-role") !== "table").length)).toBe(0);
    await page.click("tr[id='plain.old'] .replaced-by a");
    expect(await page.$eval(":target", (el) => el.id)).toBe("evil|code`<b>");
  });

  it.each([
    { name: "the small project", dir: () => smallProject() },
    { name: "the shipped project", dir: () => (existsSync(join(REPO, "playbooks/registry.yaml")) ? REPO : smallProject()) },
  ])("fits a phone's width, in light and dark mode: $name", async ({ name, dir }) => {
    const url = pageFile(name.replace(/\W+/g, "-"), dir());
    for (const dark of [false, true]) {
      const { page } = await open(url, { width: 375, height: 800, dark });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const [bg, fg] = await page.evaluate(() => [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]);
      expect(bg).not.toBe(fg);
      expect(bg).toBe(dark ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)");
    }
  });

  it("search on the shipped project keeps exactly the rows whose text holds the fragment", async () => {
    const dir = existsSync(join(REPO, "playbooks/registry.yaml")) ? REPO : smallProject();
    const { page } = await open(pageFile("shipped", dir));
    const first = (await visibleCodes(page))[0];
    const fragment = first.slice(Math.max(0, first.length - 5));
    await page.fill("[data-role=search]", fragment.toUpperCase());
    const rows = await page.$$eval("tr[data-search]", (trs) => trs.map((r) => ({ text: r.getAttribute("data-search") ?? "", hidden: (r as HTMLElement).hidden })));
    expect(rows.filter((r) => !r.hidden).length).toBeGreaterThan(0);
    for (const r of rows) expect(r.hidden).toBe(!r.text.includes(fragment.toLowerCase()));
  });
});
