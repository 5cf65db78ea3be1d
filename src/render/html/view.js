/*
 * view.js -- the HTML view of `waterfall render -o x.html`: reads the runs
 * that render_html.c embedded (JSON in #wf-data, the per-unit arrays as
 * base64 Int32/Float64), builds each run's summary card, and draws the
 * waterfall on one canvas: per run a lane per device (busy, and each idle
 * stretch in its cause's colour), under it its kernel lane when its units
 * have kernel phases (the union of them), and a lane per worker, then the
 * units in view (the GPU phase's sub-phases inside its bar),
 * one row each (or, past a pixel a row, several units merged into a pixel
 * row), all on one shared time scale from each run's first event.
 *
 * Large inputs stay smooth: bars are painted into a pixel buffer (one
 * putImageData a frame), spans narrower than a pixel fall into one pixel,
 * lanes are summed per pixel column, and only the units whose span meets
 * the visible time range are visited (binary search on sorted starts).
 *
 * Every text from the input goes into the page with textContent (or onto
 * the canvas with fillText): never as HTML.
 */
'use strict';
(function () {
  const PHASES = ['synthesis', 'handoff', 'queue', 'prep', 'gpu'];
  const PHASE_COLOR = ['#E69F00', '#F0E442', '#56B4E9', '#CC79A7', '#009E73'];
  const CAUSES = ['prep', 'queue', 'synthesis', 'no_work'];
  const CAUSE_COLOR = ['#CC79A7', '#56B4E9', '#E69F00', '#BBBBBB'];
  const BUSY_COLOR = '#0072B2';
  /* The GPU phase's sub-phases: the kernel's, and the others' by their
   * place in data.subphases (as the SVG draws them). */
  const KERNEL_COLOR = '#D55E00';
  const SUB_COLOR = ['#332288', '#882255', '#999933', '#555555'];
  const WITHIN = ['gpu', 'synthesis', 'unit'];
  const EVENTS = ['SYNTH_START', 'SYNTH_END', 'CHAN_SEND', 'GPU_PICKUP', 'GPU_START', 'GPU_END'];
  const BG = '#FFFFFF', LANE_BG = '#F1F1F3', GRID = '#E4E4E8', AREA_BG = '#FBFBFC';

  /* Layout, in CSS pixels. */
  const GUTTER = 190, RIGHT = 14, TOP = 4;
  const HEADER_H = 22, LANE_H = 14, KLANE_H = 8, WLANE_H = 10, LANE_GAP = 3, AREA_GAP = 6, RUN_GAP = 16, AXIS_H = 34;
  const ROW_MAX = 14, LABEL_MIN = 10, AREA_MIN = 70;

  const LE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

  /* ---- decoding ---- */

  function bytesOf(b64) {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(b64);
    const s = atob(b64), n = s.length, a = new Uint8Array(n);
    for (let i = 0; i < n; i++) a[i] = s.charCodeAt(i);
    return a;
  }
  function float64s(b64) {
    const b = bytesOf(b64), n = b.length >> 3;
    if (LE) return new Float64Array(b.buffer, 0, n);
    const v = new DataView(b.buffer), a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = v.getFloat64(8 * i, true);
    return a;
  }
  /* A column of n integers (render_html.c's column()): w bytes each, plus
   * c.o.  raw() gives the stored values (without o) as a typed array over
   * the decoded bytes, no copy; null when w is 0 (all are o). */
  function raw(c) {
    if (c.w === 0) return null;
    const b = bytesOf(c.d), n = c.n;
    if (c.w === 1) return b;
    if (LE) return c.w === 2 ? new Uint16Array(b.buffer, 0, n) : c.w === 4 ? new Uint32Array(b.buffer, 0, n)
      : new Float64Array(b.buffer, 0, n);
    const v = new DataView(b.buffer), a = new Float64Array(n);
    for (let i = 0; i < n; i++)
      a[i] = c.w === 2 ? v.getUint16(2 * i, true) : c.w === 4 ? v.getUint32(4 * i, true) : v.getFloat64(8 * i, true);
    return a;
  }
  function column(c) {
    const a = raw(c), out = new Float64Array(c.n);
    if (!a) out.fill(c.o);
    else for (let i = 0; i < c.n; i++) out[i] = a[i] + c.o;
    return out;
  }
  /* Each unit's row key in q (col encoding). */
  function keyBase(r) {
    const base = column(r.key);
    for (let i = 1; i < r.n; i++) base[i] += base[i - 1];
    return base;
  }
  /* The six times of each unit, in ns from the run's first event; NaN where absent. */
  function unitTimes(r, base) {
    if (r.enc === 'f64') return float64s(r.t);
    const n = r.n, q = r.q, T = new Float64Array(n * 6);
    for (let e = 0; e < 6; e++) { /* column by column: one array type per loop */
      const c = r.ev[e].c, a = raw(c), o = c.o, none = r.ev[e].none;
      if (!a) {
        for (let i = 0; i < n; i++) T[i * 6 + e] = o === none ? NaN : (base[i] + o) * q;
        continue;
      }
      const stored = none - o; /* what an absent event is stored as */
      for (let i = 0; i < n; i++) {
        const x = a[i];
        T[i * 6 + e] = x === stored ? NaN : (base[i] + x + o) * q;
      }
    }
    return T;
  }
  /* A device's idle stretches (or kernel time) as [start, end] pairs in ns. */
  function segTimes(segs, r) {
    if (r.enc === 'f64') return float64s(segs);
    const g = column(segs.gap), l = column(segs.len), n = g.length, out = new Float64Array(2 * n), q = r.q;
    let t = 0;
    for (let i = 0; i < n; i++) {
      t += g[i];
      out[2 * i] = t * q;
      t += l[i];
      out[2 * i + 1] = t * q;
    }
    return out;
  }
  /* Per unit: job index, partition, worker, device. */
  function unitIds(r) {
    const n = r.n, U = new Int32Array(n * 4);
    for (let k = 0; k < 4; k++) {
      const c = r.u[k], a = raw(c), o = c.o;
      if (!a) for (let i = 0; i < n; i++) U[i * 4 + k] = o;
      else for (let i = 0; i < n; i++) U[i * 4 + k] = a[i] + o;
    }
    return U;
  }

  /* Phase p of unit i as [from, to] into out; false when absent or empty. */
  function phaseOf(T, i, p, out) {
    const b = i * 6;
    let a, z;
    switch (p) {
      case 0: a = T[b]; z = T[b + 1]; break;
      case 1: a = T[b + 1]; z = T[b + 2]; break;
      case 2: a = T[b + 2] === T[b + 2] ? T[b + 2] : T[b + 1]; z = T[b + 3]; break;
      case 3: a = T[b + 3]; z = T[b + 4]; break;
      default: a = T[b + 4]; z = T[b + 5];
    }
    if (!(z > a)) return false; /* NaN, or nothing to draw */
    out[0] = a;
    out[1] = z;
    return true;
  }

  /* A unit in flight (no GPU_END): from its last event to the run's end,
   * in the state that event began.  Its phase's index, or -1. */
  function openOf(R, i, out) {
    const T = R.T, b = i * 6;
    if (T[b + 5] === T[b + 5]) return -1;
    for (let e = 4; e >= 0; e--) {
      const v = T[b + e];
      if (v !== v) continue;
      if (!(R.span > v)) return -1;
      out[0] = v;
      out[1] = R.span;
      return e === 0 ? 0 : e <= 2 ? 2 : e; /* after SYNTH_END or CHAN_SEND: queued */
    }
    return -1;
  }
  /* Span p of unit i: a phase (0-4) or, p = 5, the open state; its colour's phase or -1. */
  function spanOf(R, i, p, out) {
    return p < 5 ? (phaseOf(R.T, i, p, out) ? p : -1) : openOf(R, i, out);
  }

  /* A list of rows as steps (each from the one before): the rows, and
   * per unit i its entries first[i] .. first[i + 1]. */
  function byRow(c, n) {
    const row = column(c), first = new Int32Array(n + 1);
    let at = 0;
    for (let j = 0; j < row.length; j++) {
      at += row[j];
      row[j] = at;
      first[at + 1]++;
    }
    for (let i = 0; i < n; i++) first[i + 1] += first[i];
    return { row: row, first: first };
  }
  /* The phases and marks of the units (render_html.c's phases_json): per
   * unit i, phases pFirst[i] .. pFirst[i + 1] with name, within and
   * [pA, pB] in ns; marks likewise with mT; more: what the page left out. */
  function unitPhases(r, base) {
    const n = r.n, q = r.q, out = { pFirst: null, mFirst: null, more: null };
    if (r.ph) {
      const rw = byRow(r.ph.r, n), np = rw.row.length;
      out.pFirst = rw.first;
      out.pName = column(r.ph.nm);
      out.pWithin = column(r.ph.w);
      out.pA = new Float64Array(np);
      out.pB = new Float64Array(np);
      if (r.enc === 'f64') {
        const t = float64s(r.ph.t);
        for (let j = 0; j < np; j++) { out.pA[j] = t[2 * j]; out.pB[j] = t[2 * j + 1]; }
      } else {
        const a = column(r.ph.a), d = column(r.ph.d);
        for (let j = 0; j < np; j++) {
          out.pA[j] = (base[rw.row[j]] + a[j]) * q;
          out.pB[j] = out.pA[j] + d[j] * q;
        }
      }
    }
    if (r.mk) {
      const rw = byRow(r.mk.r, n), nm = rw.row.length;
      out.mFirst = rw.first;
      out.mName = column(r.mk.nm);
      out.mT = new Float64Array(nm);
      if (r.enc === 'f64') out.mT.set(float64s(r.mk.t));
      else {
        const a = column(r.mk.a);
        for (let j = 0; j < nm; j++) out.mT[j] = (base[rw.row[j]] + a[j]) * q;
      }
    }
    if (r.more) {
      const rows = column(r.more.r), p = column(r.more.p), m = column(r.more.m);
      out.more = new Map();
      let at = 0;
      for (let j = 0; j < rows.length; j++) {
        at += rows[j];
        out.more.set(at, [p[j], m[j]]);
      }
    }
    return out;
  }

  function prepare(r) {
    const n = r.n, base = r.enc === 'f64' ? null : keyBase(r), T = unitTimes(r, base), U = unitIds(r);
    const P = unitPhases(r, base);
    const queue = r.queue ? column(r.queue) : null, kind = r.kind ? column(r.kind) : null;
    const first = new Float64Array(n), last = new Float64Array(n), key = new Float64Array(n);
    const reach = new Float64Array(n); /* the latest last event of units 0..i */
    let span = 0, m = -Infinity;
    for (let i = 0; i < n; i++) {
      let lo = Infinity, hi = -Infinity;
      for (let e = 0; e < 6; e++) {
        const v = T[i * 6 + e];
        if (v === v) {
          if (v < lo) lo = v;
          if (v > hi) hi = v;
        }
      }
      first[i] = lo;
      last[i] = hi;
      key[i] = T[i * 6] === T[i * 6] ? T[i * 6] : lo; /* the order render_html.c sorted by */
      if (hi > m) m = hi;
      reach[i] = m;
      if (hi > span) span = hi;
    }
    const devices = r.devices.map(function (d) {
      const segs = segTimes(d.segs, r), nseg = segs.length >> 1, causes = new Uint8Array(nseg);
      for (let i = 0; i < nseg; i++) causes[i] = d.seg_causes.charCodeAt(i) - 48;
      if (nseg && segs[2 * nseg - 1] > span) span = segs[2 * nseg - 1];
      const kern = d.kern ? segTimes(d.kern, r) : null;
      return {
        d: d, segs: segs, nseg: nseg, causes: causes, lanes: [], kern: kern, nkern: kern ? kern.length >> 1 : 0,
      };
    });
    /* Worker lanes: one per (device, worker) that ran a unit on the GPU;
     * lane[i] is unit i's (-1: none).  Drawn from the units in view. */
    const lane = new Int32Array(n).fill(-1), lanes = [], byKey = new Map();
    for (let i = 0; i < n; i++) {
      if (!(T[i * 6 + 5] >= T[i * 6 + 4])) continue;
      const k = U[i * 4 + 3] * 4294967296 + U[i * 4 + 2] + 1;
      let l = byKey.get(k);
      if (l === undefined) {
        l = lanes.length;
        byKey.set(k, l);
        lanes.push({ device: U[i * 4 + 3], worker: U[i * 4 + 2], index: l, acc: null });
      }
      lane[i] = l;
    }
    for (const l of lanes) {
      const D = devices.find(function (x) { return x.d.id === l.device; });
      if (D) D.lanes.push(l);
    }
    for (const D of devices) {
      D.lanes.sort(function (x, y) { return x.worker - y.worker; });
      /* One lane of an unknown worker says nothing the device lane does not. */
      if (D.lanes.length === 1 && D.lanes[0].worker < 0) D.lanes = [];
    }
    const dec = r.q % 1e6 === 0 ? 3 : r.q % 1e3 === 0 ? 6 : 9;
    return {
      r: r, n: n, T: T, U: U, first: first, last: last, key: key, reach: reach, span: span,
      devices: devices, lane: lane, lanes: lanes, dec: dec, vis: new Int32Array(n), nvis: 0,
      P: P, queue: queue, kind: kind,
    };
  }

  /* ---- formatting ---- */

  function fmtDur(ns) {
    const a = Math.abs(ns);
    if (!isFinite(ns)) return '-';
    /* as fmt_dur (src/common/fmt.c): each unit from where the smaller
     * one's rounding would print 1000 (or 100.00 s) */
    if (a >= 99.995e9) return (ns / 1e9).toFixed(0) + ' s';
    if (a >= 999.95e6) return (ns / 1e9).toFixed(2) + ' s';
    if (a >= 999.95e3) return (ns / 1e6).toFixed(1) + ' ms';
    if (a >= 999.5) return (ns / 1e3).toFixed(1) + ' \u00b5s';
    return ns.toFixed(0) + ' ns';
  }
  function fmtTime(ns, dec) {
    return (ns / 1e9).toFixed(dec) + ' s';
  }
  /* A time of a run for its tooltips: in ms when the run is short. */
  function fmtAt(R, ns) {
    return full < 10e9 ? (ns / 1e6).toFixed(Math.max(0, R.dec - 3)) + ' ms' : fmtTime(ns, R.dec);
  }
  function micro(s) {
    return String(s).replace(/(\d) us\b/g, '$1 \u00b5s');
  }
  function pct(x) {
    return x === null || x === undefined ? 'n/a' : (100 * x).toFixed(1) + '%';
  }

  /* ---- DOM helpers (text only) ---- */

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function swatch(color) {
    const s = el('span', 'sw');
    s.style.background = color;
    return s;
  }

  const data = JSON.parse(document.getElementById('wf-data').textContent);
  const runs = data.runs.map(prepare);
  let full = 1;
  for (const R of runs) if (R.span > full) full = R.span;

  /* Names of phases and marks; the GPU sub-phases' colours by name (null:
   * not drawn), the kernel phase's on top. */
  const NAMES = data.names || [], KERNELS = new Set(data.kernels || []);
  const SUBS = new Map((data.subphases || []).map(function (nm, i) { return [nm, i]; }));
  const NAME_COLOR = NAMES.map(function (nm, i) {
    return KERNELS.has(i) ? KERNEL_COLOR : SUBS.has(nm) ? SUB_COLOR[SUBS.get(nm) % SUB_COLOR.length] : null;
  });
  const NAME_KERNEL = NAMES.map(function (nm, i) { return KERNELS.has(i); });
  /* Which of them are drawn somewhere (for the legend), and kernel lanes. */
  const drawnNames = new Set();
  let anyKernelLane = false;
  for (const R of runs) {
    const P = R.P;
    if (P.pFirst)
      for (let j = 0; j < P.pName.length; j++) if (P.pWithin[j] === 0 && NAME_COLOR[P.pName[j]]) drawnNames.add(P.pName[j]);
    for (const D of R.devices) if (D.kern) anyKernelLane = true;
  }

  /* ---- the page ---- */

  const body = document.body;
  const h1 = el('h1', null, 'waterfall');
  h1.appendChild(el('span', 'gen', data.generator + ' \u00b7 why the GPU idles'));
  body.appendChild(h1);

  const summaries = el('div');
  summaries.id = 'summaries';
  body.appendChild(summaries);
  for (const R of runs) summaries.appendChild(card(R));

  function runName(R) {
    return R.r.source + ' \u00b7 run ' + R.r.index;
  }

  function card(R) {
    const s = R.r.summary, c = el('section', 'card');
    c.appendChild(el('h2', null, runName(R)));
    let meta = s.jobs + ' jobs (' + s.jobs_completed + ' completed), ' + s.units + ' units';
    c.appendChild(el('div', 'meta', meta));
    for (const w of s.warnings) c.appendChild(el('div', 'warn', w));
    if (s.none) {
      c.appendChild(el('p', null, s.none));
      return c;
    }
    const head = el('div', 'headline');
    const u = el('span', 'util ' + (s.util >= 0.95 ? 'good' : s.util >= 0.8 ? 'fair' : 'poor'), pct(s.util));
    head.appendChild(u);
    head.appendChild(el('span', 'text', 'GPU utilization: ' + micro(s.util_text)));
    c.appendChild(head);
    if (s.kutil !== undefined) {
      /* Only with kernel phases: when the device really computed, and what
       * fills the rest of the GPU phase (the text report's line). */
      const kh = el('div', 'headline kernel');
      kh.appendChild(el('span', 'util ' + (s.kutil >= 0.95 ? 'good' : s.kutil >= 0.8 ? 'fair' : 'poor'), pct(s.kutil)));
      kh.appendChild(el('span', 'text', 'kernel utilization: ' + micro(s.kernel_text) + '; the GPU phase\'s rest: ' +
        micro(s.fill_text)));
      c.appendChild(kh);
    }
    const bar = el('div', 'idlebar');
    bar.title = 'idle by cause';
    for (const k of s.causes) {
      if (!(k.pct > 0)) continue;
      const p = el('span');
      p.style.width = k.pct + '%';
      p.style.background = CAUSE_COLOR[k.cause];
      p.title = CAUSES[k.cause] + ' ' + micro(k.text) + ' (' + k.pct.toFixed(0) + '%)';
      bar.appendChild(p);
    }
    c.appendChild(bar);
    const dl = el('dl', 'kv');
    function row(name, content) {
      dl.appendChild(el('dt', null, name));
      const dd = el('dd');
      if (typeof content === 'string') dd.textContent = content;
      else for (const x of content) dd.appendChild(x);
      dl.appendChild(dd);
    }
    const idle = [el('span', null, micro(s.idle_text) + ': ')];
    for (const k of s.causes) {
      const sp = el('span', 'cause');
      sp.appendChild(swatch(CAUSE_COLOR[k.cause]));
      sp.appendChild(document.createTextNode(CAUSES[k.cause] + ' ' + micro(k.text) + ' (' + k.pct.toFixed(0) + '%)'));
      idle.push(sp);
    }
    row('idle', idle);
    const bt = s.bottleneck_text, colon = bt.indexOf(': ');
    row('bottleneck', colon > 0 ? [el('span', 'name', bt.slice(0, colon)), el('span', null, micro(bt.slice(colon)))]
      : bt);
    row('advice', s.advice.map(function (line, i) { return el('div', i ? 'meta' : null, micro(line)); }));
    row('throughput', micro(s.throughput));
    if (s.cpu) row('cpu', s.cpu.map(function (line, i) { return el('div', i ? 'meta' : null, micro(line)); }));
    if (s.memory) row('memory', micro(s.memory));
    if (R.devices.length > 1) {
      row('devices', R.devices.map(function (D) {
        const d = D.d;
        return el('div', null, 'GPU ' + d.id + ': ' + d.workers.length + (d.workers.length === 1 ? ' worker, ' : ' workers, ') +
          d.units + (d.units === 1 ? ' unit, ' : ' units, ') +
          pct(d.util) + (d.kutil !== undefined ? ' (kernels ' + pct(d.kutil) + ')' : '') +
          ', busy ' + micro(d.busy) + ', idle ' + micro(d.idle));
      }));
    }
    c.appendChild(dl);
    const det = el('details');
    det.appendChild(el('summary', null, 'stage times'));
    const t = el('table', 'stages'), hr = el('tr');
    for (const h of ['stage', 'count', 'mean', 'p50', 'p90', 'p99', 'max']) hr.appendChild(el('th', null, h));
    t.appendChild(hr);
    for (const st of s.stages) {
      const tr = el('tr'), name = el('td');
      name.appendChild(swatch(PHASE_COLOR[st[0]]));
      name.appendChild(document.createTextNode(PHASES[st[0]]));
      tr.appendChild(name);
      tr.appendChild(el('td', null, String(st[1])));
      for (let i = 2; i < 7; i++) tr.appendChild(el('td', null, micro(st[i])));
      t.appendChild(tr);
    }
    det.appendChild(t);
    c.appendChild(det);
    return c;
  }

  /* Legend and controls. */
  const bar = el('div');
  bar.id = 'bar';
  const lanesLegend = el('div', 'legend');
  lanesLegend.appendChild(el('span', 'title', 'GPU lanes:'));
  function legendItem(parent, color, text) {
    const s = el('span');
    s.appendChild(swatch(color));
    s.appendChild(document.createTextNode(text));
    parent.appendChild(s);
  }
  legendItem(lanesLegend, BUSY_COLOR, 'busy');
  for (let c = 0; c < 4; c++) legendItem(lanesLegend, CAUSE_COLOR[c], 'idle: ' + CAUSES[c].replace('_', ' '));
  if (anyKernelLane) legendItem(lanesLegend, KERNEL_COLOR, 'kernels (' + data.kernel_phase + ' phases)');
  const unitsLegend = el('div', 'legend');
  unitsLegend.appendChild(el('span', 'title', 'units:'));
  for (let p = 0; p < 5; p++) legendItem(unitsLegend, PHASE_COLOR[p], PHASES[p]);
  legendItem(unitsLegend, '#' + rgbOf(PHASE_COLOR[2]).map(function (v) {
    return Math.round(v + (255 - v) * 0.55).toString(16).padStart(2, '0');
  }).join(''), 'paler: in flight, until the log ends');
  let subLegend = null;
  if (drawnNames.size) {
    /* the GPU phase's sub-phases: the kernel, then the others by name */
    subLegend = el('div', 'legend');
    subLegend.id = 'sublegend';
    subLegend.appendChild(el('span', 'title', 'inside gpu:'));
    const order = Array.from(drawnNames).sort(function (a, b) {
      return NAME_KERNEL[a] !== NAME_KERNEL[b] ? (NAME_KERNEL[a] ? -1 : 1) : SUBS.get(NAMES[a]) - SUBS.get(NAMES[b]);
    });
    for (const j of order) legendItem(subLegend, NAME_COLOR[j], NAMES[j] + (NAME_KERNEL[j] ? ' (kernel)' : ''));
  }
  const reset = el('button', null, 'Reset');
  reset.type = 'button';
  reset.title = 'show everything (key 0 or r)';
  const range = el('span');
  range.id = 'range';
  bar.appendChild(lanesLegend);
  bar.appendChild(unitsLegend);
  if (subLegend) bar.appendChild(subLegend);
  bar.appendChild(reset);
  bar.appendChild(range);
  bar.appendChild(el('span', 'hint', 'wheel: zoom \u00b7 drag: pan \u00b7 0 or r: reset \u00b7 hover: details'));
  body.appendChild(bar);

  const chart = el('div');
  chart.id = 'chart';
  const canvas = el('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', 'waterfall of ' + runs.length + ' run(s): GPU lanes, then units by phase');
  chart.appendChild(canvas);
  body.appendChild(chart);
  const tip = el('div');
  tip.id = 'tip';
  tip.hidden = true;
  body.appendChild(tip);
  const ctx = canvas.getContext('2d');

  /* ---- the view ---- */

  let v0 = 0, v1 = full;
  const MIN_SPAN = 100; /* ns */
  let cssW = 0, cssH = 0, dpr = 1, plotW = 1, img = null, buf = null, PW = 0, PH = 0;
  let areaH = [];

  function rgba(hex) {
    const r = parseInt(hex.slice(1, 3), 16), g = parseInt(hex.slice(3, 5), 16), b = parseInt(hex.slice(5, 7), 16);
    return LE ? ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 255) >>> 0;
  }
  function rgbOf(hex) {
    return [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16)];
  }
  function mix(a, b, f) { /* a..b by f in [0, 1], as a pixel */
    const r = Math.round(a[0] + (b[0] - a[0]) * f), g = Math.round(a[1] + (b[1] - a[1]) * f),
      bl = Math.round(a[2] + (b[2] - a[2]) * f);
    return LE ? ((255 << 24) | (bl << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (bl << 8) | 255) >>> 0;
  }
  const PX_PHASE = PHASE_COLOR.map(rgba), PX_CAUSE = CAUSE_COLOR.map(rgba), PX_BUSY = rgba(BUSY_COLOR);
  const PX_OPEN = PHASE_COLOR.map(function (h) { return mix(rgbOf(h), [255, 255, 255], 0.55); });
  const PX_NAME = NAME_COLOR.map(function (h) { return h ? rgba(h) : 0; }), PX_KERNEL = rgba(KERNEL_COLOR);
  const PX_BG = rgba(BG), PX_LANE = rgba(LANE_BG), PX_GRID = rgba(GRID), PX_AREA = rgba(AREA_BG);
  const RGB_LANE = rgbOf(LANE_BG), RGB_BUSY = rgbOf(BUSY_COLOR);
  const WORKER_SHADES = [];
  for (let i = 0; i <= 16; i++) WORKER_SHADES.push(mix(RGB_LANE, RGB_BUSY, i / 16));
  const KERNEL_SHADES = [];
  for (let i = 0; i <= 16; i++) KERNEL_SHADES.push(mix(RGB_LANE, rgbOf(KERNEL_COLOR), i / 16));

  /* Heights are fixed per window size, not per zoom, so nothing jumps. */
  function sizeUp() {
    dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
    cssW = Math.max(480, chart.clientWidth);
    plotW = cssW - GUTTER - RIGHT;
    let fixed = TOP + AXIS_H;
    for (const R of runs) fixed += HEADER_H + AREA_GAP + RUN_GAP + lanesHeight(R);
    const top = chart.getBoundingClientRect().top + window.scrollY;
    const room = Math.max(runs.length * 240, window.innerHeight - Math.min(top, 420) - fixed - 12);
    const share = Math.floor(room / runs.length);
    areaH = runs.map(function (R) { return Math.max(AREA_MIN, Math.min(share, R.n * ROW_MAX)); });
    cssH = fixed;
    for (const h of areaH) cssH += h;
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    canvas.style.height = cssH + 'px';
    PW = Math.max(1, Math.round(plotW * dpr));
    PH = canvas.height;
    img = ctx.createImageData(PW, PH);
    buf = new Uint32Array(img.data.buffer);
  }
  function lanesHeight(R) {
    let h = 0;
    for (const D of R.devices)
      h += LANE_H + LANE_GAP + (D.kern ? KLANE_H + LANE_GAP : 0) + D.lanes.length * (WLANE_H + 2);
    return h;
  }

  /* Device pixel helpers. */
  function hline(y, x0, x1, c) {
    const o = y * PW;
    if (x1 - x0 <= 8) for (let i = o + x0, e = o + x1; i < e; i++) buf[i] = c;
    else buf.fill(c, o + x0, o + x1);
  }
  function block(y0, y1, x0, x1, c) {
    for (let y = y0; y < y1; y++) hline(y, x0, x1, c);
  }
  /* Copy row y0's pixels down to rows y0+1..y1-1. */
  function replicate(y0, y1) {
    for (let y = y0 + 1; y < y1; y++) buf.copyWithin(y * PW, y0 * PW, (y0 + 1) * PW);
  }
  function firstReaching(reach, t) { /* first j with reach[j] >= t */
    let lo = 0, hi = reach.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (reach[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  function lastStarting(key, t, from) { /* last j with key[j] <= t, or from - 1 */
    let lo = from, hi = key.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (key[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }
  /* Add the part of [a, b) (pixels, fractional) in each column to acc. */
  function cover(acc, a, b) {
    if (b <= 0 || a >= PW) return;
    if (a < 0) a = 0;
    if (b > PW) b = PW;
    const i0 = Math.floor(a), i1 = Math.floor(b);
    if (i0 === i1) {
      acc[i0] += b - a;
      return;
    }
    acc[i0] += i0 + 1 - a;
    for (let i = i0 + 1; i < i1; i++) acc[i] += 1;
    if (i1 < PW) acc[i1] += b - i1;
  }

  /* Ticks: 1, 2 or 5 x 10^n, about every 110 px; labels in s, ms, us or ns. */
  function ticks() {
    const span = v1 - v0, raw = span / Math.max(1, plotW / 110);
    let step = Math.pow(10, Math.floor(Math.log10(raw)));
    if (raw / step >= 5) step *= 5;
    else if (raw / step >= 2) step *= 2;
    const unit = step >= 1e9 ? [1e9, 's'] : step >= 1e6 ? [1e6, 'ms'] : step >= 1e3 ? [1e3, '\u00b5s'] : [1, 'ns'];
    const dec = Math.max(0, -Math.floor(Math.log10(step / unit[0]) + 1e-9));
    /* Deep in a long run, print offsets from a round base, not 9 digits. */
    let base = 0;
    if (v1 / unit[0] >= 1e5) base = Math.floor(v0 / (step * 1000)) * step * 1000;
    const out = [];
    for (let t = Math.ceil(v0 / step) * step; t <= v1 + step * 1e-6; t += step) {
      const v = (t - base) / unit[0];
      out.push({ t: t, label: (base ? '+' : '') + v.toFixed(dec) + ' ' + unit[1] });
    }
    return { list: out, base: base };
  }

  let layoutRuns = []; /* per run, where its parts were drawn (CSS px) */
  let drawn = false, ready = false, readyAt = 0, drawMs = 0;

  function draw() {
    pending = false;
    const started = performance.now();
    const kx = PW / (v1 - v0); /* device px per ns */
    const xs = function (t) { return (t - v0) * kx; };
    const dev = function (cy) { return Math.round(cy * dpr); };
    buf.fill(PX_BG);
    const tk = ticks();
    const grid = function (y0, y1) {
      for (const k of tk.list) {
        const x = Math.floor(xs(k.t));
        if (x >= 0 && x < PW) for (let yy = y0; yy < y1; yy++) buf[yy * PW + x] = PX_GRID;
      }
    };
    /* Paint [a, b) (ns) on pixel row y; at least one pixel. */
    const paint = function (y, a, b, c) {
      let x0 = Math.floor((a - v0) * kx), x1 = Math.ceil((b - v0) * kx);
      if (x1 <= x0) x1 = x0 + 1;
      if (x1 <= 0 || x0 >= PW) return;
      if (x0 < 0) x0 = 0;
      if (x1 > PW) x1 = PW;
      const o = y * PW;
      if (x1 - x0 <= 8) for (let i = o + x0, e = o + x1; i < e; i++) buf[i] = c;
      else buf.fill(c, o + x0, o + x1);
    };
    if (!accBusy || accBusy.length !== PW) {
      accBusy = new Float32Array(PW);
      accCause = [0, 1, 2, 3].map(function () { return new Float32Array(PW); });
      for (const R of runs) for (const l of R.lanes) l.acc = new Float32Array(PW);
    }
    layoutRuns = [];
    let y = TOP;
    runs.forEach(function (R, ri) {
      const L = { R: R, header: y, lanes: [], area: null };
      y += HEADER_H;
      for (const D of R.devices) {
        L.lanes.push({ y: y, h: LANE_H, D: D, lane: null });
        y += LANE_H + LANE_GAP;
        if (D.kern) { /* its kernel lane, right under it */
          L.lanes.push({ y: y, h: KLANE_H, D: D, lane: null, kern: true });
          y += KLANE_H + LANE_GAP;
        }
        for (const l of D.lanes) {
          L.lanes.push({ y: y, h: WLANE_H, D: D, lane: l });
          y += WLANE_H + 2;
        }
      }
      y += AREA_GAP - LANE_GAP;
      const A = areaH[ri], a0 = dev(y), a1 = dev(y + A);
      block(a0, a1, 0, PW, PX_AREA);
      grid(a0, a1);

      /* The units in view: their span meets [v0, v1]; found from the
       * sorted keys, so a zoomed view visits only its neighbourhood. */
      const j0 = firstReaching(R.reach, v0), j1 = lastStarting(R.key, v1, j0);
      const first = R.first, last = R.last, vis = R.vis;
      let nv = 0;
      for (let i = j0; i <= j1; i++) if (last[i] >= v0 && first[i] <= v1) vis[nv++] = i;
      R.nvis = nv;
      const AP = a1 - a0;
      let rowPx = Math.min(Math.round(ROW_MAX * dpr), nv ? Math.floor(AP / nv) : 0), k = 1;
      if (nv && rowPx < 1) { /* several units to a pixel row */
        k = Math.ceil(nv / AP);
        rowPx = 1;
      }
      const gap = rowPx >= 5 ? Math.max(1, Math.round(dpr)) : 0;
      const T = R.T, laneOf = R.lane, lanes = R.lanes, P = R.P, pFirst = P.pFirst;
      for (const l of lanes) l.acc.fill(0);
      const span2 = [0, 0];
      const c0 = PX_PHASE[0], c1 = PX_PHASE[1], c2 = PX_PHASE[2], c3 = PX_PHASE[3], c4 = PX_PHASE[4];
      for (let v = 0; v < nv; v++) {
        const i = vis[v], ry = a0 + Math.floor(v / k) * rowPx, b = i * 6;
        const t0 = T[b], t1 = T[b + 1], t2 = T[b + 2], t3 = T[b + 3], t4 = T[b + 4], t5 = T[b + 5];
        const ready = t2 === t2 ? t2 : t1;
        /* In pipeline order, so the later phases stay on top. */
        if (t1 > t0) paint(ry, t0, t1, c0);
        if (t2 > t1) paint(ry, t1, t2, c1);
        if (t3 > ready) paint(ry, ready, t3, c2);
        if (t4 > t3) paint(ry, t3, t4, c3);
        if (t5 > t4) paint(ry, t4, t5, c4);
        if (t5 >= t4 && laneOf[i] >= 0) cover(lanes[laneOf[i]].acc, xs(t4), xs(t5));
        let end = last[i];
        if (t5 !== t5) { /* in flight: its state until the log ends, paler */
          const ph = openOf(R, i, span2);
          if (ph >= 0) {
            paint(ry, span2[0], span2[1], PX_OPEN[ph]);
            end = span2[1];
          }
        }
        if (k === 1 && rowPx > 1) {
          let xa = Math.floor(xs(first[i])), xb = Math.ceil(xs(end)) + 1;
          if (xa < 0) xa = 0;
          if (xb > PW) xb = PW;
          if (xb > xa)
            for (let yy = ry + 1; yy < ry + rowPx - gap; yy++) buf.copyWithin(yy * PW + xa, ry * PW + xa, ry * PW + xb);
        }
        /* The GPU phase's sub-phases, inside its bar: in its lower part
         * (the whole row when the row is too thin), the kernel's on top. */
        if (pFirst && t5 >= t4 && pFirst[i + 1] > pFirst[i]) {
          const bd = band(ry, rowPx, gap);
          for (let pass = 0; pass < 2; pass++)
            for (let j = pFirst[i]; j < pFirst[i + 1]; j++) {
              const nm = P.pName[j];
              if (P.pWithin[j] !== 0 || !PX_NAME[nm] || NAME_KERNEL[nm] !== (pass === 1)) continue;
              for (let yy = bd[0]; yy < bd[1]; yy++) paint(yy, P.pA[j], P.pB[j], PX_NAME[nm]);
            }
        }
      }
      L.area = { y: y, h: A, rowCss: rowPx / dpr, k: k, nv: nv, a0: a0, rowPx: rowPx, gap: gap };

      for (const ln of L.lanes) {
        const y0 = dev(ln.y), y1 = dev(ln.y + ln.h);
        if (ln.lane) {
          /* A worker lane: shaded by how much of each column it was busy. */
          const acc = ln.lane.acc, o = y0 * PW;
          for (let x = 0; x < PW; x++) {
            const f = acc[x];
            buf[o + x] = f <= 0 ? PX_LANE : f >= 1 ? PX_BUSY : WORKER_SHADES[Math.max(1, Math.round(f * 16))];
          }
          replicate(y0, y1);
        } else if (ln.kern) {
          kernelLane(ln.D, y0, y1, xs);
        } else {
          deviceLane(ln.D, y0, y1, xs);
        }
      }
      layoutRuns.push(L);
      y += A + RUN_GAP;
    });
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = BG;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.putImageData(img, Math.round(GUTTER * dpr), 0);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    labels(tk, y - RUN_GAP + 8);
    range.textContent = 'showing ' + fmtTime(v0, 6).replace(/\.?0+ s$/, ' s') + ' \u2013 ' +
      fmtTime(v1, 6).replace(/\.?0+ s$/, ' s') + ' (' + fmtDur(v1 - v0) + ')';
    drawn = true;
    drawMs = performance.now() - started;
    if (!ready) {
      ready = true;
      readyAt = performance.now();
    }
    if (hover) hoverAt(hover.x, hover.y);
  }

  /* The device pixel rows [from, to) of a unit row's sub-phase band. */
  function band(ry, rowPx, gap) {
    const h = Math.max(1, rowPx - gap);
    return [h >= 3 ? ry + Math.ceil(h * 0.4) : ry, ry + h];
  }

  /* A kernel lane: each column shaded by how much of it a kernel ran
   * (the union of the device's kernel phases). */
  function kernelLane(D, y0, y1, xs) {
    const o = y0 * PW, k = D.kern;
    buf.fill(PX_LANE, o, o + PW);
    accBusy.fill(0);
    let lo = 0, hi = D.nkern;
    while (lo < hi) { /* the first span ending after v0 (disjoint, in order) */
      const mid = (lo + hi) >> 1;
      if (k[2 * mid + 1] < v0) lo = mid + 1;
      else hi = mid;
    }
    for (let s = lo; s < D.nkern && k[2 * s] <= v1; s++) cover(accBusy, xs(k[2 * s]), xs(k[2 * s + 1]));
    for (let x = 0; x < PW; x++) {
      const f = accBusy[x];
      if (f > 0) buf[o + x] = f >= 1 ? PX_KERNEL : KERNEL_SHADES[Math.max(1, Math.round(f * 16))];
    }
    replicate(y0, y1);
  }

  /* A device lane: each column is a stacked bar of what its time was, busy
   * at the bottom, then each idle cause; a column wholly in one state is
   * solid, so zoomed in the lane shows each stretch as it is. */
  let accBusy = null, accCause = null;
  function deviceLane(D, y0, y1, xs) {
    const d = D.d, H = y1 - y0;
    for (let y = y0; y < y1; y++) buf.fill(PX_LANE, y * PW, (y + 1) * PW);
    if (d.ws === null || d.we === null) return;
    accBusy.fill(0);
    for (const a of accCause) a.fill(0);
    cover(accBusy, xs(d.ws), xs(d.we));
    const segs = D.segs;
    let lo = 0, hi = D.nseg;
    while (lo < hi) { /* the first stretch ending after v0 (they are disjoint, in order) */
      const mid = (lo + hi) >> 1;
      if (segs[2 * mid + 1] < v0) lo = mid + 1;
      else hi = mid;
    }
    for (let s = lo; s < D.nseg && segs[2 * s] <= v1; s++)
      cover(accCause[D.causes[s]], xs(segs[2 * s]), xs(segs[2 * s + 1]));
    for (let x = 0; x < PW; x++) {
      const w = accBusy[x];
      if (w <= 0.02) continue;
      const whole = H / Math.min(1, w); /* rows per unit of time in this column */
      let idle = 0;
      for (let c = 0; c < 4; c++) idle += accCause[c][x];
      let y = y1, rows = Math.round(Math.max(0, w - idle) * whole);
      for (let k = 0; k < rows && y > y0; k++) buf[--y * PW + x] = PX_BUSY;
      for (let c = 0; c < 4; c++) {
        rows = Math.round(accCause[c][x] * whole);
        for (let k = 0; k < rows && y > y0; k++) buf[--y * PW + x] = PX_CAUSE[c];
      }
    }
  }

  /* A job id to fit a width: its start and its end (where ids differ
   * most: UUIDs, sector numbers), a partition suffix kept whole. */
  function fitLabel(job, suffix, width) {
    const text = job + suffix;
    if (ctx.measureText(text).width <= width) return text;
    let lo = 0, hi = job.length;
    while (lo < hi) { /* the most characters of the id that fit, split half and half */
      const mid = (lo + hi + 1) >> 1, head = Math.ceil(mid / 2), tail = mid - head;
      const t = job.slice(0, head) + '\u2026' + (tail ? job.slice(job.length - tail) : '') + suffix;
      if (ctx.measureText(t).width <= width) lo = mid;
      else hi = mid - 1;
    }
    const head = Math.ceil(lo / 2), tail = lo - head;
    return job.slice(0, head) + '\u2026' + (tail ? job.slice(job.length - tail) : '') + suffix;
  }

  function ellipsize(text, width) {
    if (ctx.measureText(text).width <= width) return text;
    let lo = 0, hi = text.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ctx.measureText(text.slice(0, mid) + '\u2026').width <= width) lo = mid;
      else hi = mid - 1;
    }
    return text.slice(0, lo) + '\u2026';
  }

  function labels(tk, axisY) {
    const font = '12px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';
    ctx.textBaseline = 'middle';
    for (const L of layoutRuns) {
      const R = L.R, s = R.r.summary;
      ctx.font = '600 ' + font;
      ctx.textAlign = 'left';
      ctx.fillStyle = '#1d1d1f';
      const name = ellipsize(runName(R), GUTTER + plotW * 0.45);
      ctx.fillText(name, 6, L.header + HEADER_H / 2);
      const w = ctx.measureText(name).width;
      ctx.font = font;
      ctx.fillStyle = '#444';
      let info = s.none ? 'no GPU work measured' :
        'GPU utilization ' + pct(s.util) + (s.kutil !== undefined ? ' \u00b7 kernel utilization ' + pct(s.kutil) : '') +
        ' \u00b7 bottleneck ' + s.bottleneck;
      info += ' \u00b7 units in view: ' + R.nvis + ' of ' + R.n;
      if (L.area.k > 1) info += ' (a pixel row = ' + L.area.k + ' units)';
      ctx.fillText(ellipsize(info, cssW - w - 30), 6 + w + 14, L.header + HEADER_H / 2);
      ctx.textAlign = 'right';
      for (const ln of L.lanes) {
        if (ln.kern) {
          ctx.font = '9px system-ui, sans-serif';
          ctx.fillStyle = '#555';
          ctx.fillText('kernels' + (ln.D.d.kutil !== null ? '  ' + pct(ln.D.d.kutil) : ''), GUTTER - 8, ln.y + ln.h / 2);
        } else if (ln.lane) {
          ctx.font = '10px system-ui, sans-serif';
          ctx.fillStyle = '#555';
          ctx.fillText(ln.lane.worker < 0 ? 'worker ?' : 'worker ' + ln.lane.worker, GUTTER - 8, ln.y + ln.h / 2);
        } else {
          ctx.font = font;
          ctx.fillStyle = '#1d1d1f';
          ctx.fillText('GPU ' + ln.D.d.id + (ln.D.d.util !== null ? '  ' + pct(ln.D.d.util) : ''), GUTTER - 8,
            ln.y + ln.h / 2);
        }
      }
      const A = L.area;
      ctx.font = font;
      ctx.fillStyle = '#555';
      if (A.rowCss >= LABEL_MIN && A.k === 1) {
        ctx.font = '11px system-ui, sans-serif';
        ctx.fillStyle = '#333';
        for (let v = 0; v < A.nv; v++) {
          const i = R.vis[v], job = R.r.jobs[R.U[i * 4]], p = R.U[i * 4 + 1];
          ctx.fillText(fitLabel(job, p >= 0 ? ' p' + p : '', GUTTER - 16), GUTTER - 8, A.y + v * A.rowCss + A.rowCss / 2);
        }
      } else {
        ctx.textAlign = 'right';
        ctx.fillText(A.nv ? 'units' : 'no unit in view', GUTTER - 8, A.y + 10);
        if (A.k > 1) {
          ctx.font = '10px system-ui, sans-serif';
          ctx.fillStyle = '#777';
          ctx.fillText(A.k + ' units a pixel row', GUTTER - 8, A.y + 24);
        }
      }
    }
    /* The axis. */
    ctx.strokeStyle = '#555';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(GUTTER, axisY + 0.5);
    ctx.lineTo(GUTTER + plotW, axisY + 0.5);
    ctx.stroke();
    ctx.font = '11px system-ui, sans-serif';
    ctx.fillStyle = '#333';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    const kx = plotW / (v1 - v0);
    let lastRight = -Infinity;
    for (const k of tk.list) {
      const x = GUTTER + (k.t - v0) * kx;
      ctx.beginPath();
      ctx.moveTo(Math.round(x) + 0.5, axisY);
      ctx.lineTo(Math.round(x) + 0.5, axisY + 5);
      ctx.stroke();
      const w = ctx.measureText(k.label).width, lx = Math.min(x, cssW - 2 - w / 2);
      if (lx - w / 2 > lastRight + 6) {
        ctx.fillText(k.label, lx, axisY + 8);
        lastRight = lx + w / 2;
      }
    }
    ctx.textAlign = 'right';
    ctx.fillStyle = '#555';
    ctx.fillText(tk.base ? 'time from ' + fmtTime(tk.base, 6).replace(/\.?0+ s$/, ' s') + ' +' : 'time from run start',
      GUTTER - 30, axisY + 8);
  }

  let pending = false;
  function redraw() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(draw);
    }
  }

  /* ---- interaction ---- */

  function setView(a, b) {
    let s = Math.max(MIN_SPAN, Math.min(full, b - a));
    if (s >= full) {
      a = 0;
    } else {
      if (a < 0) a = 0;
      if (a + s > full) a = full - s;
    }
    v0 = a;
    v1 = a + s;
    redraw();
  }
  function resetView() {
    setView(0, full);
  }
  function timeAt(clientX) {
    const r = canvas.getBoundingClientRect();
    const x = Math.min(Math.max(clientX - r.left - GUTTER, 0), plotW);
    return v0 + (x / plotW) * (v1 - v0);
  }
  function zoomAt(clientX, factor) {
    const t = timeAt(clientX), s = Math.max(MIN_SPAN, Math.min(full, (v1 - v0) * factor));
    setView(t - (t - v0) * (s / (v1 - v0)), t - (t - v0) * (s / (v1 - v0)) + s);
  }

  canvas.addEventListener('wheel', function (e) {
    e.preventDefault();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY) || e.shiftKey) {
      const d = (e.shiftKey && !e.deltaX ? e.deltaY : e.deltaX) * unit;
      setView(v0 + (d / plotW) * (v1 - v0), v1 + (d / plotW) * (v1 - v0));
      return;
    }
    zoomAt(e.clientX, Math.exp(Math.max(-300, Math.min(300, e.deltaY * unit)) * 0.002));
  }, { passive: false });

  let drag = null;
  canvas.addEventListener('pointerdown', function (e) {
    if (e.button !== 0) return;
    drag = { x: e.clientX, v0: v0, v1: v1, id: e.pointerId };
    canvas.setPointerCapture(e.pointerId);
    canvas.classList.add('dragging');
    hideTip();
  });
  canvas.addEventListener('pointermove', function (e) {
    if (drag) {
      const dt = ((e.clientX - drag.x) / plotW) * (drag.v1 - drag.v0);
      setView(drag.v0 - dt, drag.v1 - dt);
      return;
    }
    hover = { x: e.clientX, y: e.clientY };
    hoverAt(e.clientX, e.clientY);
  });
  function endDrag(e) {
    if (!drag) return;
    if (canvas.hasPointerCapture(drag.id)) canvas.releasePointerCapture(drag.id);
    drag = null;
    canvas.classList.remove('dragging');
    hover = { x: e.clientX, y: e.clientY };
    hoverAt(e.clientX, e.clientY);
  }
  canvas.addEventListener('pointerup', endDrag);
  canvas.addEventListener('pointercancel', endDrag);
  canvas.addEventListener('pointerleave', function () {
    if (!drag) {
      hover = null;
      hideTip();
    }
  });
  canvas.addEventListener('dblclick', function (e) {
    zoomAt(e.clientX, e.shiftKey ? 2 : 0.5);
  });
  reset.addEventListener('click', resetView);
  window.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const s = v1 - v0;
    const r = canvas.getBoundingClientRect();
    const cx = r.left + GUTTER + plotW / 2;
    switch (e.key) {
      case '0': case 'r': case 'R': resetView(); break;
      case '+': case '=': zoomAt(cx, 0.5); break;
      case '-': case '_': zoomAt(cx, 2); break;
      case 'ArrowLeft': setView(v0 - s / 8, v1 - s / 8); break;
      case 'ArrowRight': setView(v0 + s / 8, v1 + s / 8); break;
      default: return;
    }
    e.preventDefault();
  });
  let resizeTimer = 0;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      sizeUp();
      redraw();
    }, 60);
  });

  /* ---- hover ---- */

  let hover = null;
  function hideTip() {
    tip.hidden = true;
  }

  /* What is under the pointer: a unit, a device lane's state, or nothing. */
  function hitTest(clientX, clientY) {
    const rc = canvas.getBoundingClientRect(), x = clientX - rc.left, y = clientY - rc.top;
    if (x < GUTTER || x > GUTTER + plotW) return null;
    const t = v0 + ((x - GUTTER) / plotW) * (v1 - v0), tol = (3 / plotW) * (v1 - v0);
    for (const L of layoutRuns) {
      const R = L.R;
      for (const ln of L.lanes) {
        if (y < ln.y || y >= ln.y + ln.h + 1) continue;
        if (ln.kern) return { kind: 'kernel', R: R, D: ln.D, t: t };
        if (ln.lane) {
          /* The unit on that worker nearest the pointer, among those in view. */
          const li = ln.lane.index, T = R.T;
          let best = -1, bd = tol;
          for (let v = 0; v < R.nvis; v++) {
            const i = R.vis[v];
            if (R.lane[i] !== li) continue;
            const a = T[i * 6 + 4], b = T[i * 6 + 5];
            const d = t < a ? a - t : t > b ? t - b : 0;
            if (d < bd || (d === 0 && best < 0)) { bd = d; best = i; }
          }
          return best >= 0 ? { kind: 'unit', R: R, i: best, p: 4, t: t } : null;
        }
        return { kind: 'device', R: R, D: ln.D, t: t };
      }
      const A = L.area;
      if (!A || y < A.y || y >= A.y + A.h) continue;
      const row = Math.floor((y - A.y) / A.rowCss);
      const v0r = row * A.k, v1r = Math.min(A.nv, v0r + A.k);
      let best = -1, bd = Infinity, bp = 0;
      const sp = [0, 0];
      for (let v = v0r; v < v1r; v++) {
        const i = R.vis[v];
        for (let p = 0; p < 6; p++) {
          const ph = spanOf(R, i, p, sp);
          if (ph < 0) continue;
          const d = t < sp[0] ? sp[0] - t : t > sp[1] ? t - sp[1] : 0;
          if (d < bd || (d === bd && d === 0)) { bd = d; best = i; bp = ph; }
        }
      }
      if (best >= 0 && bd <= tol) return { kind: 'unit', R: R, i: best, p: bp, t: t, k: A.k };
      return null;
    }
    return null;
  }

  function hoverAt(clientX, clientY) {
    const h = hitTest(clientX, clientY);
    if (!h) return hideTip();
    tip.textContent = '';
    if (h.kind === 'unit') unitTip(h);
    else if (h.kind === 'kernel') kernelTip(h);
    else deviceTip(h);
    tip.hidden = false;
    const w = tip.offsetWidth, hh = tip.offsetHeight;
    let left = clientX + 14, top = clientY + 14;
    if (left + w > window.innerWidth - 4) left = Math.max(4, clientX - w - 14);
    if (top + hh > window.innerHeight - 4) top = Math.max(4, clientY - hh - 14);
    tip.style.left = left + 'px';
    tip.style.top = top + 'px';
  }

  function unitTip(h) {
    const R = h.R, i = h.i, T = R.T, U = R.U;
    const job = R.r.jobs[U[i * 4]], part = U[i * 4 + 1], worker = U[i * 4 + 2], device = U[i * 4 + 3];
    tip.appendChild(el('div', 'id', job));
    const sub = [];
    if (part >= 0) sub.push('partition ' + part);
    if (R.kind && R.kind[i] >= 0) sub.push('kind ' + R.r.kinds[R.kind[i]]);
    if (T[i * 6 + 3] === T[i * 6 + 3] || T[i * 6 + 4] === T[i * 6 + 4])
      sub.push('GPU ' + device + (worker >= 0 ? ' worker ' + worker : ''));
    sub.push(runName(R));
    tip.appendChild(el('div', 'sub', sub.join(' \u00b7 ')));
    if (!(T[i * 6 + 5] === T[i * 6 + 5])) tip.appendChild(el('div', 'warn', 'in flight: no GPU_END'));
    if (h.k > 1) tip.appendChild(el('div', 'sub', 'one of the ' + h.k + ' units of this pixel row'));
    const table = el('table');
    for (let e = 0; e < 6; e++) {
      const tr = el('tr'), v = T[i * 6 + e];
      /* CHAN_SEND as the log wrote it */
      tr.appendChild(el('td', null, e === 2 && R.queue && R.queue[i] ? 'GPU_QUEUE' : EVENTS[e]));
      tr.appendChild(el('td', 'n', v === v ? fmtAt(R, v) : '\u2014'));
      table.appendChild(tr);
    }
    const sp = [0, 0];
    let firstPhase = true;
    for (let p = 0; p < 5; p++) {
      const tr = el('tr'), name = el('td');
      if (firstPhase) tr.className = 'sep';
      firstPhase = false;
      name.appendChild(swatch(PHASE_COLOR[p]));
      name.appendChild(document.createTextNode(PHASES[p]));
      tr.appendChild(name);
      const has = phaseOf(T, i, p, sp);
      tr.appendChild(el('td', 'n', has ? fmtDur(sp[1] - sp[0]) : '\u2014'));
      table.appendChild(tr);
    }
    /* Its phases (a GPU sub-phase with its colour) and marks. */
    const P = R.P;
    if (P.pFirst) {
      for (let j = P.pFirst[i]; j < P.pFirst[i + 1]; j++) {
        const tr = el('tr'), name = el('td'), nm = P.pName[j], w = P.pWithin[j];
        if (j === P.pFirst[i]) tr.className = 'sep';
        if (w === 0 && NAME_COLOR[nm]) name.appendChild(swatch(NAME_COLOR[nm]));
        name.appendChild(document.createTextNode(NAMES[nm] +
          (w === 0 ? '' : ' (in ' + (w === 1 ? 'synthesis' : 'the unit') + ')')));
        tr.appendChild(name);
        tr.appendChild(el('td', 'n', fmtDur(P.pB[j] - P.pA[j])));
        table.appendChild(tr);
      }
    }
    if (P.mFirst) {
      for (let j = P.mFirst[i]; j < P.mFirst[i + 1]; j++) {
        const tr = el('tr');
        if (j === P.mFirst[i]) tr.className = 'sep';
        tr.appendChild(el('td', null, NAMES[P.mName[j]]));
        tr.appendChild(el('td', 'n', 'at ' + fmtAt(R, P.mT[j])));
        table.appendChild(tr);
      }
    }
    tip.appendChild(table);
    const more = P.more && P.more.get(i);
    if (more) {
      const m = [];
      if (more[0]) m.push(more[0] + ' more phase' + (more[0] === 1 ? '' : 's'));
      if (more[1]) m.push(more[1] + ' more mark' + (more[1] === 1 ? '' : 's'));
      tip.appendChild(el('div', 'sub', m.join(' and ') + ' (waterfall analyze counts them all)'));
    }
    if (R.r.t0) tip.appendChild(el('div', 'sub', 'times from the run\u2019s first event, at ' +
      fmtTime(R.r.t0, R.dec) + (R.r.native ? ' in the trace' : ' in the log')));
  }

  function kernelTip(h) {
    const D = h.D, d = D.d, t = h.t, R = h.R, k = D.kern;
    tip.appendChild(el('div', 'id', 'GPU ' + d.id + ' kernels \u00b7 ' + runName(R)));
    let lo = 0, hi = D.nkern;
    while (lo < hi) { /* the first span ending after t */
      const mid = (lo + hi) >> 1;
      if (k[2 * mid + 1] <= t) lo = mid + 1;
      else hi = mid;
    }
    const line = el('div');
    if (lo < D.nkern && k[2 * lo] <= t) {
      line.appendChild(swatch(KERNEL_COLOR));
      line.appendChild(document.createTextNode('kernels run ' + fmtAt(R, k[2 * lo]) + ' \u2013 ' + fmtAt(R, k[2 * lo + 1]) +
        ' (' + fmtDur(k[2 * lo + 1] - k[2 * lo]) + ')'));
    } else {
      line.appendChild(document.createTextNode('no kernel runs'));
    }
    tip.appendChild(line);
    tip.appendChild(el('div', 'sub', 'kernel utilization ' + pct(d.kutil) + ' \u00b7 ' + data.kernel_phase +
      ' phases busy ' + micro(d.kbusy) + ' of its window'));
  }

  function deviceTip(h) {
    const D = h.D, d = D.d, t = h.t, R = h.R;
    tip.appendChild(el('div', 'id', 'GPU ' + d.id + ' \u00b7 ' + runName(R)));
    const segs = D.segs;
    let state = null;
    if (d.ws === null || t < d.ws || t > d.we) {
      state = t < d.ws ? 'before its window: pipeline fill (not counted as idle)' : 'outside its window';
    } else {
      let lo = 0, hi = D.nseg;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (segs[2 * mid + 1] <= t) lo = mid + 1;
        else hi = mid;
      }
      if (lo < D.nseg && segs[2 * lo] <= t) {
        const a = segs[2 * lo], b = segs[2 * lo + 1], c = D.causes[lo];
        const line = el('div');
        line.appendChild(swatch(CAUSE_COLOR[c]));
        line.appendChild(document.createTextNode('idle: ' + CAUSES[c] + ', ' + fmtDur(b - a)));
        tip.appendChild(line);
        state = fmtAt(R, a) + ' \u2013 ' + fmtAt(R, b);
      } else {
        const line = el('div');
        line.appendChild(swatch(BUSY_COLOR));
        line.appendChild(document.createTextNode('busy'));
        tip.appendChild(line);
      }
    }
    if (state) tip.appendChild(el('div', 'sub', state));
    tip.appendChild(el('div', 'sub', 'utilization ' + pct(d.util) + ' \u00b7 busy ' + micro(d.busy) +
      ' \u00b7 idle ' + micro(d.idle)));
  }

  /* ---- a read-only hook for tests and scripts ----
   * view(), full(): the visible and the whole time range, [t0, t1] in s;
   * locate(job, partition?, run?): where a unit's bar is on screen (client
   * px), or null; subphases(job, partition?, run?): its GPU bar and the
   * sub-phases drawn in it (client px, name, colour), or null; lanes(): per
   * run the lanes drawn (device, kernel, worker); ready, readyAt: the
   * first frame is drawn (and when, by performance.now()); drawMs: the
   * last frame's drawing time. */

  function locate(jobId, partition, run) {
    for (let ri = 0; ri < layoutRuns.length; ri++) {
      if (run !== undefined && run !== null && ri !== run) continue;
      const L = layoutRuns[ri], R = L.R, A = L.area;
      for (let v = 0; v < A.nv; v++) {
        const i = R.vis[v];
        if (R.r.jobs[R.U[i * 4]] !== jobId) continue;
        if (partition !== undefined && partition !== null && R.U[i * 4 + 1] !== partition) continue;
        let best = -1, bw = 0;
        const sp = [0, 0];
        for (let p = 0; p < 6; p++) {
          const ph = spanOf(R, i, p, sp);
          if (ph < 0) continue;
          const a = Math.max(sp[0], v0), b = Math.min(sp[1], v1);
          if (b - a > bw) { bw = b - a; best = p; }
        }
        if (best < 0) continue;
        const ph = spanOf(R, i, best, sp);
        const a = Math.max(sp[0], v0), b = Math.min(sp[1], v1), rc = canvas.getBoundingClientRect();
        return {
          x: rc.left + GUTTER + (((a + b) / 2 - v0) / (v1 - v0)) * plotW,
          y: rc.top + A.y + (Math.floor(v / A.k) + 0.5) * A.rowCss,
          phase: PHASES[ph] + (best === 5 ? ' (in flight)' : ''),
        };
      }
    }
    return null;
  }

  /* A unit's GPU bar and its sub-phases as drawn (client px), or null. */
  function subphases(jobId, partition, run) {
    const rc = canvas.getBoundingClientRect(), cx = function (t) {
      return rc.left + GUTTER + ((Math.min(Math.max(t, v0), v1) - v0) / (v1 - v0)) * plotW;
    };
    for (let ri = 0; ri < layoutRuns.length; ri++) {
      if (run !== undefined && run !== null && ri !== run) continue;
      const L = layoutRuns[ri], R = L.R, A = L.area, P = R.P, T = R.T;
      for (let v = 0; v < A.nv; v++) {
        const i = R.vis[v];
        if (R.r.jobs[R.U[i * 4]] !== jobId) continue;
        if (partition !== undefined && partition !== null && R.U[i * 4 + 1] !== partition) continue;
        const ry = A.a0 + Math.floor(v / A.k) * A.rowPx, bd = band(ry, A.rowPx, A.gap);
        const out = {
          gpu: {
            x0: cx(T[i * 6 + 4]), x1: cx(T[i * 6 + 5]),
            y0: rc.top + ry / dpr, y1: rc.top + (ry + Math.max(1, A.rowPx - A.gap)) / dpr,
          },
          subs: [],
        };
        if (P.pFirst)
          for (let j = P.pFirst[i]; j < P.pFirst[i + 1]; j++)
            if (P.pWithin[j] === 0 && NAME_COLOR[P.pName[j]])
              out.subs.push({
                name: NAMES[P.pName[j]], color: NAME_COLOR[P.pName[j]], x0: cx(P.pA[j]), x1: cx(P.pB[j]),
                y0: rc.top + bd[0] / dpr, y1: rc.top + bd[1] / dpr,
              });
        return out;
      }
    }
    return null;
  }
  /* The lanes drawn, per run: device, kernel or worker, and where. */
  function lanesOf() {
    const rc = canvas.getBoundingClientRect();
    return layoutRuns.map(function (L) {
      return L.lanes.map(function (ln) {
        const kind = ln.kern ? 'kernel' : ln.lane ? 'worker' : 'device';
        return { kind: kind, device: ln.D.d.id, y: rc.top + ln.y, h: ln.h };
      });
    });
  }

  Object.defineProperty(window, '__waterfall', {
    value: Object.freeze({
      view: function () { return [v0 / 1e9, v1 / 1e9]; },
      full: function () { return [0, full / 1e9]; },
      locate: locate,
      subphases: subphases,
      lanes: lanesOf,
      get ready() { return ready && drawn; },
      get readyAt() { return readyAt; },
      get drawMs() { return drawMs; }, /* the last frame's drawing time */
      colors: Object.freeze({
        phases: PHASE_COLOR.slice(), causes: CAUSE_COLOR.slice(), busy: BUSY_COLOR, kernel: KERNEL_COLOR,
        sub: SUB_COLOR.slice(),
      }),
    }),
    writable: false,
    configurable: false,
  });

  sizeUp();
  draw();
})();
