// Draws an hpmsim report from the JSON in #report-data (its shape: tools/hpmsim/report.h).
// Every chart is a Chart.js chart with animation off, so it has drawn when this script ends;
// #report-status then holds {errors, charts: [{id, datasets, points}]}, which the browser test
// (tests/tools/report_test.cpp) reads from the page.
'use strict';

const errors = [];
window.addEventListener('error', (e) => errors.push(String(e.message)));
const charts = [];
const data = JSON.parse(document.getElementById('report-data').textContent);
const root = document.getElementById('report');
Chart.defaults.animation = false;
Chart.defaults.font.size = 11;

const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
                 '#7f7f7f', '#bcbd22', '#17becf'];
const color = (i) => palette[i % palette.length];
// One colour per stall cause on the whole page: the run's chart lists its causes in name order,
// the top functions' in the model's, so colouring by position gave one cause two colours. The
// causes of every result on the page, in name order, each its colour (past the palette, a hue of
// its own).
const stallCauses = [...new Set([...data.runs.flatMap((r) => r.stall_causes),
                                 ...data.functions.flatMap((f) => f.causes)])].sort();
const causeColor = (cause) => {
  const i = stallCauses.indexOf(cause);
  return i < palette.length ? palette[i] : `hsl(${(i * 137.5) % 360}, 60%, 45%)`;
};

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const c of children) node.append(c instanceof Node ? c : String(c));
  return node;
}

function fmt(v) {
  if (typeof v !== 'number') return v === undefined || v === null ? '' : String(v);
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return Math.abs(v) >= 100 ? v.toFixed(1) : v.toPrecision(4);
}

// A table: `headers` the column titles (the first column left-aligned), `rows` arrays.
function table(headers, rows) {
  const head = el('tr', {}, ...headers.map((h, i) => el('th', {className: i ? '' : 'name'}, h)));
  const body = rows.map((r) => el('tr', {}, ...r.map((v, i) => el('td', {className: i ? '' : 'name'}, fmt(v)))));
  return el('table', {}, el('thead', {}, head), el('tbody', {}, ...body));
}

// A chart in `parent`: `config` is Chart.js's; `id` names it in the status.
function chart(parent, id, config, wide) {
  const box = el('div', {className: wide ? 'chart wide' : 'chart'});
  const canvas = el('canvas', {id});
  box.append(canvas);
  parent.append(box);
  config.options = Object.assign({maintainAspectRatio: false, responsive: true}, config.options);
  charts.push({id, chart: new Chart(canvas, config)});
}

function lineOptions(xTitle, yTitle, extra) {
  return Object.assign({
    parsing: false,
    normalized: true,
    elements: {point: {radius: 0}, line: {borderWidth: 1.5}},
    interaction: {mode: 'nearest', axis: 'x', intersect: false},
    scales: {x: {type: 'linear', title: {display: true, text: xTitle}},
             y: {title: {display: true, text: yTitle}, beginAtZero: true}},
  }, extra || {});
}

const points = (xs, ys) => xs.map((x, i) => ({x, y: ys[i]}));
const section = (title) => { const s = el('section'); s.append(el('h2', {}, title)); root.append(s); return s; };

