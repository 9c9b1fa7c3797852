// End-to-end test of the web inspector (web/inspector.html) served by the real `ontomem serve`,
// driven in headless Debian chromium by playwright-core (scripts/setup.sh installs it into
// $HOME/.cache/ontomem/npm; no browser download).
//
//   node tests/e2e/inspector.test.mjs path/to/ontomem SOURCE_DIR [--screenshots DIR]
//
// It makes a temp data dir, a key file with two tenants, a tiny deterministic lexicon (so it
// needs no download), starts the server on a free loopback port, ingests a short multi-session
// dialogue over HTTP, and checks that what the page shows agrees with what the API answers:
// users, the timeline, the graph (nodes, edges, validity, provenance), a search (ranked hits,
// per-view scores, route) and feedback (sent, then found in the export). The server is killed
// and the temp dir removed at the end, also on failure or interruption. Environment: ONTOMEM_NPM_PREFIX (where playwright-core is),
// ONTOMEM_CHROMIUM (default /usr/bin/chromium), ONTOMEM_E2E_LEXICON (use this lexicon instead
// of the tiny one, e.g. the real one for screenshots).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const args = process.argv.slice(2);
const BIN = args[0], SRC = args[1];
const shotIdx = args.indexOf("--screenshots");
const SHOTS = shotIdx >= 0 ? path.resolve(args[shotIdx + 1]) : "";
if (!BIN || !SRC) {
  console.error("usage: node inspector.test.mjs path/to/ontomem SOURCE_DIR [--screenshots DIR]");
  process.exit(2);
}

function loadPlaywright() {
  const prefix = process.env.ONTOMEM_NPM_PREFIX || path.join(os.homedir(), ".cache/ontomem/npm");
  try {
    return createRequire(path.join(prefix, "node_modules", "x.js"))("playwright-core");
  } catch (e) {
    throw new Error(`playwright-core not found under ${prefix}/node_modules; run 'make setup' ` +
                    `(scripts/setup.sh installs it): ${e.message}`);
  }
}

// ---------- fixtures ----------

// Three sessions about one user: film preferences (Titanic loved in the past tense, disliked
// later), an allergy, a sister and a city. Times come as RFC 3339 strings and as Unix ms.
const DIALOGUE = [
  { id: "S1:1", session: "s1", speaker: "Ana", time: "2024-01-05T18:00:00Z", text: "I loved Titanic, such a romantic film." },
  { id: "S1:2", session: "s1", speaker: "Bot", time: "2024-01-05T18:00:20Z", text: "Nice! Do you watch many movies?" },
  { id: "S1:3", session: "s1", speaker: "Ana", time: "2024-01-05T18:01:00Z", text: "Yes, every weekend. I am allergic to peanuts, so no snacks for me at the cinema." },
  { id: "S2:1", session: "s2", speaker: "Ana", time: Date.parse("2024-02-10T20:00:00Z"), text: "I watched The Notebook yesterday, I really love romantic movies." },
  { id: "S2:2", session: "s2", speaker: "Bot", time: Date.parse("2024-02-10T20:00:30Z"), text: "Did you enjoy the ending?" },
  { id: "S2:3", session: "s2", speaker: "Ana", time: Date.parse("2024-02-10T20:01:00Z"), text: "I hate horror films, they give me nightmares." },
  { id: "S3:1", session: "s3", speaker: "Ana", time: "2024-03-15T09:00:00Z", text: "My sister Maria lives in Lisbon and plays the piano." },
  { id: "S3:2", session: "s3", speaker: "Ana", time: "2024-03-15T09:02:00Z", text: "I loved Pride and Prejudice too, another romantic story." },
  { id: "S3:3", session: "s3", speaker: "Ana", time: "2024-03-15T09:03:00Z", text: "Honestly I now dislike Titanic, it is far too long." },
];

