// The dashboard's pages. Every value from the server (lane names, errors,
// payloads) reaches the page as text: el() makes text nodes, never HTML.
"use strict";

const state = { config: null, token: "", online: null };

// ---- small helpers ---------------------------------------------------------

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function num(v) {
  if (v === null || v === undefined) return "-";
  return typeof v === "number" ? v.toLocaleString("en-US") : String(v);
}

function rate(v) {
  if (v === null || v === undefined) return "-";
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function pct(v) {
  return v === null || v === undefined ? "-" : (100 * v).toFixed(1) + "%";
}

function when(t) {
  if (!t) return "-";
  const d = new Date(t * 1000);
  return d.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

function notice(text, isError) {
  const n = document.getElementById("notice");
  n.textContent = text;
  n.className = isError ? "notice error" : "notice";
  n.hidden = false;
  clearTimeout(notice.timer);
  notice.timer = setTimeout(() => { n.hidden = true; }, isError ? 8000 : 4000);
}

function setOnline(ok, why) {
  const s = document.getElementById("status");
  const label = ok ? "live" : "disconnected";
  s.setAttribute("data-state", label);
  s.textContent = ok ? "live" : "disconnected" + (why ? ": " + why : "") + ", retrying";
  state.online = ok;
}

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

// GET or POST a JSON API. A network failure marks the page disconnected.
async function api(path, options) {
  let res;
  try {
    res = await fetch(path, Object.assign({ cache: "no-store" }, options || {}));
  } catch (e) {
    setOnline(false, "no answer from the dashboard");
    throw new ApiError(0, "the dashboard does not answer");
  }
  setOnline(true);
  let body = null;
  try { body = await res.json(); } catch (e) { body = null; }
  if (!res.ok) throw new ApiError(res.status, (body && body.error) || res.status + " " + res.statusText);
  return body;
}

async function act(queue, action, body) {
  const headers = { "content-type": "application/json" };
  if (state.token) headers[state.config.token_header] = state.token;
  try {
    const out = await api("/api/queues/" + encodeURIComponent(queue) + "/actions/" + action,
      { method: "POST", headers: headers, body: JSON.stringify(body) });
    notice(out.done);
    return out;
  } catch (e) {
    notice("refused (" + e.status + "): " + e.message, true);
    return null;
  }
}

// Repeats fn every `ms`, also after failures, until the page changes.
function every(ms, fn) {
  let stopped = false;
  (async function loop() {
    while (!stopped) {
      try { await fn(); } catch (e) { /* shown by api(); tried again */ }
      await new Promise((r) => setTimeout(r, ms));
    }
  })();
  return () => { stopped = true; };
}

function crumbs(...items) {
  const nav = document.getElementById("crumbs");
  nav.replaceChildren(...items.map(([text, href]) => el("a", { href: href, text: text })));
}

function figure(label, value) {
  return el("div", { class: "figure" }, el("b", { text: value }), el("span", { text: label }));
}

function queueHref(q) { return "/queues/" + encodeURIComponent(q); }

// ---- the queues page ---------------------------------------------------------

function queuesPage(view) {
  crumbs();
  document.title = "queues - echomq";
  const body = el("tbody");
  const empty = el("p", { class: "muted", hidden: true, text: "No queues yet: a queue is listed once it was first enqueued to." });
  view.replaceChildren(el("h1", { text: "Queues" }),
    el("table", { id: "queues" },
      el("thead", {}, el("tr", {}, ...["queue", "pending", "leased", "delayed", "dead", "lanes", "tenants", "paused", "shards", "served/s"].map((h) => el("th", { text: h })))),
      body),
    empty);
  return every(2000, async () => {
    const data = await api("/api/queues");
    empty.hidden = data.queues.length > 0;
    body.replaceChildren(...data.queues.map((q) => el("tr", { "data-queue": q.queue },
      el("td", {}, el("a", { href: queueHref(q.queue), text: q.queue })),
      el("td", { text: num(q.pending) }), el("td", { text: num(q.leased) }), el("td", { text: num(q.delayed) }),
      el("td", { text: num(q.dead) }), el("td", { text: num(q.lanes) }), el("td", { text: num(q.tenants) }),
      el("td", { text: num(q.paused) }),
      el("td", { text: q.shards ? num(q.shards) : "-" }), el("td", { text: rate(q.served_per_s) }))));
  });
}

// ---- a queue's page ----------------------------------------------------------

// A tenant's own row (T/) sums its lanes; its lanes follow it indented.
const LANE_COLUMNS = [
  { key: "lane", label: "lane" },
  { key: "depth", label: "depth" },
  { key: "active", label: "active/limit" },
  { key: "weight", label: "weight" },
  { key: "rate", label: "rate" },
  { key: "cap", label: "cap" },
  { key: "paused", label: "paused" },
  { key: "served_per_s", label: "served/s" },
  { key: "share", label: "share", title: "part of the jobs the queue served over the chart's window (a tenant: among tenants and plain lanes)" },
  { key: "share_in_tenant", label: "in tenant", optional: true, title: "a tenant's lane: its part of its tenant's jobs over the window" },
  { key: "fair_share", label: "fair share", title: "its weight's part of the contending tenants and plain lanes; a tenant's lanes share the tenant's part" },
  { key: "tenant", label: "tenant", optional: true },
  { key: "wait_p50", label: "wait p50", optional: true },
  { key: "wait_p99", label: "wait p99", optional: true },
  { key: "window_share", label: "window share", optional: true },
  { key: "window_fair_share", label: "window fair", optional: true },
  { key: "cost_v", label: "cost v", optional: true },
];

function laneCell(key, r) {
  switch (key) {
    // A tenant's lanes sit indented under its row (docs/architecture.md, "Lanes inside tenants").
    case "lane": return el("td", { class: r.is_tenant ? "lane tenant" : r.tenant ? "lane in-tenant" : "lane", text: r.lane });
    // A lane's burst ceiling sits next to its limit (echomq_set_limit_burst).
    case "active": return el("td", { text: num(r.active) + "/" + (r.limit === null ? "\u221e" : num(r.limit)) +
      (r.burst ? " (burst " + num(r.burst) + ")" : "") });
    case "rate": return el("td", { text: r.rate ? r.rate.jobs + "/" + r.rate.per + "s" : "-" });
    case "paused": return el("td", { class: "paused-cell", text: r.paused ? "yes" : "no" });
    case "served_per_s": return el("td", { text: rate(r.served_per_s) });
    case "share": case "share_in_tenant": case "fair_share": return el("td", { text: pct(r[key]) });
    case "wait_p50": case "wait_p99":
      return el("td", { text: r[key] === undefined || r[key] === null ? "-" : rate(r[key]) + "s" });
    case "window_share": case "window_fair_share": return el("td", { text: pct(r[key]) });
    case "cost_v": return el("td", { text: r.cost_v === undefined || r.cost_v === null ? "-" : rate(r.cost_v) + (r.sits_out ? " (sits out)" : "") });
    default: return el("td", { text: num(r[key]) });
  }
}

function queuePage(view, queue) {
  crumbs([queue, queueHref(queue)]);
  document.title = queue + " - echomq";
  const ui = { sort: "depth", order: "desc", q: "", offset: 0, limit: 50, selected: null, columns: [] };
  const figures = el("div", { class: "figures", id: "figures" });
  const lifecycle = el("p", { class: "muted", id: "lifecycle" });
  const error = el("p", { class: "error", id: "queue-error", hidden: true });
  const canvas = el("canvas", { id: "chart" });
  const legend = el("ul", { class: "legend", id: "legend" });
  const search = el("input", { type: "search", id: "lane-search", placeholder: "search lanes", "aria-label": "search lanes" });
  const pager = el("span", { id: "pager", class: "muted" });
  const prev = el("button", { id: "prev", text: "\u2190 prev" });
  const next = el("button", { id: "next", text: "next \u2192" });
  const head = el("thead");
  const body = el("tbody");
  const panel = el("div", { class: "panel", id: "lane-panel", hidden: true });
  const verifyOut = el("div", { id: "verify" });
  const verifyBtn = el("button", { id: "verify-run", text: "run verify" });
  const redriveAll = state.config.actions ? el("button", { id: "redrive-all", class: "danger", text: "redrive all dead" }) : null;

  view.replaceChildren(
    el("h1", {}, "Queue ", el("span", { id: "queue-name", text: queue })),
    el("div", { class: "links" },
      el("a", { href: queueHref(queue) + "/dead", text: "dead letters" }),
      el("a", { href: queueHref(queue) + "/schedules", text: "schedules" }),
      el("a", { href: queueHref(queue) + "/jobs", text: "find a job" }),
      el("a", { href: "/metrics", text: "metrics" })),
    figures, lifecycle, error,
    el("h2", { text: "Jobs served per second, by lane or tenant" }),
    el("div", { class: "chart-box" }, canvas, legend),
    el("h2", { text: "Lanes" }),
    el("div", { class: "toolbar" }, search, prev, next, pager),
    el("table", { id: "lanes" }, head, body),
    panel,
    el("h2", { text: "Verify" }),
    el("div", { class: "toolbar" }, verifyBtn, redriveAll),
    verifyOut);

  function drawHead() {
    const cols = LANE_COLUMNS.filter((c) => !c.optional || ui.columns.includes(c.key));
    const cells = cols.map((c) => {
      const th = el("th", { class: "sortable", "data-sort": c.key, text: c.label, title: c.title });
      if (ui.sort === c.key) th.classList.add("sorted", ui.order);
      th.addEventListener("click", () => {
        if (ui.sort === c.key) ui.order = ui.order === "desc" ? "asc" : "desc";
        else { ui.sort = c.key; ui.order = c.key === "lane" ? "asc" : "desc"; }
        ui.offset = 0;
        refresh();
      });
      return th;
    });
    if (state.config.actions) cells.push(el("th", { text: "actions" }));
    head.replaceChildren(el("tr", {}, ...cells));
    return cols;
  }

  function row(r, cols) {
    const tr = el("tr", { "data-lane": r.lane, class: (r.paused ? "paused" : "") + (ui.selected === r.lane ? " selected" : "") },
      ...cols.map((c) => laneCell(c.key, r)));
    tr.querySelector("td.lane").addEventListener("click", () => { ui.selected = r.lane; showPanel(r); });
    if (state.config.actions) {
      const toggle = el("button", { class: "pause-toggle", text: r.paused ? "resume" : "pause" });
      toggle.addEventListener("click", async () => {
        if (await act(queue, r.paused ? "resume" : "pause", { lane: r.lane })) refresh();
      });
      const edit = el("button", { class: "edit", text: "edit" });
      edit.addEventListener("click", () => { ui.selected = r.lane; showPanel(r); });
      tr.append(el("td", {}, toggle, " ", edit));
    }
    return tr;
  }

  function showPanel(r) {
    const lane = r.lane;
    const rows = [el("h2", {}, "Lane ", el("span", { class: "lane", text: lane }))];
    const facts = [["depth", num(r.depth)], ["delayed", num(r.delayed)], ["active", num(r.active)],
      ["limit", r.limit === null ? "none" : num(r.limit)],
      ["burst", r.burst ? num(r.burst) + (r.bursting ? " (bursting now)" : "") : "none"], ["weight", num(r.weight)],
      ["rate", r.rate ? r.rate.jobs + " per " + r.rate.per + " s, burst " + r.rate.burst : "none"],
      ["cap", r.cap === null ? "none" : num(r.cap)], ["paused", r.paused ? "yes" : "no"],
      ["served", num(r.served)], ["oldest job", when(r.oldest_enqueued_at)]];
    rows.push(el("p", { class: "muted", text: facts.map(([k, v]) => k + " " + v).join(" \u00b7 ") }));
    if (state.config.actions) {
      const setting = (name, extra) => {
        const input = el("input", { type: "number", min: "1", "data-setting": name, placeholder: name });
        const set = el("button", { text: "set " + name });
        const clear = el("button", { text: "clear" });
        set.addEventListener("click", async () => {
          const v = Number(input.value);
          const body = name === "rate" ? { lane: lane, jobs: v, per: Number(extra.value || 1) } : { lane: lane, value: v };
          if (await act(queue, name, body)) refresh();
        });
        clear.addEventListener("click", async () => {
          const body = name === "rate" ? { lane: lane, jobs: null } : { lane: lane, value: null };
          if (await act(queue, name, body)) refresh();
        });
        return el("div", { class: "row" }, el("label", { text: name }), input, extra ? el("span", { text: "per" }) : null, extra, extra ? el("span", { text: "s" }) : null, set, clear);
      };
      rows.push(setting("weight"), setting("limit"), setting("rate", el("input", { type: "number", min: "0.001", step: "any", value: "1", "data-setting": "per" })), setting("cap"));
    } else {
      rows.push(el("p", { class: "muted", text: "Actions are off (start the dashboard with --allow-actions)." }));
    }
    const close = el("button", { text: "close" });
    close.addEventListener("click", () => { ui.selected = null; panel.hidden = true; });
    rows.push(close);
    panel.replaceChildren(...rows);
    panel.hidden = false;
  }

  let inflight = false, again = false, lastPage = "";
  async function refresh() {
    if (inflight) { again = true; return; }
    inflight = true;
    try {
      const params = new URLSearchParams({ sort: ui.sort, order: ui.order, q: ui.q, offset: String(ui.offset), limit: String(ui.limit) });
      const page = await api("/api/queues/" + encodeURIComponent(queue) + "/lanes?" + params);
      // An unchanged page is not drawn again (a click is not lost to a redraw).
      const key = JSON.stringify(Object.assign({}, page, { seq: 0 })) + "|" + ui.selected;
      if (key === lastPage) return;
      lastPage = key;
      ui.columns = page.columns;
      const cols = drawHead();
      body.replaceChildren(...page.lanes.map((r) => row(r, cols)));
      // The load measurement reads when the first rows were drawn.
      if (page.lanes.length && !performance.getEntriesByName("emq-lanes-drawn").length) performance.mark("emq-lanes-drawn");
      if (page.partial === null && !performance.getEntriesByName("emq-lanes-complete").length) performance.mark("emq-lanes-complete");
      const first = page.matched ? page.offset + 1 : 0;
      // Rows are lanes and tenants' own rows: the counts name each apart.
      const counts = page.tenants_total ? num(page.lanes_total) + " lanes, " + num(page.tenants_total) + " tenants" : null;
      pager.textContent = (counts ? "rows " : "lanes ") + num(first) + "\u2013" + num(page.offset + page.lanes.length) + " of " + num(page.matched) +
        (page.matched !== page.total ? " (" + num(page.total) + " in all)" : "") + (counts ? " \u00b7 " + counts : "") +
        (page.partial !== null ? " \u2014 reading lanes: " + num(page.partial) + " of " + num(page.lanes_total) + " so far" : "");
      prev.disabled = page.offset === 0;
      next.disabled = page.offset + page.lanes.length >= page.matched;
    } catch (e) {
      if (e.status) { error.textContent = e.message; error.hidden = false; }
    } finally {
      inflight = false;
      if (again) { again = false; refresh(); }
    }
  }

  let typing = null;
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => { ui.q = search.value; ui.offset = 0; refresh(); }, 200);
  });
  prev.addEventListener("click", () => { ui.offset = Math.max(0, ui.offset - ui.limit); refresh(); });
  next.addEventListener("click", () => { ui.offset += ui.limit; refresh(); });

  async function runVerify() {
    verifyOut.replaceChildren(el("p", { class: "muted", text: "checking\u2026" }));
    try {
      const v = await api("/api/queues/" + encodeURIComponent(queue) + "/verify");
      verifyOut.replaceChildren(v.healthy
        ? el("p", { class: "ok", id: "verify-result", text: "healthy: no violation (" + v.seconds + " s)" })
        : el("div", { id: "verify-result" }, el("p", { class: "error", text: v.violations.length + " violation(s):" }),
          el("pre", { text: v.violations.join("\n") })));
    } catch (e) {
      verifyOut.replaceChildren(el("p", { class: "error", text: e.message }));
    }
  }
  verifyBtn.addEventListener("click", runVerify);
  if (redriveAll) redriveAll.addEventListener("click", async () => { await act(queue, "redrive", { all: true }); });

  // The queue's lifecycle settings (echomq/lifecycle.h), read again at most
  // every 5 s: they change only when someone sets them.
  let lifeRead = 0;
  async function readLifecycle() {
    lifeRead = Date.now();
    try {
      const l = (await api("/api/queues/" + encodeURIComponent(queue))).lifecycle;
      lifecycle.textContent = [
        l.queue_limit ? "queue-wide ceiling " + num(l.queue_limit) + " (" + num(l.leased) + " leased)" : "no queue-wide ceiling",
        l.rate ? "queue-wide rate " + num(l.rate.jobs) + " per " + l.rate.per + " s, burst " + num(l.rate.burst) : "no queue-wide rate",
        l.default_timeout ? "default time limit " + l.default_timeout + " s" : "no default time limit",
      ].join(" \u00b7 ");
    } catch (e) {
      lifecycle.textContent = "";
    }
  }

  function onFrame(f) {
    if (Date.now() - lifeRead > 5000) readLifecycle();
    const s = f.stats;
    if (s) {
      // lanes never counts a tenant's own row; the ring holds tenants and plain lanes.
      figures.replaceChildren(figure("pending", num(s.pending)), figure("leased", num(s.leased)), figure("delayed", num(s.delayed)),
        figure("dead", num(s.dead)), figure("lanes", num(s.lanes)), s.tenants ? figure("tenants", num(s.tenants)) : null,
        figure("in the ring", num(s.ring)), figure("paused", num(s.paused)), figure("served/s", rate(f.served_per_s)));
    }
    error.hidden = !f.error;
    error.textContent = f.error ? "server: " + f.error : "";
    window.EmqChart.draw(canvas, legend, f.chart, state.config.window);
    refresh();
  }

  // Server-sent events: one frame per sample. The browser reconnects by
  // itself after a network error; a stream that ended for good, or went
  // silent, is opened again here.
  let es = null, lastFrame = Date.now(), closed = false;
  function open() {
    es = new EventSource("/api/queues/" + encodeURIComponent(queue) + "/events");
    es.onopen = () => setOnline(true);
    es.onmessage = (m) => { lastFrame = Date.now(); setOnline(true); onFrame(JSON.parse(m.data)); };
    es.onerror = () => {
      setOnline(false, "lost the dashboard server");
      if (es.readyState === EventSource.CLOSED && !closed) setTimeout(open, 1000);
    };
  }
  open();
  const watchdog = setInterval(() => {
    if (Date.now() - lastFrame > 5000 + 3000 * state.config.interval) {
      setOnline(false, "no update");
      es.close();
      lastFrame = Date.now();
      open();
    }
  }, 1000);
  refresh();
  readLifecycle();
  runVerify();
  return () => { closed = true; es.close(); clearInterval(watchdog); };
}

