// The website in a real browser: Debian's Chromium driven by playwright-core.
// Indexes tests/fixtures/web, starts `errdex serve` on a free port, pastes a
// traceback into the search box, opens the matching page, checks each
// section, that a hostile template stays inert, and that the page fits a
// phone's width; saves screenshots next to this run's output.
// Usage: node search.test.mjs ERRDEX_BINARY SOURCE_DIR OUT_DIR
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const [errdex, source, out] = process.argv.slice(2);
mkdirSync(out, { recursive: true });
const db = join(mkdtempSync(join(tmpdir(), "errdex-e2e-")), "c.db");
execFileSync(errdex, ["--db", db, "index", join(source, "tests/fixtures/web/lib"), "--name", "test/web", "-q"]);

const server = spawn(errdex, ["--db", db, "serve", "--port", "0"], { stdio: ["ignore", "ignore", "pipe"] });
const base = await new Promise((resolve, reject) => {
  let err = "";
  const timer = setTimeout(() => reject(new Error("errdex serve did not start: " + err)), 10000);
  server.stderr.on("data", (d) => {
    err += d;
    const m = /on (http:\/\/[0-9.]+:\d+)\//.exec(err);
    if (m) { clearTimeout(timer); resolve(m[1]); }
  });
  server.on("exit", (code) => reject(new Error(`errdex serve exited (${code}): ${err}`)));
});

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const dialogs = [];
  page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
  const consoleErrors = [];
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });

  // 1. Paste a traceback into the search box; the match appears as we type.
  await page.goto(base + "/");
  const traceback = [
    "Traceback (most recent call last):",
    '  File "/home/me/app.py", line 40, in <module>',
    "    run(2)",
    '  File "/site-packages/lib/pipeline.py", line 28, in register',
    '    raise RuntimeError(f"Invalid pipeline stage: {stage}")',
    "RuntimeError: Invalid pipeline stage: 2",
  ].join("\n");
  await page.fill("#q", traceback);
  const first = page.locator("#results .match a.result").first();
  await first.waitFor({ timeout: 10000 });
  assert.match(await first.textContent(), /Invalid pipeline stage: \{stage\}/);
  await page.screenshot({ path: join(out, "search.png"), fullPage: true });

  // 2. Open the page and check each section the code supports.
  await first.click();
  await page.waitForSelector("h1.msg");
  assert.equal((await page.textContent("h1.msg")).trim(), "Invalid pipeline stage: {stage}");
  for (const id of ["message", "meaning", "source", "solutions", "fix", "when", "family", "related"]) {
    assert.ok(await page.locator(`section#${id}`).count() === 1, `section ${id} is missing`);
  }
  assert.match(await page.textContent("section#when"), /stage not in \(0, 1\)/);
  assert.match(await page.textContent("section#solutions"), /`?0`? or `?1`?|0.*1/);
  assert.match(await page.textContent("section#family"), /Invalid choice or enum value/);
  assert.ok(await page.locator("#source .line.hl").count() >= 1, "the raise line is not highlighted");
  assert.match(await page.textContent("footer.provenance"), /Static analysis of test\/web/);
  await page.screenshot({ path: join(out, "error-page.png"), fullPage: true });

  // 3. The hostile template renders as text, and no script of it runs.
  await page.goto(base + "/");
  await page.fill("#q", "ValueError: <script>alert('xss')</script> is not a name: <x");
  const hostile = page.locator("#results .match a.result").first();
  await hostile.waitFor({ timeout: 10000 });
  await hostile.click();
  await page.waitForSelector("h1.msg");
  assert.match(await page.textContent("h1.msg"), /<script>alert\('xss'\)<\/script>/);
  assert.equal(await page.locator("main script").count(), 0, "a template became a script element");
  assert.deepEqual(dialogs, [], "a script from the catalog ran");

  // 4. Phone width: nothing wider than the screen but the code blocks, which scroll.
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(base + "/errors/" + (await page.url()).split("/errors/")[1]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page is ${overflow}px wider than a phone`);
  await page.screenshot({ path: join(out, "error-page-phone.png"), fullPage: true });
  assert.deepEqual(consoleErrors, [], "the browser console reported errors");
  console.log("e2e: search, error page, escaping and phone width OK; screenshots in " + out);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
  server.kill();
}
process.exit(failed ? 1 : 0);
