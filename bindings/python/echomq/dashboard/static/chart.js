// A stacked area chart of jobs served per second per entry of the outer
// ring (a plain lane or a tenant: they add up to the queue, and a tenant is
// never stacked on its own lanes), on a plain canvas: the busiest as their
// own bands and the rest as one grey band.
// Lane names reach the page only through textContent and attributes.
"use strict";

window.EmqChart = (function () {
  const COLORS = ["#2563eb", "#f59e0b", "#10b981", "#ef4444", "#8b5cf6", "#06b6d4", "#ec4899", "#84cc16"];
  const OTHERS = "#b6bcc8";

  function niceMax(v) {
    if (v <= 0) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
    return 10 * p;
  }

  function fmt(v) {
    return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  }

  // chart: {times, series: [{lane, tenant, values}], others, others_lanes}; window in seconds.
  function draw(canvas, legend, chart, windowSeconds) {
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const left = 48, right = 8, top = 8, bottom = 22;
    const pw = w - left - right, ph = h - top - bottom;
    const times = chart.times || [];
    const bands = chart.series.map((s, i) => ({ name: s.lane, values: s.values, color: COLORS[i % COLORS.length], lane: true, tenant: !!s.tenant }));
    if (chart.others && chart.others.some((v) => v > 0)) {
      bands.push({ name: "others (" + chart.others_lanes + ")", values: chart.others, color: OTHERS, lane: false });
    }
    let peak = 0;
    for (let i = 0; i < times.length; i++) {
      let sum = 0;
      for (const b of bands) sum += b.values[i] || 0;
      peak = Math.max(peak, sum);
    }
    const ymax = niceMax(peak * 1.1);
    const tEnd = times.length ? times[times.length - 1] : 0;
    const x = (t) => left + pw * (1 - (tEnd - t) / windowSeconds);
    const y = (v) => top + ph * (1 - v / ymax);

    ctx.strokeStyle = "#e3e6ec";
    ctx.fillStyle = "#6b7280";
    ctx.font = "11px system-ui, sans-serif";
    ctx.lineWidth = 1;
    for (let k = 0; k <= 4; k++) {
      const v = (ymax * k) / 4, yy = Math.round(y(v)) + 0.5;
      ctx.beginPath(); ctx.moveTo(left, yy); ctx.lineTo(left + pw, yy); ctx.stroke();
      ctx.textAlign = "right"; ctx.textBaseline = "middle";
      ctx.fillText(fmt(v), left - 6, yy);
    }
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    const steps = 4;
    for (let k = 0; k <= steps; k++) {
      const ago = windowSeconds * (1 - k / steps);
      const label = ago === 0 ? "now" : "-" + (ago >= 120 ? Math.round(ago / 60) + "m" : Math.round(ago) + "s");
      ctx.fillText(label, left + (pw * k) / steps, top + ph + 6);
    }

    // Stacked bands, bottom up.
    const base = new Array(times.length).fill(0);
    for (const b of bands) {
      if (times.length < 2) break;
      const upper = base.map((v, i) => v + (b.values[i] || 0));
      ctx.beginPath();
      for (let i = 0; i < times.length; i++) ctx.lineTo(x(times[i]), y(upper[i]));
      for (let i = times.length - 1; i >= 0; i--) ctx.lineTo(x(times[i]), y(base[i]));
      ctx.closePath();
      ctx.globalAlpha = 0.55; ctx.fillStyle = b.color; ctx.fill();
      ctx.globalAlpha = 1; ctx.strokeStyle = b.color; ctx.lineWidth = 1.5;
      ctx.beginPath();
      for (let i = 0; i < times.length; i++) ctx.lineTo(x(times[i]), y(upper[i]));
      ctx.stroke();
      for (let i = 0; i < times.length; i++) base[i] = upper[i];
    }
    if (times.length < 2) {
      ctx.fillStyle = "#6b7280"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
      ctx.fillText("collecting samples", left + pw / 2, top + ph / 2);
    }

    legend.replaceChildren();
    for (const b of bands) {
      const li = document.createElement("li");
      const sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.backgroundColor = b.color;
      const name = document.createElement("span");
      name.className = "name";
      name.textContent = b.name;
      const last = b.values.length ? b.values[b.values.length - 1] : 0;
      const val = document.createElement("span");
      val.className = "muted";
      val.textContent = fmt(last) + "/s";
      li.append(sw, name, val);
      li.setAttribute("data-series", b.tenant ? "tenant" : b.lane ? "lane" : "others");
      if (b.lane) li.setAttribute("data-lane", b.name);
      li.setAttribute("data-last", String(last));
      legend.append(li);
    }
    canvas.setAttribute("data-series", String(chart.series.length));
    canvas.setAttribute("data-points", String(times.length));
  }

  return { draw: draw };
})();
