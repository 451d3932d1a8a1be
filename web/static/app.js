// Search as you type: the pasted text goes to /api/match (or, in a static
// export, is looked up in /search-index.json) and the matches are listed.
// Every text is inserted as text, never as HTML.
"use strict";
// A static copy's 404.html, served by its host for any missing file: an
// address the live server answers (an error id in capitals, a page without
// .html, a listing's ?page=N) goes to the file the export wrote. Each
// target is its own canonical form, so a missing one is no loop.
(function () {
  if (!document.getElementById("not-found")) return;
  const path = location.pathname;
  let target = null;
  let m = /^\/(api\/)?errors\/([0-9a-fA-F]{16})(\.html|\.json)?$/.exec(path);
  if (m) {
    target = "/" + (m[1] || "") + "errors/" + m[2].toLowerCase() + (m[1] ? ".json" : ".html");
  } else if ((m = /^\/(libraries\/[^/]+\/[^/]+|families\/[a-z-]+)$/.exec(path)) && !path.endsWith(".html")) {
    const page = Number(new URLSearchParams(location.search).get("page"));
    target = path + (Number.isInteger(page) && page > 1 ? "/page-" + page : "") + ".html";
  }
  if (target && target !== path) location.replace(target + location.hash);
})();
(function () {
  const form = document.getElementById("search");
  if (!form) return;
  const box = document.getElementById("q");
  const results = document.getElementById("results");
  const exported = form.dataset.static === "1";
  let timer = null;
  let seq = 0;
  let index = null;
  // The text is matched as it is typed; there is nothing to submit.
  form.addEventListener("submit", (e) => e.preventDefault());

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function show(matches, note) {
    results.replaceChildren();
    if (note) results.append(el("p", "note", note));
    for (const m of matches) {
      const div = el("div", "match");
      if (m.score !== undefined) {
        const how = m.found_by === "words" ? "by words · " : m.weak_reason === "interpreter" ? (m.fuzzy ? "worded alike · " : "worded the same · ") : m.weak ? "nearest wording · " : m.fuzzy ? "similar wording · " : "";
        div.append(el("span", "score", how + Math.round(m.score * 100) + "%"));
      }
      const a = el("a", "result");
      a.href = m.page;
      a.append(el("span", "exc", m.exception + " "), el("span", "tmpl", m.template));
      div.append(a);
      const site = m.sites && m.sites[0];
      div.append(el("p", "meta", m.library + (site ? " · " + site.path + ":" + site.line + " in " + site.function : "")));
      // The values the text gave each placeholder, then the fix the
      // analysis knows: what the reader came for, before opening the page.
      const values = Object.entries(m.values || {});
      if (values.length) {
        const dl = el("dl", "values");
        for (const [name, value] of values) dl.append(el("dt", "", name), el("dd", "", value));
        div.append(dl);
      }
      if (m.fix) {
        if (m.fix.solution) div.append(el("p", "fix-solution", m.fix.solution));
        if (m.fix.after) {
          const pre = el("pre", "fix-after");
          pre.append(el("code", "", m.fix.after));
          div.append(pre);
        }
      }
      results.append(div);
    }
  }

  async function live(text, mine) {
    const res = await fetch("/api/match", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text: text, top: 5 }),
    });
    if (mine !== seq) return;
    if (!res.ok) { show([], "The server could not match this (" + res.status + ")."); return; }
    const doc = await res.json();
    if (mine !== seq) return;
    // A weak first match shares only a phrase: no error has this wording;
    // or the traceback says Python itself raised it, on no raise of theirs.
    const first = doc.matches[0];
    const note = !first ? "No error in the catalog matches this text."
      : first.weak_reason === "interpreter" ? `Python itself raised this on the traceback's last line; the errors below are only worded ${first.fuzzy ? "alike" : "the same"}, elsewhere.`
      : first.weak ? "No error in the catalog has this wording; the nearest follow."
      : doc.input && doc.input.interpreter_wording && !doc.input.frames.length
        ? "CPython raises errors worded so itself; without the traceback, the library below may only have copied the wording."
      : "";
    show(doc.matches, note);
  }

  async function offline(text, mine) {
    if (!index) index = await (await fetch("/search-index.json")).json();
    if (mine !== seq) return;
    const words = text.toLowerCase().split(/[^a-z0-9_]+/).filter((w) => w.length > 2);
    const scored = [];
    for (const e of index) {
      const hay = (e.exception + " " + e.template).toLowerCase();
      let hits = 0;
      for (const w of words) if (hay.includes(w)) hits++;
      if (hits) scored.push([hits, e]);
    }
    scored.sort((a, b) => b[0] - a[0]);
    show(scored.slice(0, 10).map((s) => s[1]), "Static copy: matched by words, not by template.");
  }

  box.addEventListener("input", () => {
    clearTimeout(timer);
    const text = box.value.trim();
    const mine = ++seq;
    if (!text) { results.replaceChildren(); return; }
    timer = setTimeout(() => (exported ? offline(text, mine) : live(text, mine)).catch(() => {
      if (mine === seq) show([], "Search is unavailable.");
    }), 150);
  });
})();