function drawRun(run, n) {
  const s = section(`Run: ${run.file}`);
  const m = run.summary;
  s.append(table(['', 'value'], [
    ['command', m.command], ['machine', m.machine], ['mode', m.mode],
    ['instructions', m.instructions], ['cycles', m.cycles],
    ['instructions per cycle (node)', m.cycles ? m.instructions / m.cycles : 0],
    ['exit status', m.exit_status], ['host seconds', m.host_seconds], ['MIPS', m.mips],
  ]));
  const cfg = el('details', {}, el('summary', {}, 'Configuration'));
  cfg.append(table(['parameter', 'value'], run.config.map((p) => [p[0], p[1]])));
  s.append(cfg);
  if (run.cores.length) {
    s.append(el('h3', {}, 'Cores: instructions per cycle and where issue stalled'));
    const labels = run.cores.map((c) => `core ${c.core}`);
    const grid = el('div', {className: 'grid'});
    s.append(grid);
    chart(grid, `run${n}-ipc`, {type: 'bar', data: {labels, datasets: [
      {label: 'IPC', data: run.cores.map((c) => c.ipc), backgroundColor: color(0)}]},
      options: {scales: {x: {title: {display: true, text: 'core'}},
                         y: {beginAtZero: true, title: {display: true, text: run.axes.ipc}}}}});
    const causes = run.stall_causes;
    chart(grid, `run${n}-stalls`, {type: 'bar', data: {labels, datasets: causes.map((cause) => ({
      label: cause, data: run.cores.map((c) => c.stalls[cause] || 0), backgroundColor: causeColor(cause)}))},
      options: {scales: {x: {stacked: true, title: {display: true, text: 'core'}},
                         y: {stacked: true, title: {display: true, text: run.axes.stalls}}}}});
    s.append(el('h3', {}, 'Caches and queues'));
    s.append(table(['core', 'L1D accesses', 'L1D miss %', 'L1I miss %', 'L1P hits', 'L1P prefetches',
                    'LMQ full cycles', 'SQ full cycles'],
      run.cores.map((c) => [c.core, c.l1d_accesses, c.l1d_miss_pct, c.l1i_miss_pct, c.l1p_hits,
                            c.l1p_prefetches, c.lmq_full_cycles, c.sq_full_cycles])));
    chart(s, `run${n}-l1d`, {type: 'bar', data: {labels, datasets: [
      {label: 'L1D miss %', data: run.cores.map((c) => c.l1d_miss_pct), backgroundColor: color(1)},
      {label: 'L1I miss %', data: run.cores.map((c) => c.l1i_miss_pct), backgroundColor: color(2)}]},
      options: {scales: {x: {title: {display: true, text: 'core'}},
                         y: {beginAtZero: true, title: {display: true, text: run.axes.miss_pct}}}}});
  }
  if (run.l2.length) {
    s.append(table(['L2 slice', 'requests', 'hits', 'misses', 'miss %', 'evictions', 'writebacks'],
      run.l2.map((l) => [l.slice, l.requests, l.hits, l.misses, l.miss_pct, l.evictions, l.writebacks])));
  }
  if (run.regions.length) {
    s.append(el('h3', {}, 'Regions'));
    s.append(table(['region', 'entries', 'instructions', 'cycles', 'IPC'],
      run.regions.map((r) => [r.name, r.entries, r.instructions, r.cycles, r.ipc])));
  }
}

// The profile mode's samples: seed 003's Figure 3, one panel per core. Where a core did not run
// its data holds a gap (null, report.h), where the lines stop: a line across the idle stretch
// looked like the IPC changing over it.
function drawProfile(p, n) {
  const s = section(`Profile over time: ${p.file}`);
  s.append(el('p', {className: 'note'}, 'Per core and sampling interval: instructions issued per cycle on ' +
    'each pipe (xu: integer, axu: floating point; left axis), and the share of cycles the load-miss ' +
    'queue (lmq) and the store queue (sq) were full (dashed, right axis, %).'));
  const grid = el('div', {className: 'grid'});
  s.append(grid);
  for (const c of p.cores) {
    const datasets = Object.entries(c.series).map(([name, values], i) => {
      const ipc = name.endsWith('_ipc');
      return {label: name.replace(/_ipc$/, ' IPC').replace(/_full_share$/, ' full %'),
              data: points(c.cycle, ipc ? values : values.map((v) => (v === null ? null : 100 * v))),
              spanGaps: false, borderColor: color(i), yAxisID: ipc ? 'y' : 'y1',
              borderDash: ipc ? [] : [4, 2]};
    });
    chart(grid, `profile${n}-core${c.core}`, {type: 'line', data: {datasets},
      options: lineOptions('cycle', 'IPC', {
        plugins: {title: {display: true, text: `core ${c.core}`}},
        scales: {
          x: {type: 'linear', title: {display: true, text: 'cycle'}},
          y: {beginAtZero: true, title: {display: true, text: 'IPC'}},
          y1: {beginAtZero: true, max: 100, position: 'right', grid: {drawOnChartArea: false},
               title: {display: true, text: '% full'}}}})});
  }
}

function drawFunctions(f, n) {
  const s = section(`Top functions: ${f.file}`);
  const top = f.rows.slice(0, 20);
  s.append(table(['function', 'instructions', 'cycles', 'CPI', ...f.causes],
    top.map((r) => [r.name, r.instructions, r.cycles, r.instructions ? r.cycles / r.instructions : 0,
                    ...f.causes.map((c) => r.stalls[c])])));
  const shown = top.slice(0, 10);
  chart(s, `functions${n}-stalls`, {type: 'bar', data: {labels: shown.map((r) => r.name),
    datasets: f.causes.map((c) => ({label: c, data: shown.map((r) => r.stalls[c]), backgroundColor: causeColor(c)}))},
    options: {indexAxis: 'y', scales: {x: {stacked: true, title: {display: true, text: 'stall cycles'}},
                                       y: {stacked: true, title: {display: true, text: 'function'}}}}}, true);
}