// ---- dead letters ----------------------------------------------------------

function deadPage(view, queue) {
  crumbs([queue, queueHref(queue)], ["dead", queueHref(queue) + "/dead"]);
  document.title = "dead letters of " + queue + " - echomq";
  const ui = { offset: 0, limit: 50 };
  const body = el("tbody");
  const pager = el("span", { class: "muted", id: "pager" });
  const prev = el("button", { id: "prev", text: "\u2190 prev" });
  const next = el("button", { id: "next", text: "next \u2192" });
  const all = state.config.actions ? el("button", { id: "redrive-all", class: "danger", text: "redrive all" }) : null;
  view.replaceChildren(el("h1", {}, "Dead letters of ", el("span", { text: queue })),
    el("div", { class: "toolbar" }, prev, next, pager, all),
    el("table", { id: "dead" }, el("thead", {}, el("tr", {},
      ...["job", "lane", "attempts", "died", "last error"].map((h) => el("th", { text: h })),
      state.config.actions ? el("th", { text: "actions" }) : null)), body));
  async function load() {
    const d = await api("/api/queues/" + encodeURIComponent(queue) + "/dead?offset=" + ui.offset + "&limit=" + ui.limit);
    body.replaceChildren(...d.jobs.map((j) => {
      const tr = el("tr", { "data-job": j.id },
        el("td", {}, el("a", { href: queueHref(queue) + "/jobs/" + j.id, text: String(j.id) })),
        el("td", { class: "lane", text: j.lane }), el("td", { text: num(j.attempt) + "/" + num(j.max_attempts) }),
        el("td", { text: when(j.dead_at) }), el("td", { class: "text", text: j.last_error }));
      if (state.config.actions) {
        const redrive = el("button", { class: "redrive", text: "redrive" });
        redrive.addEventListener("click", async () => { if (await act(queue, "redrive", { ids: [j.id] })) load(); });
        const del = el("button", { class: "delete danger", text: "delete" });
        del.addEventListener("click", async () => { if (await act(queue, "delete", { id: j.id })) load(); });
        tr.append(el("td", {}, redrive, " ", del));
      }
      return tr;
    }));
    pager.textContent = d.total ? "dead " + num(d.offset + 1) + "\u2013" + num(d.offset + d.jobs.length) + " of " + num(d.total) : "no dead jobs";
    prev.disabled = ui.offset === 0;
    next.disabled = ui.offset + d.jobs.length >= d.total;
  }
  prev.addEventListener("click", () => { ui.offset = Math.max(0, ui.offset - ui.limit); load(); });
  next.addEventListener("click", () => { ui.offset += ui.limit; load(); });
  if (all) all.addEventListener("click", async () => { if (await act(queue, "redrive", { all: true })) load(); });
  return every(3000, load);
}

