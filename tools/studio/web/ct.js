/* kray studio, page "CT": a scan (parallel, fan, cone or a geometry file) of the phantom or of
 * uploaded projections, reconstructed by FBP/FDK, SIRT, CGLS or kray ctreg's algorithms with the
 * residual drawn as it runs; and kray's CT benchmark battery with its charts. */
'use strict';

KS.pages.ct = {
  fields: [
    { type: 'head', label: 'Scan' },
    { name: 'geom', label: 'geometry', type: 'select', def: 'parallel',
      options: [['parallel', 'parallel beam (2-D)'], ['fan', 'fan beam, flat (2-D)'], ['cone', 'cone beam (3-D)'], ['file', 'geometry file (.json)']] },
    { name: 'geomfile', label: 'geometry .json', type: 'file', accept: '.json', show: (v) => v.geom === 'file' },
    { name: 'size', label: 'image size N', type: 'int', def: 128, min: 8, max: 1024, show: (v) => v.geom !== 'file' },
    { name: 'nz', label: 'slices', type: 'int', def: 32, min: 1, max: 512, show: (v) => v.geom === 'cone' },
    { name: 'views', label: 'views', type: 'int', def: 180, min: 1, max: 4096, show: (v) => v.geom !== 'file' },
    { name: 'arc', label: 'arc (deg)', type: 'num', def: 180, min: 1, max: 720, show: (v) => v.geom !== 'file' },
    { name: 'det', label: 'detector pixels (0 = 1.5 N)', type: 'int', def: 0, min: 0, show: (v) => v.geom !== 'file' },
    { name: 'sod', label: 'source to axis (mm)', type: 'num', def: 500, show: (v) => v.geom === 'fan' || v.geom === 'cone' },
    { name: 'sdd', label: 'source to detector (mm)', type: 'num', def: 1000, show: (v) => v.geom === 'fan' || v.geom === 'cone' },
    { name: 'fov', label: 'field of view (mm)', type: 'num', def: 256, show: (v) => v.geom !== 'file' },
    { type: 'head', label: 'Data' },
    { name: 'data', label: 'projections (else the phantom)', type: 'file', accept: '.npy,.nii,.nii.gz,.mha,.nrrd,.pgm' },
    { name: 'contrast', label: 'phantom', type: 'select', def: 'modified', options: ['modified', 'original'] },
    { type: 'head', label: 'Reconstruction' },
    { name: 'algo', label: 'method', type: 'select', def: 'fbp',
      options: [['fbp', 'FBP / FDK'], ['sirt', 'SIRT'], ['cgls', 'CGLS (cone)'], ['fista', 'FISTA + TV'],
        ['pdhg', 'PDHG + TV'], ['ossart', 'OS-SART'], ['asd-pocs', 'ASD-POCS']] },
    { name: 'filter', label: 'filter', type: 'select', def: 'fft', options: ['fft', 'direct', 'seed'], show: (v) => v.algo === 'fbp' },
    { name: 'window', label: 'window', type: 'select', def: 'ramlak',
      options: ['ramlak', 'shepp-logan', 'cosine', 'hamming', 'hann'], show: (v) => v.algo === 'fbp' && v.filter === 'fft' },
    { name: 'cutoff', label: 'cutoff (of Nyquist)', type: 'num', def: 1, min: 0.01, max: 1, step: 0.05,
      show: (v) => v.algo === 'fbp' && v.filter === 'fft' },
    { name: 'iters', label: 'iterations', type: 'int', def: 20, min: 1, max: 2000, show: (v) => v.algo !== 'fbp' },
    { name: 'lambda', label: 'TV weight \u03bb', type: 'num', def: 0.01, min: 0, show: (v) => v.algo === 'fista' || v.algo === 'pdhg' },
    { name: 'subsets', label: 'subsets', type: 'int', def: 10, min: 1, show: (v) => v.algo === 'ossart' || v.algo === 'asd-pocs' },
    { name: 'relax', label: 'relaxation', type: 'num', def: 1, min: 0.01, max: 1.99, step: 0.05,
      show: (v) => v.algo === 'sirt' || v.algo === 'ossart' || v.algo === 'asd-pocs' },
    { name: 'nonneg', label: 'x \u2265 0', type: 'check', def: 0, show: (v) => v.algo !== 'fbp' && v.algo !== 'cgls' },
  ],
  benchFields: [
    { type: 'head', label: 'Benchmark battery' },
    { name: 'bench', label: 'benchmark', type: 'select', def: 'fbp2d',
      options: [['fbp2d', 'FBP (kray bench fbp2d)'], ['ct2d', 'projectors (kray bench ct2d)']] },
    { name: 'size', label: 'image size N', type: 'int', def: 128, min: 16, max: 2048 },
    { name: 'views', label: 'views', type: 'int', def: 180, min: 1, max: 4096 },
    { name: 'reps', label: 'repetitions', type: 'int', def: 2, min: 1, max: 100 },
    { name: 'batteries', label: 'batteries', type: 'int', def: 1, min: 1, max: 20, show: (v) => v.bench === 'fbp2d' },
  ],
  init(page) {
    const sec = new KS.Section(page, 'ct', 'ct', this.fields, (st) => this.progress(st), (st) => this.done(st));
    Object.assign(this, { sec: sec, form: sec.form, grid: sec.grid, tail: sec.tail });
    this.form.inputs.geom.addEventListener('change', () => {
      const g = this.form.values().geom;
      this.form.set('views', g === 'parallel' ? 180 : g === 'fan' ? 360 : 120);
      this.form.set('arc', g === 'parallel' ? 180 : 360);
      this.form.set('size', g === 'cone' ? 64 : 128);
    });
    this.bench = new KS.Section(page, 'bench', 'bench', this.benchFields, null, (st) => this.benchDone(st));
    this.bench.form.autoBox.checked = false;
    Object.assign(this, { bgrid: this.bench.grid, btail: this.bench.tail });
  },
  shown() {
    if (!this.started) { this.started = true; this.sec.run(); }
  },
  progress(st) {
    if (!st.residual.length) return;
    if (!this.chart || !this.chart.panel.isConnected) {
      if (st.state === 'running') this.grid.textContent = '';
      this.chart = new KS.Chart(this.grid, 'per iteration, as it runs');
      this.chart.panel.id = 'ct-residual';
    }
    this.chart.draw([{ x: st.residual.map((p) => p[0]), y: st.residual.map((p) => p[1]) }],
      { xlabel: 'iteration', ylabel: st.series, logy: st.series !== 'objective',
        info: st.residual.length + ' iterations' });
  },
  async done(st) {
    const had = st.residual.length > 0;
    this.sec.clear();
    this.chart = null;
    await KS.showImages(this.grid, st, ['image', 'error'], { image: { slice: 'centre' }, error: { slice: 'centre' } });
    await KS.showImages(this.grid, st, ['sino'], { sino: { slice: 'centre', axisNames: { 2: 'view ' } } });
    if (had) this.progress(st);
    if (Object.keys(st.metrics).length || st.json.length) {
      this.tail.appendChild(KS.el('h2', 'sub', 'Numbers (reconstruction against the phantom)'));
      KS.metricsTable(this.tail, st, 'ct-metrics');
    }
    KS.commands(this.tail, st);
  },
  benchDone(st) {
    this.bench.clear();
    const svg = st.results.find((r) => r.role === 'svg');
    if (svg) {
      const p = KS.el('div', 'panel');
      p.appendChild(KS.el('div', 'title', svg.label));
      const img = KS.el('img', 'svg');
      img.src = KS.url('item/' + svg.item + '/file');
      img.alt = svg.label;
      p.appendChild(img);
      this.bgrid.appendChild(p);
    }
    /* one bar per JSON line that carries a time: the median (or mean) in ms */
    const rows = st.json.filter((j) => j.case !== undefined || j.method !== undefined);
    const key = (j) => ['case', 'geometry', 'method', 'backend', 'precision', 'dtype'].filter((k) => j[k] !== undefined).map((k) => j[k]).join(' ');
    const tval = (j) => j.mean_s !== undefined ? 1e3 * j.mean_s : j.time_median_s !== undefined ? 1e3 * j.time_median_s :
      j.time_s !== undefined ? 1e3 * j.time_s : NaN;
    const bars = rows.filter((j) => isFinite(tval(j)));
    if (bars.length) {
      const ch = new KS.Chart(this.bgrid, 'time per run (ms): mean (fbp2d) or median (ct2d) of the JSON lines', 560, 280);
      ch.panel.id = 'bench-chart';
      ch.draw([{ x: bars.map((_, i) => i), y: bars.map(tval), style: 'bars' }],
        { xlabel: 'case (see the table)', ylabel: 'ms' });
      const t = KS.el('table', 'metrics');
      t.id = 'bench-table';
      bars.forEach((j, i) => {
        const tr = KS.el('tr');
        tr.appendChild(KS.el('td', null, String(i)));
        tr.appendChild(KS.el('td', null, key(j)));
        tr.appendChild(KS.el('td', 'v', KS.fmt(tval(j))));
        t.appendChild(tr);
      });
      this.btail.appendChild(t);
    }
    KS.commands(this.btail, st);
  },
};
