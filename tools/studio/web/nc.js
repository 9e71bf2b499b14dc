/* kray studio, page "Non-Cartesian MRI": trajectories with their plot, density compensation,
 * NUFFT / DrFT adjoints and CG-SENSE of the analytic phantom; and Fourier velocity encoding:
 * single-voxel velocity spectra of the flow phantom with labelled axes. */
'use strict';

KS.pages.nc = {
  fields: [
    { type: 'head', label: 'Trajectory' },
    { name: 'traj', label: 'kind', type: 'select', def: 'radial',
      options: [['radial', 'radial'], ['golden', 'radial, golden angle'], ['spiral', 'spiral']] },
    { name: 'size', label: 'image size N', type: 'int', def: 64, min: 8, max: 512 },
    { name: 'spokes', label: 'spokes', type: 'int', def: 64, min: 1, max: 4096, show: (v) => v.traj !== 'spiral' },
    { name: 'interleaves', label: 'interleaves', type: 'int', def: 16, min: 1, max: 256, show: (v) => v.traj === 'spiral' },
    { name: 'coils', label: 'coils (0 = one)', type: 'int', def: 4, min: 0, max: 32 },
    { name: 'dcf', label: 'density compensation', type: 'select', def: 'voronoi',
      options: ['voronoi', 'pipe-menon', 'radial', 'spiral', 'none'] },
    { type: 'head', label: 'Reconstruction' },
    { name: 'recon', label: 'method', type: 'select', def: 'nufft',
      options: [['nufft', 'NUFFT adjoint'], ['drft', 'DrFT adjoint (exact)'], ['cg', 'CG-SENSE / least squares']] },
    { name: 'eps', label: 'NUFFT accuracy', type: 'num', def: 0.0001, min: 1e-6, max: 0.1, show: (v) => v.recon === 'nufft' },
    { name: 'iters', label: 'CG iterations', type: 'int', def: 15, min: 1, max: 500, show: (v) => v.recon === 'cg' },
    { name: 'lambda', label: 'Tikhonov \u03bb', type: 'num', def: 0, min: 0, show: (v) => v.recon === 'cg' },
  ],
  fve: [
    { type: 'head', label: 'Flow spectra (FVE)' },
    { name: 'method', label: 'voxel transform', type: 'select', def: 'drft', options: [['drft', 'DrFT (exact)'], ['goertzel', 'gridding + Goertzel']] },
    { name: 'vfov', label: 'velocity FOV (cm/s)', type: 'num', def: 200, min: 1, max: 10000 },
    { name: 'x0', label: 'voxel 1: x', type: 'num', def: 0 },
    { name: 'y0', label: 'voxel 1: y', type: 'num', def: 0 },
    { name: 'x1', label: 'voxel 2: x', type: 'num', def: 6 },
    { name: 'y1', label: 'voxel 2: y', type: 'num', def: -4 },
  ],
  init(page) {
    const sec = new KS.Section(page, 'nc', 'nc', this.fields, (st) => this.progress(st), (st) => this.done(st));
    Object.assign(this, { sec: sec, grid: sec.grid, tail: sec.tail });
    this.flow = new KS.Section(page, 'fve', 'fve', this.fve, null, (st) => this.fveDone(st));
    Object.assign(this, { fgrid: this.flow.grid, ftail: this.flow.tail });
  },
  shown() {
    if (!this.started) {
      this.started = true;
      this.sec.run();
      this.flow.run();
    }
  },
  progress(st) {
    if (!st.residual.length) return;
    if (!this.chart || !this.chart.panel.isConnected) {
      if (st.state === 'running') this.grid.textContent = '';
      this.chart = new KS.Chart(this.grid, 'CG: relative residual per iteration');
    }
    this.chart.draw([{ x: st.residual.map((p) => p[0]), y: st.residual.map((p) => p[1]) }],
      { xlabel: 'iteration', ylabel: st.series, logy: true });
  },
  async done(st) {
    const had = st.residual.length > 0;
    this.sec.clear();
    this.chart = null;
    const traj = st.results.find((r) => r.role === 'traj');
    if (traj) {
      const v = await KS.floats('item/' + traj.item + '/values', { part: 'real' });
      const ns = v.dims[1] || 1, nsh = v.data.length / 3 / ns;
      const x = [], y = [], br = new Set();
      for (let i = 0; i < v.data.length / 3; i++) {
        x.push(v.data[3 * i]);
        y.push(v.data[3 * i + 1]);
        if ((i + 1) % ns === 0) br.add(i + 1);
      }
      const ch = new KS.Chart(this.grid, 'trajectory: ' + nsh + ' shots of ' + ns + ' samples', 320, 320);
      ch.panel.id = 'nc-traj';
      ch.draw([{ x: x, y: y, breaks: br }], { xlabel: 'kx (cycles per FOV)', ylabel: 'ky (cycles per FOV)', equal: true });
      const dcf = st.results.find((r) => r.role === 'dcf');
      if (dcf) {
        const w = await KS.floats('item/' + dcf.item + '/values', { part: 'real' });
        const kr = [], wv = [];
        for (let i = 0; i < w.data.length; i++) { kr.push(Math.hypot(x[i], y[i])); wv.push(w.data[i]); }
        const dc = new KS.Chart(this.grid, 'density compensation weights', 320, 320);
        dc.draw([{ x: kr, y: wv, style: 'points' }], { xlabel: '|k| (cycles per FOV)', ylabel: 'weight' });
      }
    }
    await KS.showImages(this.grid, st, ['image', 'error']);
    await KS.showImages(this.grid, st, ['coils'], { coils: { axisNames: { 2: 'coil ' } } });
    if (had) this.progress(st);
    this.tail.appendChild(KS.el('h2', 'sub', 'Numbers (reconstruction against the phantom)'));
    KS.metricsTable(this.tail, st, 'nc-metrics');
    KS.commands(this.tail, st);
  },
  async fveDone(st) {
    this.flow.clear();
    const sp = st.results.find((r) => r.role === 'spectra');
    if (!sp) return;
    const vals = await KS.floats('item/' + sp.item + '/values', { part: 'value' });
    const d = vals.dims, E = d[0], F = d[1] || 1, V = d[2] || 1;
    const info = st.json[0] || {}, vmin = info.v_min_cm_s, dv = info.bin_cm_s;
    const vel = [];
    for (let b = 0; b < E; b++) vel.push(vmin + b * dv);
    const frame = Math.floor(F / 2), nat = Math.max(1, st.metrics.positions || 1), ns = Math.max(1, V / nat);
    const series = [];
    for (let v = 0; v < V; v++) {
      const y = [];
      for (let b = 0; b < E; b++) y.push(vals.data[b + E * (frame + F * v)]);
      series.push({ x: vel, y: y, name: 'voxel ' + (Math.floor(v / ns) + 1) + (ns > 1 ? ', slice ' + (v % ns) : '') });
    }
    const ch = new KS.Chart(this.fgrid, 'velocity spectra, frame ' + frame + ' of ' + F, 480, 280);
    ch.panel.id = 'fve-spectrum';
    ch.draw(series, { xlabel: 'velocity (cm/s)', ylabel: '|spectrum| (a.u.)' });
    const iv = new KS.ImageView(this.fgrid, { title: 'spectrogram: velocity bins (down) x frames (across), voxel', h: 1, v: 0,
      axisNames: { 2: 'voxel ' } });
    await iv.setItem(sp.item);
    KS.commands(this.ftail, st);
  },
};
