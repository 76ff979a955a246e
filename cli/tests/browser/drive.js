// Opens agentloop view pages in headless Chromium (Debian's, through playwright-core)
// and prints one JSON line per page: what the tests assert on.
// Usage: node drive.js PLAYWRIGHT_CORE_DIR CHROMIUM JOBS_JSON
// JOBS_JSON: [{"page": "/abs/x.html", "screenshot": "/abs/x.png" or null}, ...]
'use strict';
const path = require('path');
const { pathToFileURL } = require('url');
const [playwrightDir, chromium, jobsJson] = process.argv.slice(2);
const { chromium: browserType } = require(path.join(playwrightDir, 'node_modules', 'playwright-core'));

async function one(browser, job) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const url = pathToFileURL(job.page).href;
  const requests = [];
  const errors = [];
  let dialogs = 0;
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => { dialogs += 1; d.dismiss().catch(() => {}); });
  const started = Date.now();
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('body[data-ready="yes"]', { timeout: 60000 });
  const loadMs = Date.now() - started;
  const seen = await page.evaluate(() => {
    const rows = document.querySelectorAll('#timeline > .row');
    const faulty = document.querySelectorAll('#timeline > .row.fault');
    const first = faulty[0];
    let visible = null;
    if (first) {
      const r = first.getBoundingClientRect();
      visible = r.bottom > 0 && r.top < window.innerHeight;
    }
    return {
      rows: rows.length,
      faulty: faulty.length,
      faultLine: first ? Number(first.dataset.line) : null,
      faultSeq: first && first.dataset.seq !== undefined ? Number(first.dataset.seq) : null,
      faultVisible: visible,
      verdict: document.getElementById('verdict').className,
      verdictText: document.getElementById('verdict').textContent,
      stops: document.getElementById('stops').textContent,
      plots: document.querySelectorAll('#budget svg').length,
      scripts: document.querySelectorAll('script').length,
      title: document.title,
    };
  });
  if (job.screenshot) {
    await page.screenshot({ path: job.screenshot });
  }
  // Every row opened (a short page's), then every "show all" pressed.
  let opened = null;
  if (seen.rows <= 100) {
    await page.evaluate(() => document.querySelectorAll('#timeline > .row > details').forEach((d) => { d.open = true; }));
    await page.waitForFunction((n) => document.querySelectorAll('#timeline > .row > details > .body').length === n, seen.rows);
    opened = await page.evaluate(() => {
      const buttons = Array.from(document.querySelectorAll('#timeline button.more'));
      const values = buttons.map((b) => b.previousSibling);
      const cut = values.map((v) => v.textContent.length);
      buttons.forEach((b) => b.click());
      const whole = values.map((v) => v.textContent.length);
      return {
        bodies: document.querySelectorAll('#timeline > .row > details > .body').length,
        more: buttons.length,
        grown: cut.every((n, i) => whole[i] > n),
        left: document.querySelectorAll('#timeline button.more').length,
      };
    });
  }
  await context.close();
  return Object.assign({ page: job.page, loadMs, requests, errors, dialogs, opened }, seen);
}

(async () => {
  const browser = await browserType.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    for (const job of JSON.parse(jobsJson)) {
      console.log(JSON.stringify(await one(browser, job)));
    }
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