// ---- a job -------------------------------------------------------------------

// A job's flow: the parent that waits for it and its children with their
// states (docs/operations.md "Flows"); nothing for a job in no flow.
function flowPart(queue, f) {
  if (!f || (!f.parent && f.children.length === 0)) return el("div", { id: "flow" });
  const link = (id) => el("a", { href: queueHref(queue) + "/jobs/" + id, text: String(id) });
  const parts = [el("h2", { text: "Flow" })];
  if (f.parent) parts.push(el("p", { id: "flow-parent" }, "Job ", link(f.parent), " waits for this one (if this one dies: " + f.on_fail + ")."));
  if (f.children.length) {
    parts.push(el("p", { text: "Waits for " + f.waiting + " of its " + f.children.length + " children." }));
    const head = el("tr", {}, ...["child", "state", "attempts", "finished", "error"].map((t) => el("th", { text: t })));
    const rows = f.children.map((c) => el("tr", { "data-child": String(c.id) }, el("td", {}, link(c.id)),
      el("td", { text: c.state }), el("td", { text: String(c.attempts) }), el("td", { text: when(c.finished_at) }),
      el("td", { text: c.error || "-" })));
    parts.push(el("table", { id: "flow-children" }, el("thead", {}, head), el("tbody", {}, ...rows)));
  }
  return el("div", { id: "flow" }, ...parts);
}

