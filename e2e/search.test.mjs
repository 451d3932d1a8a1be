// The website in a real browser: Debian's Chromium driven by playwright-core.
// Indexes tests/fixtures/web (and the rest of tests/fixtures), starts
// `errdex serve` on a free port, pastes a traceback into the search box,
// opens the matching page, checks each section, that a hostile template
// stays inert, that words alone find a message, that listings page with
// their parameters kept, and that no page of a sample of up to 100 is wider
// than the screen at 375, 768 or 1280 px; saves screenshots next to this
// run's output.
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
// The rest of the fixture corpus, each directory a library: enough pages
// (a hundred-odd errors in one library, long identifiers, C++ and Python
// code) to sample for paging and overflow without a big download.
for (const [dir, name] of [["python/idioms", "test/python-idioms"], ["cpp/idioms", "test/cpp-idioms"],
                           ["guards", "test/guards"]]) {
  execFileSync(errdex, ["--db", db, "index", join(source, "tests/fixtures", dir), "--name", name, "-q"]);
}

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

  // 5. Words, not a message: the full-text index answers, with the fix.
  await page.setViewportSize({ width: 1200, height: 900 });
  await page.goto(base + "/");
  // (The fixture corpus has "Invalid pipeline stage" thrice: in C++, in
  // Python, and in this library with its placeholder.)
  await page.fill("#q", "RuntimeError pipeline");
  const byWords = page.locator("#results .match").first();
  await byWords.waitFor({ timeout: 10000 });
  assert.match(await byWords.locator("a.result").textContent(), /Invalid pipeline stage/);
  assert.match(await byWords.locator(".score").textContent(), /by words/);
  // A traceback's match shows the values it read and the fix.
  await page.fill("#q", traceback);
  await page.locator("#results .match dl.values").first().waitFor({ timeout: 10000 });
  const read = await page.locator("#results .match").first().textContent();
  assert.match(read, /stage\s*2/, "the value of {stage} is not shown");
  assert.ok(await page.locator("#results .match").first().locator(".fix-solution, pre.fix-after").count() >= 1,
    "the fix is not shown");
  await page.screenshot({ path: join(out, "search-words.png"), fullPage: true });

  // 6. Paging: next, an order and a filter, each link keeping the others.
  await page.goto(base + "/libraries/test/python-idioms?per=20");
  assert.equal(await page.locator("ul.errors li").count(), 20);
  await page.locator("nav.pager a[rel=next]").first().click();
  await page.waitForURL(/page=2/);
  assert.match(page.url(), /per=20/);
  assert.match(await page.textContent("nav.pager .count"), /page 2 of \d+/);
  await page.locator("p.controls a", { hasText: "type" }).click();
  await page.waitForURL(/sort=type/);
  assert.match(page.url(), /per=20/);
  assert.doesNotMatch(page.url(), /page=/, "a new order starts at page 1");
  const types = await page.locator("ul.errors .exc").allTextContents();
  assert.deepEqual(types, [...types].sort(), "sort=type is not in type order");
  await page.locator("nav.pager a[rel=next]").first().click();
  await page.waitForURL(/page=2/);
  assert.match(page.url(), /sort=type/);
  assert.match(page.url(), /per=20/);
  const familyLink = page.locator("ul.errors .meta a").first();
  const family = (await familyLink.textContent()).trim();
  await familyLink.click();
  await page.waitForURL(/family=/);
  assert.match(page.url(), /sort=type/);
  for (const meta of await page.locator("ul.errors .meta").allTextContents()) {
    assert.ok(meta.includes(family), `a row outside family ${family}: ${meta}`);
  }
  assert.match(await page.textContent("p.filter"), new RegExp("Only family " + family));

  // 7. No page wider than the screen at three widths, on a sample of up
  // to 100 pages: home, every listing with its second page and orders,
  // families, and error pages spread over every library.
  const urls = new Set(["/"]);
  const libraries = await (await fetch(base + "/api/libraries")).json();
  const families = await (await fetch(base + "/api/families")).json();
  for (const l of libraries) {
    urls.add(l.page);
    urls.add(l.page + "?per=20&page=2");
    urls.add(l.page + "?sort=file");
  }
  for (const f of families.filter((f) => f.errors > 0)) urls.add(f.page);
  const errorPages = [];
  for (const l of libraries) {
    const list = await (await fetch(base + "/api/libraries/" + l.name + "/errors?per=500")).json();
    errorPages.push(list.items.map((e) => e.page));
  }
  // Round-robin over the libraries, so that every one is sampled.
  for (let i = 0; urls.size < 100 && errorPages.some((p) => i < p.length); ++i) {
    for (const p of errorPages) if (i < p.length && urls.size < 100) urls.add(p[i]);
  }
  const wide = [];
  for (const url of urls) {
    await page.setViewportSize({ width: 1280, height: 900 });
    const res = await page.goto(base + url);
    assert.equal(res.status(), 200, url);
    for (const width of [375, 768, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (over > 1) wide.push(`${url} at ${width}px: ${over}px too wide`);
    }
  }
  assert.deepEqual(wide, [], "pages wider than the screen");
  console.log(`e2e: overflow checked on ${urls.size} pages at 375, 768 and 1280 px`);
  assert.deepEqual(consoleErrors, [], "the browser console reported errors");
  console.log("e2e: search, word search, paging, error page, escaping and widths OK; screenshots in " + out);

} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
  server.kill();
}
process.exit(failed ? 1 : 0);
