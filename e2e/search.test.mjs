// The website in a real browser: Debian's Chromium driven by playwright-core.
// Indexes tests/fixtures/web (and the rest of tests/fixtures), starts
// `errdex serve` on a free port, pastes a traceback into the search box,
// opens the matching page, checks each section, that a hostile template
// stays inert, that a documentation URL in a message is a link, that words
// alone find a message, that listings page with their parameters kept, that
// no page of a sample of up to 100 is wider than the screen at 375, 768 or
// 1280 px, and that a static export on a host serving its 404.html sends an
// id in capitals to its page; saves screenshots next to this run's output.
// Usage: node search.test.mjs ERRDEX_BINARY SOURCE_DIR OUT_DIR
//
// ERRDEX_E2E_DB=FILE serves that catalog instead (read-only: a copy is
// safest) and runs the checks any catalog passes: words find messages
// (ERRDEX_E2E_WORDS, default "shape mismatch"), paging of the largest
// library, and the widths of a sample of ERRDEX_E2E_PAGES pages (default
// 100). For a real library's catalog, by hand: CI has none.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, existsSync, statSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const [errdex, source, out] = process.argv.slice(2);
mkdirSync(out, { recursive: true });
const real = process.env.ERRDEX_E2E_DB || "";
const sampleSize = Number(process.env.ERRDEX_E2E_PAGES || 100);
// What this run made in the temporary directory, removed at its end (never
// the catalog ERRDEX_E2E_DB names).
const temporary = [];
const scratch = (prefix) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
};
const db = real || join(scratch("errdex-e2e-"), "c.db");
if (!real) {
  execFileSync(errdex, ["--db", db, "index", join(source, "tests/fixtures/web/lib"), "--name", "test/web", "-q"]);
  // The rest of the fixture corpus, each directory a library: enough pages
  // (a hundred-odd errors in one library, long identifiers, C++ and Python
  // code) to sample for paging and overflow without a big download.
  for (const [dir, name] of [["python/idioms", "test/python-idioms"], ["cpp/idioms", "test/cpp-idioms"],
                             ["guards", "test/guards"]]) {
    execFileSync(errdex, ["--db", db, "index", join(source, "tests/fixtures", dir), "--name", name, "-q"]);
  }
}