function drawStat(st, n) {
  const s = section(`Counters: ${st.file}`);
  s.append(table(['', 'value'], [['command', st.command], ['machine', st.machine], ['unit', st.unit],
    ['cycles', st.cycles], ['simulated seconds', st.seconds], ['exit status', st.exit_status]]));
  // perf's running-time column where the events were multiplexed (stat's sets took turns).
  const muxed = st.events.some((e) => st.running[e] !== undefined && st.running[e] < 100);
  s.append(muxed
    ? table(['event', 'count (scaled)', 'running'], st.events.map((e) =>
        [e, st.counts[e], `${Number(st.running[e]).toFixed(2)} %`]))
    : table(['event', 'count'], st.events.map((e) => [e, st.counts[e]])));
  if (st.intervals && st.intervals.ms.length) {
    s.append(el('h3', {}, 'Counter timelines (counts per interval)'));
    const grid = el('div', {className: 'grid'});
    s.append(grid);
    // One time axis for all: from the run's start to the last interval's end. (Each chart chose
    // its own round bounds, which moved with the width of its value axis.)
    const end = st.intervals.ms[st.intervals.ms.length - 1];
    Object.keys(st.intervals.counts).forEach((e, i) => {
      const options = lineOptions('simulated ms', 'count per interval');
      Object.assign(options.scales.x, {min: 0, max: end});
      chart(grid, `stat${n}-${i}`, {type: 'line', data: {datasets: [
        {label: e, data: points(st.intervals.ms, st.intervals.counts[e]), borderColor: color(i)}]},
        options});
    });
  }
  if (st.regions.length) {
    s.append(el('h3', {}, 'Regions'));
    s.append(el('p', {className: 'note'}, 'Counts read from the counters at every region marker and ' +
      'summed per region (on UPC-Q a reading lags the events by up to one sweep of the unit, so a ' +
      'short region may read less than happened in it: docs/upcq.md).'));
    const evs = Object.keys(st.regions[0].counts);
    s.append(table(['region', ...evs], st.regions.map((r) => [r.name, ...evs.map((e) => r.counts[e])])));
  }
}

// A sweep: seed 003's Figures 4 and 5 (speed-up per point, cycles per region).
function drawSweep(sw, n) {
  const s = section(`Sweep: ${sw.file}`);
  const labels = sw.points.map((p) => p.label);
  const swept = sw.parameters.join(', ');  // the x axis's title: what each point's label gives
  s.append(table([sw.parameters.join(', '), 'status', 'cycles', 'instructions', 'speed-up',
                  ...sw.regions.map((r) => `${r} cycles`)],
    sw.points.map((p) => [p.label, p.status === 0 ? 'ok' : `failed (${p.status})`, p.cycles, p.instructions,
                          p.speedup, ...sw.regions.map((r) => p.regions[r])])));
  chart(s, `sweep${n}-speedup`, {type: 'bar', data: {labels, datasets: [
    {label: 'speed-up against the first point', data: sw.points.map((p) => p.speedup), backgroundColor: color(0)}]},
    options: {scales: {x: {title: {display: true, text: swept}},
                       y: {beginAtZero: true, title: {display: true, text: 'speed-up'}}}}}, true);
  if (sw.regions.length) {
    chart(s, `sweep${n}-regions`, {type: 'bar', data: {labels, datasets: sw.regions.map((r, i) => ({
      label: r, data: sw.points.map((p) => p.region_speedup[r]), backgroundColor: color(i + 1)}))},
      options: {scales: {x: {title: {display: true, text: swept}},
                         y: {beginAtZero: true, title: {display: true, text: 'speed-up of the region'}}}}}, true);
  }
}

try {
  data.runs.forEach(drawRun);
  data.profiles.forEach(drawProfile);
  data.functions.forEach(drawFunctions);
  data.stats.forEach(drawStat);
  data.sweeps.forEach(drawSweep);
} catch (e) {
  errors.push(String(e && e.stack || e));
}

// What the browser test checks: no error, every chart drew every dataset's points; and per
// chart, each dataset's label, colour, points skipped (gaps) and solid line segments (a line
// that spans no gap has one segment more than it has gaps), and each axis's range and title.
const status = document.getElementById('report-status');
status.textContent = JSON.stringify({
  errors,
  charts: charts.map(({id, chart: c}) => ({
    id,
    datasets: c.data.datasets.length,
    points: c.data.datasets.map((d, i) => c.getDatasetMeta(i).data.length),
    labels: c.data.datasets.map((d) => d.label),
    colors: c.data.datasets.map((d) => (c.config.type === 'line' ? d.borderColor : d.backgroundColor)),
    skipped: c.data.datasets.map((d, i) => c.getDatasetMeta(i).data.filter((p) => p.skip).length),
    segments: c.data.datasets.map((d, i) => {
      const line = c.getDatasetMeta(i).dataset;
      return line ? line.segments.length : 0;
    }),
    axes: Object.fromEntries(Object.entries(c.scales).map(([k, a]) => [k, {
      min: a.min, max: a.max, title: a.options.title && a.options.title.display ? a.options.title.text : ''}])),
  })),
});