function jobPage(view, queue, id) {
  crumbs([queue, queueHref(queue)], ["jobs", queueHref(queue) + "/jobs"]);
  document.title = (id ? "job " + id : "jobs") + " of " + queue + " - echomq";
  const input = el("input", { type: "number", min: "1", id: "job-id", value: id || "", placeholder: "job id" });
  const go = el("button", { id: "job-go", text: "look up" });
  const out = el("div", { id: "job" });
  const lookup = () => { if (input.value) location.assign(queueHref(queue) + "/jobs/" + encodeURIComponent(input.value)); };
  go.addEventListener("click", lookup);
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") lookup(); });
  view.replaceChildren(el("h1", {}, "A job of ", el("span", { text: queue })), el("div", { class: "toolbar" }, input, go), out);
  if (!id) return () => {};
  (async () => {
    try {
      const j = (await api("/api/queues/" + encodeURIComponent(queue) + "/jobs/" + encodeURIComponent(id))).job;
      const headers = Object.entries(j.headers || {}).map(([k, v]) => k + ": " + v).join("\n");
      const rows = [["id", j.id], ["name", j.name || "-"], ["state", j.state], ["lane", j.lane], ["attempt", j.attempt + " of " + j.max_attempts],
        ["enqueued", when(j.enqueued_at)], ["lease until", when(j.lease_until)], ["due", when(j.due_at)],
        ["died", when(j.dead_at)], ["last error", j.last_error || "-"], ["headers", headers || "-"],
        ["payload size", num(j.payload_bytes) + " bytes"]];
      const dl = el("dl", { class: "job" }, ...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { "data-field": k, text: String(v) })]));
      const parts = [dl, flowPart(queue, j.flow)];
      if ("payload" in j) parts.push(el("h2", { text: "Payload" + (j.payload_is_utf8 ? "" : " (not UTF-8: shown with replacement characters)") }), el("pre", { id: "payload", text: j.payload }));
      else parts.push(el("p", { class: "muted", text: "Payloads are hidden (start the dashboard with --show-payloads)." }));
      if (state.config.actions) {
        const del = el("button", { class: "danger", id: "job-delete", text: "delete this job" });
        del.addEventListener("click", async () => { if (await act(queue, "delete", { id: j.id })) location.reload(); });
        const parts2 = [del];
        if (j.state === "pending" || j.state === "delayed" || j.state === "leased" || j.state === "waiting") {
          // A flow's waiting parent goes with every job below it that has not run.
          const cn = el("button", { class: "danger", id: "job-cancel",
            text: j.state === "waiting" ? "cancel this job and the jobs below it" : "cancel this job" });
          cn.addEventListener("click", async () => { if (await act(queue, "cancel", { id: j.id })) location.reload(); });
          parts2.push(" ", cn);
        }
        if (j.state === "dead") {
          const rd = el("button", { id: "job-redrive", text: "redrive" });
          rd.addEventListener("click", async () => { if (await act(queue, "redrive", { ids: [j.id] })) location.reload(); });
          parts2.push(" ", rd);
        }
        parts.push(el("div", { class: "toolbar" }, ...parts2));
      }
      out.replaceChildren(...parts);
    } catch (e) {
      out.replaceChildren(el("p", { class: "error", text: e.message }));
    }
  })();
  return () => {};
}