// A tiny lexicon in the npm wink-embeddings JSON format, converted by `ontomem lexicon build`:
// stop words near a common direction, content words in topic clusters (movie, food, family,
// travel, music), deterministic.
function writeTinyLexicon(dir) {
  const dims = 100;
  let seed = 12345;
  const rand = () => {  // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
  const randVec = () => Array.from({ length: dims }, rand);
  const common = randVec();
  const stop = ("the , . of to and in a i is it you that was for on are with he she they we my me at be this " +
    "have has had from or an by not but what all were when there can do did so about just really also " +
    "would will your our his her their them us been if out up how very too now far").split(" ");
  const clusters = {
    movie: "film films movie movies cinema titanic notebook romantic romance horror watch watched story ending pride prejudice nightmares",
    food: "peanut peanuts snacks allergic food eat nuts allergy",
    family: "sister brother mother father maria family",
    travel: "lisbon city lives live travel portugal",
    music: "piano plays play music song",
    feel: "love loved like liked hate dislike enjoy nice yes honestly long another every weekend yesterday give many",
  };
  const words = [...stop];
  const vecs = stop.map(() => common.map((c, i) => 2 * c + 0.2 * randVec()[i]));
  for (const list of Object.values(clusters)) {
    const centre = randVec();
    for (const w of list.split(" ")) {
      if (words.includes(w)) continue;
      const noise = randVec();
      words.push(w);
      vecs.push(centre.map((c, i) => c + 0.35 * noise[i] + 0.5 * common[i]));
    }
  }
  const vectors = {};
  words.forEach((w, r) => {
    const v = vecs[r].map((x) => Number(x.toFixed(6)));
    const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    vectors[w] = [...v, Number(norm.toFixed(6)), r];
  });
  const json = path.join(dir, "tiny-wink.json");
  fs.writeFileSync(json, JSON.stringify({ precision: 6, l2NormIndex: dims, wordIndex: dims + 1, size: words.length,
                                          dimensions: dims, words, vectors }));
  const out = path.join(dir, "lexicon.bin");
  execFileSync(BIN, ["lexicon", "build", "--from", json, "--out", out], { stdio: ["ignore", "ignore", "inherit"] });
  return out;
}

function addKey(keysFile, tenant) {
  const out = execFileSync(BIN, ["keys", "add", "--keys", keysFile, tenant], { encoding: "utf8" });
  const lines = out.trim().split("\n");
  const key = lines[lines.length - 1].trim();
  assert.ok(key.length >= 16, `ontomem keys add printed no key: ${JSON.stringify(out)}`);
  return key;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startServer(dataDir, keysFile, env, logFile) {
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const log = fs.openSync(logFile, "a");
    const child = spawn(BIN, ["serve", "--data", dataDir, "--keys", keysFile, "--host", "127.0.0.1", "--port", String(port)],
                        { env, stdio: ["ignore", log, log] });
    fs.closeSync(log);
    let exited = null;
    child.on("exit", (code, sig) => { exited = { code, sig }; });
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 15000;
    while (Date.now() < deadline && !exited) {
      try {
        const r = await fetch(base + "/healthz");
        if (r.ok) return { child, base };
      } catch { /* not listening yet */ }
      await sleep(50);
    }
    if (!exited) { child.kill("SIGKILL"); throw new Error(`ontomem serve did not answer /healthz within 15 s (log: ${fs.readFileSync(logFile, "utf8").slice(-2000)})`); }
    // Lost the port race (or crashed): try another port, then give up with the log.
  }
  throw new Error(`ontomem serve exited at start: ${fs.readFileSync(logFile, "utf8").slice(-2000)}`);
}

async function stopServer(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
  await done;
  clearTimeout(timer);
}

function client(base, key) {
  return async (method, p, body) => {
    const r = await fetch(base + p, {
      method,
      headers: { Authorization: "Bearer " + key, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* keep text */ }
    return { status: r.status, json, text };
  };
}

// The page's number formats (web/inspector.html fmtNum).
const fmt = (x, d) => (typeof x === "number" && isFinite(x)) ? x.toFixed(d) : "–";
const isCurrent = (e) => e.valid_to === null || e.valid_to === undefined || e.valid_to === 0;

// ---------- the test ----------

test("web inspector end to end against ontomem serve", { timeout: 90000 }, async (t) => {
  const started = Date.now();
  let failed = false;
  // Subtests run in order on one page; a failure is remembered so the server log gets printed.
  const step = (name, fn) => t.test(name, async (st) => {
    try { await fn(st); } catch (e) { failed = true; throw e; }
  });
  const { chromium } = loadPlaywright();
  const chromiumPath = process.env.ONTOMEM_CHROMIUM || "/usr/bin/chromium";
  assert.ok(fs.existsSync(chromiumPath), `${chromiumPath} is missing; run 'make setup' (apt chromium)`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ontomem-e2e-"));
  let server = null, browser = null;
  // Interrupted (Ctrl-C, a CTest timeout): still stop the server and remove the temp dir.
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.once(sig, () => {
      if (server) server.child.kill("SIGKILL");
      fs.rmSync(tmp, { recursive: true, force: true });
      process.exit(130);
    });
  }
  const logFile = path.join(tmp, "server.log");
  try {
    const phase = (name) => t.diagnostic(`${name} at ${Date.now() - started} ms`);
    const lexicon = process.env.ONTOMEM_E2E_LEXICON || writeTinyLexicon(tmp);
    phase("lexicon ready");
    const keysFile = path.join(tmp, "keys.tsv");
    const key = addKey(keysFile, "acme");
    const otherKey = addKey(keysFile, "globex");
    assert.notEqual(key, otherKey);
    assert.ok(!fs.readFileSync(keysFile, "utf8").includes(key), "the key file must hold only hashes");
    const env = { ...process.env, ONTOMEM_LEXICON: lexicon, OMP_NUM_THREADS: "1" };
    server = await startServer(path.join(tmp, "data"), keysFile, env, logFile);
    phase("server up");
    const { base } = server;
    const api = client(base, key);

    // Ingest over HTTP in two batches (one per request, atomic each).
    for (const batch of [DIALOGUE.slice(0, 6), DIALOGUE.slice(6)]) {
      const r = await api("POST", "/v1/users/ana/turns", { turns: batch });
      assert.equal(r.status, 200, `ingest: ${r.text}`);
      assert.equal(r.json.stored, batch.length, r.text);
      assert.deepEqual(r.json.turns.map((x) => x.id), batch.map((x) => x.id));
    }
    const users = (await api("GET", "/v1/users")).json.users;
    assert.deepEqual(users, ["ana"]);
    const turnsResp = await api("GET", "/v1/users/ana/turns?offset=0&limit=100");
    assert.equal(turnsResp.status, 200, turnsResp.text);
    const turns = turnsResp.json.turns;
    assert.deepEqual(turns.map((x) => x.id), DIALOGUE.map((x) => x.id));
    const graphResp = await api("GET", "/v1/users/ana/graph");
    assert.equal(graphResp.status, 200, graphResp.text);
    const graph = graphResp.json;
    assert.ok(graph.edges.length > 0, "the dialogue states preferences: the graph must have edges");

    phase("dialogue ingested");
    browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--disable-gpu"] });
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    phase("browser up");
    page.setDefaultTimeout(10000);
    const pageErrors = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
    const shot = async (name, locator) => {
      if (!SHOTS) return;
      await (locator || page).screenshot({ path: path.join(SHOTS, name + ".png"), ...(locator ? {} : { fullPage: true }) });
    };

    await step("the page is served at / without a key", async () => {
      const r = await fetch(base + "/");
      assert.equal(r.status, 200);
      assert.match(r.headers.get("content-type") || "", /text\/html/);
      const html = await r.text();
      assert.equal(html, fs.readFileSync(path.join(SRC, "web/inspector.html"), "utf8"), "served page differs from web/inspector.html");
      await page.goto(base + "/");
      assert.equal(await page.title(), "ontomem inspector");
    });

    await step("a wrong key shows the API's error", async () => {
      const expected = (await client(base, "not-a-key")("GET", "/v1/users")).json.error;
      await page.fill("[data-testid=api-key]", "not-a-key");
      await page.click("[data-testid=connect]");
      const err = page.locator("[data-testid=error]");
      await err.waitFor({ state: "visible" });
      const text = await page.textContent("[data-testid=error-message]");
      assert.ok(text.includes("HTTP 401") && text.includes(expected.code) && text.includes(expected.message), text);
      if (SHOTS) {
        const box = await err.boundingBox();
        await page.screenshot({ path: path.join(SHOTS, "inspector-error.png"),
                                clip: { x: 0, y: 0, width: 1400, height: Math.ceil(box.y + box.height + 12) } });
      }
    });

    await step("the key lists the tenant's users; picking one shows the timeline", async () => {
      await page.fill("[data-testid=api-key]", key);
      await page.click("[data-testid=connect]");
      await page.waitForFunction(() => document.querySelectorAll("#user-select option[value]:not([value=''])").length > 0);
      assert.ok(await page.locator("[data-testid=error]").isHidden(), "connecting must clear the error");
      const options = await page.$$eval("#user-select option", (os) => os.map((o) => o.value).filter(Boolean));
      assert.deepEqual(options, users);
      assert.equal(await page.evaluate(() => sessionStorage.getItem("ontomem.inspector.key")), key);
      await page.selectOption("[data-testid=user-select]", "ana");
      await page.locator("[data-testid=turn]").nth(turns.length - 1).waitFor();
      const shown = await page.$$eval("[data-testid=turn]", (els) => els.map((e) => ({
        id: e.dataset.turnId, speaker: e.querySelector("[data-testid=turn-speaker]").textContent,
        text: e.querySelector("[data-testid=turn-text]").textContent,
        time: e.querySelector("[data-testid=turn-time]").textContent })));
      assert.deepEqual(shown.map((s) => s.id), turns.map((x) => x.id));
      assert.deepEqual(shown.map((s) => s.text), turns.map((x) => x.text));
      assert.deepEqual(shown.map((s) => s.speaker), turns.map((x) => x.speaker));
      // Both time forms (RFC 3339 and Unix ms) come back and read in UTC.
      assert.equal(shown[0].time, "2024-01-05 18:00 UTC");
      assert.equal(shown[3].time, "2024-02-10 20:00 UTC");
      assert.equal(await page.textContent("[data-testid=timeline-count]"), `${turns.length} of ${turns.length} turns`);
    });

    await step("the graph shows the API's nodes and edges with validity and provenance", async () => {
      await page.locator("[data-testid=graph-node]").first().waitFor();
      const nodeIds = await page.$$eval("[data-testid=graph-node]", (els) => els.map((e) => e.dataset.nodeId));
      assert.deepEqual(nodeIds.sort(), graph.nodes.map((n) => n.id).sort());
      assert.equal(await page.locator("[data-testid=graph-edge]").count(), graph.edges.length);
      const rows = await page.$$eval("[data-testid=edge-row]", (els) => els.map((e) => ({
        i: Number(e.dataset.edgeIndex), current: e.dataset.current === "true", promoted: e.dataset.promoted === "true",
        relation: e.querySelector("[data-testid=edge-relation]").textContent,
        weight: e.querySelector("[data-testid=edge-weight]").textContent,
        provenance: [...e.querySelectorAll("[data-testid=provenance-turn]")].map((b) => b.dataset.turnId) })));
      assert.equal(rows.length, graph.edges.length);
      for (const r of rows) {
        const e = graph.edges[r.i];
        assert.equal(r.relation, e.relation);
        assert.equal(r.weight, fmt(e.weight, 3));
        assert.equal(r.current, isCurrent(e));
        assert.equal(r.promoted, !!e.promoted);
        assert.deepEqual(r.provenance, e.source_turns);
      }
      const current = graph.edges.filter(isCurrent).length;
      const promoted = graph.edges.filter((e) => e.promoted).length;
      assert.equal(await page.textContent("[data-testid=graph-summary]"),
                   `${graph.nodes.length} nodes · ${graph.edges.length} edges (${current} current, ${graph.edges.length - current} ended, ${promoted} promoted)`);
      // Every provenance id is a turn of this user.
      const ids = new Set(turns.map((x) => x.id));
      for (const e of graph.edges) for (const s of e.source_turns) assert.ok(ids.has(s), `edge cites unknown turn ${s}`);

      // Clicking an edge highlights exactly its source turns in the timeline.
      const pick = graph.edges.findIndex((e) => e.source_turns.length > 0 && e.promoted) >= 0
        ? graph.edges.findIndex((e) => e.source_turns.length > 0 && e.promoted)
        : graph.edges.findIndex((e) => e.source_turns.length > 0);
      assert.ok(pick >= 0, "some edge must cite its source turns");
      // Edges are keyboard buttons (overlapping curves make a mouse click position-dependent).
      await page.focus(`[data-testid=graph-edge][data-edge-index="${pick}"]`);
      await page.keyboard.press("Enter");
      await page.waitForFunction((n) => document.querySelectorAll("[data-testid=turn].highlight").length === n,
                                 new Set(graph.edges[pick].source_turns).size);
      const lit = await page.$$eval("[data-testid=turn].highlight", (els) => els.map((e) => e.dataset.turnId));
      assert.deepEqual(lit.sort(), [...new Set(graph.edges[pick].source_turns)].sort());
      assert.ok(await page.locator(`[data-testid=edge-row][data-edge-index="${pick}"]`).evaluate((e) => e.classList.contains("selected")));
      await shot("inspector-graph", page.locator("section:has([data-testid=graph-svg])"));

      // Hiding ended edges leaves the current ones (in the drawing and the table).
      await page.uncheck("[data-testid=show-ended]");
      assert.equal(await page.locator("[data-testid=graph-edge]").count(), current);
      assert.equal(await page.locator("[data-testid=edge-row]").count(), current);
      await page.check("[data-testid=show-ended]");
      assert.equal(await page.locator("[data-testid=graph-edge]").count(), graph.edges.length);
    });

    await step("an invalid search shows the server's message", async () => {
      await page.fill("[data-testid=query]", "which films does Ana like?");
      await page.fill("[data-testid=k]", "500");  // over the server's max_k
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/v1/users/ana/search")),
        page.click("[data-testid=search-submit]"),
      ]);
      assert.equal(resp.status(), 400);
      const body = await resp.json();
      await page.locator("[data-testid=error]").waitFor({ state: "visible" });
      const text = await page.textContent("[data-testid=error-message]");
      assert.ok(text.includes("HTTP 400") && text.includes(body.error.message), text);
    });

    let search = null;
    await step("a query shows ranked hits with per-view scores and the route", async () => {
      await page.fill("[data-testid=k]", "5");
      await page.selectOption("[data-testid=method]", "full");
      await page.fill("[data-testid=asker]", "Ana");
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/v1/users/ana/search")),
        page.click("[data-testid=search-submit]"),
      ]);
      assert.equal(resp.status(), 200);
      const sent = JSON.parse(resp.request().postData());
      assert.deepEqual(sent, { query: "which films does Ana like?", method: "full", k: 5, asker: "Ana" });
      search = await resp.json();
      assert.ok(search.hits.length > 0 && search.hits.length <= 5, JSON.stringify(search));
      assert.ok(search.query_id, "search must return a query_id");
      await page.locator("[data-testid=hit]").nth(search.hits.length - 1).waitFor();
      assert.ok(await page.locator("[data-testid=error]").isHidden());
      const hits = await page.$$eval("[data-testid=hit]", (els) => els.map((e) => {
        const q = (id) => { const x = e.querySelector(`[data-testid=${id}]`); return x ? x.textContent : null; };
        return { id: e.dataset.turnId, rank: Number(e.dataset.rank), text: q("hit-text"), score: q("hit-score"), dense: q("hit-dense"),
                 bm25: q("hit-bm25"), graph: q("hit-graph"), denseRank: q("hit-dense-rank"), bm25Rank: q("hit-bm25-rank"), path: q("hit-path") };
      }));
      assert.equal(hits.length, search.hits.length);
      search.hits.forEach((h, i) => {
        const s = hits[i];
        assert.equal(s.id, h.id);
        assert.equal(s.rank, i + 1);
        assert.equal(s.text, DIALOGUE.find((d) => d.id === h.id).text);
        assert.equal(s.score, fmt(h.score, 4));
        assert.equal(s.dense, fmt(h.dense_score, 3));
        assert.equal(s.bm25, fmt(h.bm25_score, 3));
        assert.equal(s.graph, fmt(h.graph_score, 3));
        assert.equal(s.denseRank, h.dense_rank ? ` (#${h.dense_rank})` : " (not retrieved)");
        assert.equal(s.bm25Rank, h.bm25_rank ? ` (#${h.bm25_rank})` : " (not retrieved)");
        assert.equal(s.path, h.path ? "via " + h.path : null);
      });
      // Scores are ranked.
      for (let i = 1; i < search.hits.length; i++) assert.ok(search.hits[i - 1].score >= search.hits[i].score);
      assert.equal(await page.textContent("[data-testid=meta-route]"), search.route || "(none)");
      assert.equal(await page.textContent("[data-testid=meta-method]"), search.method);
      assert.equal(await page.textContent("[data-testid=meta-query-id]"), search.query_id);
      assert.equal(await page.textContent("[data-testid=meta-candidates]"), String(search.candidates));
      assert.equal(await page.textContent("[data-testid=meta-context-tokens]"), String(search.context_tokens));
      assert.match(await page.textContent("[data-testid=meta-latency]"), /^\d+(\.\d+)? (µs|ms)$/);
      // Hit turns are marked in the timeline.
      const marked = await page.$$eval("[data-testid=turn].hit", (els) => els.map((e) => e.dataset.turnId));
      assert.deepEqual(marked.sort(), search.hits.map((h) => h.id).sort());
    });

    await step("used / wrong / missed marks are sent as feedback", async () => {
      assert.ok(await page.locator("[data-testid=send-feedback]").isDisabled(), "nothing marked yet");
      // Marks a reader would make for "which films does Ana like?" when such hits are there
      // (the romantic turns used, a hate/dislike turn wrong), else the first and second hit.
      const pickHit = (re, avoid) => search.hits.find((h) => re.test(h.text) && h.id !== avoid);
      const used = (pickHit(/romantic/) || search.hits[0]).id;
      const wrongHit = pickHit(/hate|dislike/, used) || search.hits.find((h) => h.id !== used);
      const expected = { used: [used], wrong: wrongHit ? [wrongHit.id] : [], missed: [] };
      const hitButton = (id, which) => page.locator(`[data-testid=hit][data-turn-id="${id}"] [data-testid=hit-${which}]`);
      await hitButton(used, "used").click();
      assert.equal(await hitButton(used, "used").getAttribute("aria-pressed"), "true");
      if (wrongHit) {
        await hitButton(wrongHit.id, "wrong").click();
        assert.equal(await hitButton(wrongHit.id, "wrong").getAttribute("aria-pressed"), "true");
      }
      const hitIds = new Set(search.hits.map((h) => h.id));
      const notHit = turns.find((x) => !hitIds.has(x.id) && /romantic|loved/.test(x.text)) || turns.find((x) => !hitIds.has(x.id));
      if (notHit) {
        await page.locator(`[data-testid=turn][data-turn-id="${notHit.id}"] [data-testid=turn-missed]`).click();
        expected.missed.push(notHit.id);
      }
      assert.equal(await page.textContent("[data-testid=feedback-summary]"),
                   `used ${expected.used.length} · wrong ${expected.wrong.length} · missed ${expected.missed.length}`);
      await shot("inspector-overview");
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/v1/users/ana/feedback")),
        page.click("[data-testid=send-feedback]"),
      ]);
      const sent = JSON.parse(resp.request().postData());
      assert.equal(resp.status(), 200, `feedback answered ${resp.status()}: ${await resp.text()} (sent ${JSON.stringify(sent)})`);
      assert.deepEqual(sent, { query_id: search.query_id, query: "which films does Ana like?", ...expected });
      await page.locator("[data-testid=feedback-status].status-ok").waitFor();
      assert.equal(await page.textContent("[data-testid=feedback-status]"), `feedback stored for ${search.query_id}`);
      await shot("inspector-search", page.locator("section:has([data-testid=search-form])"));
      // The feedback is stored durably: the user's export carries it.
      const exp = await api("GET", "/v1/users/ana/export");
      assert.equal(exp.status, 200, exp.text);
      assert.ok(Array.isArray(exp.json.feedback), `export has no feedback array: ${exp.text.slice(0, 300)}`);
      const f = exp.json.feedback.find((x) => x.query_id === search.query_id);
      assert.ok(f, `export lacks the feedback for ${search.query_id}: ${JSON.stringify(exp.json.feedback)}`);
      assert.deepEqual([f.used, f.wrong, f.missed], [expected.used, expected.wrong, expected.missed]);
    });

    await step("another tenant's key sees none of it", async () => {
      const other = await browser.newPage();
      await other.goto(base + "/");
      await other.fill("[data-testid=api-key]", otherKey);
      await other.click("[data-testid=connect]");
      await other.waitForFunction(() => /users?$/.test(document.getElementById("conn-status").textContent));
      assert.equal(await other.textContent("[data-testid=conn-status]"), "0 users");
      const r = await client(base, otherKey)("GET", "/v1/users/ana/turns");
      assert.equal(r.status, 404, r.text);
      await other.close();
    });

    assert.deepEqual(pageErrors, [], "the page threw");
    t.diagnostic(`finished in ${Date.now() - started} ms`);
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    if (failed && fs.existsSync(logFile)) console.error("--- server log ---\n" + fs.readFileSync(logFile, "utf8").slice(-3000));
    if (browser) await browser.close().catch(() => {});
    if (server) await stopServer(server.child);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
