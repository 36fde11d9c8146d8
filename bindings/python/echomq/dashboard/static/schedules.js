// The schedules page of a queue (dashboard/schedules.py): each schedule with
// its next tick, its last fired tick, where that tick's job is now and how
// late it fired. Uses app.js's helpers (el, api, every, crumbs, when, num).
"use strict";

function schedulesPage(view, queue) {
  crumbs([queue, queueHref(queue)], ["schedules", queueHref(queue) + "/schedules"]);
  document.title = "schedules of " + queue + " - echomq";
  const body = el("tbody");
  const empty = el("p", { class: "muted", id: "no-schedules", text: "This queue has no schedules.", hidden: true });
  const heads = ["schedule", "timing", "lane", "state", "next tick", "last fired tick", "last outcome", "lateness", "runs", "skips"];
  view.replaceChildren(el("h1", {}, "Schedules of ", el("span", { text: queue })),
    el("table", { id: "schedules" }, el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { text: h })))), body),
    empty);
  async function load() {
    const d = await api("/api/queues/" + encodeURIComponent(queue) + "/schedules");
    empty.hidden = d.schedules.length > 0;
    body.replaceChildren(...d.schedules.map((s) => el("tr", { "data-schedule": s.name },
      el("td", { text: s.name }), el("td", { text: s.timing }), el("td", { class: "lane", text: s.lane }),
      el("td", { text: s.state }), el("td", { text: when(s.next_at) }), el("td", { text: when(s.fired_tick) }),
      el("td", {}, s.fired_job ? el("a", { href: queueHref(queue) + "/jobs/" + s.fired_job, text: s.last_outcome }) : "-"),
      el("td", { text: s.lateness_ms === null ? "-" : num(s.lateness_ms) + " ms" }),
      el("td", { text: num(s.runs) }), el("td", { text: num(s.skips) }))));
  }
  return every(2000, load);
}