// ---- start -----------------------------------------------------------------------

function route() {
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const view = document.getElementById("view");
  if (parts.length === 0) return queuesPage(view);
  if (parts[0] === "queues" && parts.length === 2) return queuePage(view, parts[1]);
  if (parts[0] === "queues" && parts[2] === "dead") return deadPage(view, parts[1]);
  if (parts[0] === "queues" && parts[2] === "schedules") return schedulesPage(view, parts[1]);
  if (parts[0] === "queues" && parts[2] === "jobs") return jobPage(view, parts[1], parts[3]);
  view.replaceChildren(el("p", { class: "error", text: "No such page." }));
  return () => {};
}

function tokenSetup() {
  // A link may carry the token in its fragment (#token=...), which the
  // browser never sends; it is moved to this tab's session storage.
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem("echomq-token", decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  state.token = sessionStorage.getItem("echomq-token") || "";
  if (!state.config.actions) return;
  const box = document.getElementById("token-box");
  const input = document.getElementById("token");
  box.hidden = false;
  box.addEventListener("submit", (e) => e.preventDefault());
  input.value = state.token;
  input.addEventListener("input", () => { state.token = input.value; sessionStorage.setItem("echomq-token", input.value); });
}

(async function start() {
  for (;;) {
    try { state.config = await api("/api/config"); break; } catch (e) { await new Promise((r) => setTimeout(r, 1000)); }
  }
  tokenSetup();
  route();
})();