// Waits below are for readiness, not timings: Playwright's own default
// (30 s), since a machine running the rest of the suite on every core can
// take more than 10 s to start the server or answer the first search.
const ready = 30000;
const server = spawn(errdex, ["--db", db, "serve", "--port", "0"], { stdio: ["ignore", "ignore", "pipe"] });
const base = await new Promise((resolve, reject) => {
  let err = "";
  const timer = setTimeout(() => reject(new Error("errdex serve did not start: " + err)), ready);
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
  let expect404s = false;  // the static host's 404 answers, which the browser logs
  page.on("console", (m) => { if (m.type() === "error" && !expect404s) consoleErrors.push(m.text()); });

  if (!real) {
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
    await first.waitFor({ timeout: ready });
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
    await hostile.waitFor({ timeout: ready });
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
    await byWords.waitFor({ timeout: ready });
    assert.match(await byWords.locator("a.result").textContent(), /Invalid pipeline stage/);
    assert.match(await byWords.locator(".score").textContent(), /by words/);
    // A traceback's match shows the values it read and the fix.
    await page.fill("#q", traceback);
    await page.locator("#results .match dl.values").first().waitFor({ timeout: ready });
    const read = await page.locator("#results .match").first().textContent();
    assert.match(read, /stage\s*2/, "the value of {stage} is not shown");
    assert.ok(await page.locator("#results .match").first().locator(".fix-solution, pre.fix-after").count() >= 1,
      "the fix is not shown");
    await page.screenshot({ path: join(out, "search-words.png"), fullPage: true });

    // A documentation URL in a message is a link on its page (and only there:
    // a listing's row is one link already).
    const withUrl = (await (await fetch(base + "/api/libraries/test/python-idioms/errors?per=500")).json())
      .items.find((e) => e.template.includes("https://example.invalid/errors"));
    assert.ok(withUrl, "the fixture with a documentation URL is missing");
    await page.goto(base + withUrl.page);
    const doc = page.locator("section#message a.doc");
    assert.equal(await doc.count(), 1);
    assert.match(await doc.getAttribute("href"), /^https:\/\/example\.invalid\/errors#\w*$/);
  }

  const libraries = await (await fetch(base + "/api/libraries")).json();
  const families = await (await fetch(base + "/api/families")).json();
  const largest = [...libraries].sort((a, b) => b.errors - a.errors)[0];

  // 5b. Words, on any catalog: the full-text index answers a phrase.
  if (real) {
    const words = process.env.ERRDEX_E2E_WORDS || "shape mismatch";
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(base + "/");
    await page.fill("#q", words);
    await page.locator("#results .match").first().waitFor({ timeout: ready });
    const found = await page.locator("#results .match a.result").allTextContents();
    assert.ok(found.length > 0, `"${words}" finds nothing`);
    assert.ok(found.some((t) => words.toLowerCase().split(/\s+/).every((w) => t.toLowerCase().includes(w))),
      `no match of "${words}" has its words: ${found.join(" | ")}`);
    console.log(`e2e: "${words}" finds ${found.length}: ${found.slice(0, 3).map((t) => t.slice(0, 80)).join(" | ")}`);
    await page.screenshot({ path: join(out, "search-words.png"), fullPage: true });
  }

  // 6. Paging of the largest library: next, an order and a filter, each
  // link keeping the others.
  await page.goto(base + largest.page + "?per=20");
  assert.equal(await page.locator("ul.errors li").count(), Math.min(20, largest.errors));
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
  // The last page, and one past it (the last again).
  const last = Math.ceil(largest.errors / 20);
  await page.goto(base + largest.page + `?per=20&page=${last + 5}`);
  assert.match(await page.textContent("nav.pager .count"), new RegExp(`page ${last} of ${last}$`));
  assert.equal(await page.locator("nav.pager a[rel=next]").count(), 0);
  console.log(`e2e: paging ${largest.name}: ${largest.errors} errors, ${last} pages of 20`);

  // 7. No page wider than the screen at three widths, on a sample of up
  // to 100 pages: home, every listing with its second page and orders,
  // families, and error pages spread evenly over every library's listing.
  const urls = new Set(["/"]);
  for (const l of libraries) {
    urls.add(l.page);
    urls.add(l.page + "?per=20&page=2");
    urls.add(l.page + "?sort=file");
  }
  for (const f of families.filter((f) => f.errors > 0)) {
    urls.add(f.page);
    if (f.errors > 100) urls.add(f.page + "?page=2");
  }
  const errorPages = [];
  const documented = [];  // pages of messages with a URL in them
  for (const l of libraries) {
    const all = [];
    for (let n = 1; n <= 20; ++n) {
      const list = await (await fetch(base + "/api/libraries/" + l.name + `/errors?per=500&page=${n}`)).json();
      all.push(...list.items.map((e) => e.page));
      documented.push(...list.items.filter((e) => /https?:\/\//i.test(e.template)).map((e) => e.page));
      if (n >= list.pages) break;
    }
    errorPages.push(all);
  }
  for (const p of documented.slice(0, 10)) urls.add(p);
  // Round-robin over the libraries, each listing in an order that spreads
  // over all of it however many are taken (0, 1/2, 1/4, 3/4, ...: van der
  // Corput), so that every library and every part of a big one is sampled.
  const spread = (list) => {
    const out = [];
    const seen = new Set();
    for (let k = 0; out.length < list.length && k < 4 * list.length + 4; ++k) {
      let x = 0;
      for (let i = k, f = 0.5; i; i >>= 1, f /= 2) if (i & 1) x += f;
      const j = Math.floor(x * list.length);
      if (!seen.has(j)) { seen.add(j); out.push(list[j]); }
    }
    return out;
  };
  const picks = errorPages.map(spread);
  for (let i = 0; urls.size < sampleSize && picks.some((p) => i < p.length); ++i) {
    for (const p of picks) if (i < p.length && urls.size < sampleSize) urls.add(p[i]);
  }
  const wide = [];
  let links = 0;
  for (const url of urls) {
    await page.setViewportSize({ width: 1280, height: 900 });
    const res = await page.goto(base + url);
    assert.equal(res.status(), 200, url);
    for (const href of await page.locator("section#message a.doc").evaluateAll((as) => as.map((a) => a.getAttribute("href")))) {
      assert.match(href, /^https?:\/\/\w/i, url);
      ++links;
    }
    for (const width of [375, 768, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (over <= 1) continue;
      // The outermost elements sticking out: what to fix in the stylesheet.
      const culprits = await page.evaluate(() => {
        const found = [];
        for (const el of document.body.querySelectorAll("*")) {
          if (el.getBoundingClientRect().right <= window.innerWidth + 1) continue;
          let clipped = false;  // inside a box that scrolls or clips: not the page's width
          for (let a = el.parentElement; a && a !== document.body && !clipped; a = a.parentElement) {
            clipped = getComputedStyle(a).overflowX !== "visible";
          }
          if (clipped) continue;
          const parent = el.parentElement;
          if (parent && parent !== document.body && parent.getBoundingClientRect().right > window.innerWidth + 1) continue;
          found.push(el.tagName.toLowerCase() + (el.className ? "." + String(el.className).split(" ").join(".") : "") +
                     " «" + (el.textContent || "").trim().slice(0, 60) + "»");
        }
        return found.slice(0, 3);
      });
      wide.push(`${url} at ${width}px: ${over}px too wide: ${culprits.join("; ")}`);
    }
  }
  for (const w of wide) console.log("e2e: wide: " + w);
  const kinds = [...urls].reduce((n, u) => {
    const k = u === "/" ? "home" : u.split("/")[1] + (u.includes("?") ? " (paged or ordered)" : "");
    n[k] = (n[k] || 0) + 1;
    return n;
  }, {});
  console.log(`e2e: overflow checked on ${urls.size} pages (${Object.entries(kinds).map(([k, n]) => `${n} ${k}`).join(", ")})` +
              ` at 375, 768 and 1280 px: ${wide.length} too wide; ${links} documentation links on ${Math.min(10, documented.length)} pages`);
  assert.deepEqual(wide, [], "pages wider than the screen");

  // 8. A static export on a host that serves its 404.html for a missing
  // file (as GitHub Pages, Netlify and nginx's error_page do): an id in
  // capitals, or an address the live server answers, lands on its file.
  if (!real) {
    const dir = join(scratch("errdex-e2e-site-"), "site");
    execFileSync(errdex, ["--db", db, "export", dir]);
    const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json" };
    const host = createServer((req, res) => {
      const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
      const file = join(dir, path);
      const found = file.startsWith(dir + "/") && existsSync(file) && statSync(file).isFile();
      const ext = found ? (file.match(/\.[a-z]+$/) || [""])[0] : ".html";
      res.writeHead(found ? 200 : 404, { "Content-Type": types[ext] || "application/octet-stream" });
      res.end(readFileSync(found ? file : join(dir, "404.html")));
    });
    await new Promise((resolve) => host.listen(0, "127.0.0.1", resolve));
    const staticBase = `http://127.0.0.1:${host.address().port}`;
    expect404s = true;
    try {
      const id = errorPages[0][0].split("/errors/")[1];
      for (const path of [`/errors/${id.toUpperCase()}.html`, `/errors/${id.toUpperCase()}`, `/errors/${id}`]) {
        await page.goto(staticBase + path);
        await page.waitForURL(staticBase + `/errors/${id}.html`, { timeout: ready });
        await page.waitForSelector("h1.msg");
      }
      await page.goto(staticBase + `/api/errors/${id.toUpperCase()}.json`);
      await page.waitForURL(staticBase + `/api/errors/${id}.json`, { timeout: ready });
      await page.goto(staticBase + "/libraries/test/python-idioms?page=2");
      await page.waitForURL(staticBase + "/libraries/test/python-idioms/page-2.html", { timeout: ready });
      assert.match(await page.textContent("nav.pager .count"), /page 2 of/);
      // A page that does not exist stays the 404 page: no loop.
      await page.goto(staticBase + "/errors/FFFFFFFFFFFFFFFF");
      await page.waitForURL(staticBase + "/errors/ffffffffffffffff.html", { timeout: ready });
      await page.waitForSelector("h1#not-found");
      await page.waitForTimeout(300);
      assert.equal(page.url(), staticBase + "/errors/ffffffffffffffff.html");
      console.log("e2e: static export: ids in capitals and live addresses reach their files");
    } finally {
      expect404s = false;
      host.close();
    }
  }
  assert.deepEqual(consoleErrors, [], "the browser console reported errors");
  console.log("e2e: " + (real ? `${real}: word search, paging and widths OK` :
              "search, word search, paging, error page, escaping, widths and the static copy OK") +
              "; screenshots in " + out);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
  server.kill();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
