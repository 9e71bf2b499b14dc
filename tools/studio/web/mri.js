/* kray studio, page "MRI simulation & SENSE": Bloch simulation with a coil array, undersampling
 * and noise, zero-filled / SENSE / CG-SENSE reconstruction, g-factor and error maps. */
'use strict';

KS.pages.mri = {
  fields: [
    { type: 'head', label: 'Object' },
    { name: 'size', label: 'phantom size N', type: 'int', def: 64, min: 8, max: 256 },
    { name: 'object', label: 'or T1/T2/PD maps', type: 'file', accept: '.nii,.nii.gz,.npy,.mha,.nrrd' },
    { name: 'fov', label: 'field of view (mm)', type: 'num', def: 256, min: 10, max: 1000 },
    { name: 'decimate', label: 'decimation', type: 'select', def: '1', options: ['1', '2', '4'] },
    { name: 'sine_amp', label: 'field map: sine amplitude (Hz)', type: 'num', def: 0, min: 0, max: 1000 },
    { name: 'sine_cycles', label: 'field map: cycles across the FOV', type: 'num', def: 1, min: 0, max: 16,
      show: (v) => +v.sine_amp > 0 },
    { type: 'head', label: 'Sequence' },
    { name: 'seq', label: 'sequence', type: 'select', def: 'se-epi',
      options: [['gre', 'gradient echo'], ['se', 'spin echo'], ['se-epi', 'spin-echo EPI'], ['pulseq', 'Pulseq file']] },
    { name: 'seqfile', label: 'Pulseq .seq file', type: 'file', accept: '.seq', show: (v) => v.seq === 'pulseq' },
    { name: 'te', label: 'TE (ms, 0 = default)', type: 'num', def: 0, min: 0, show: (v) => v.seq !== 'pulseq' },
    { name: 'tr', label: 'TR (ms, 0 = default)', type: 'num', def: 0, min: 0, show: (v) => v.seq !== 'pulseq' },
    { name: 'flip', label: 'flip angle (deg)', type: 'num', def: 90, min: 1, max: 180, show: (v) => v.seq !== 'pulseq' },
    { name: 'shots', label: 'shots', type: 'int', def: 1, min: 1, show: (v) => v.seq === 'se-epi' },
    { name: 'order', label: 'line order', type: 'select', def: 'interleaved', options: ['interleaved', 'sequential'],
      show: (v) => v.seq === 'se-epi' },
    { name: 'spoil', label: 'spoiling', type: 'select', def: 'ideal', options: ['ideal', 'rf', 'gradient', 'none'],
      show: (v) => v.seq === 'gre' },
    { name: 'dummy', label: 'preparatory TRs', type: 'int', def: 10, min: 0, show: (v) => v.seq === 'gre' || v.seq === 'se' },
    { type: 'head', label: 'Coil array' },
    { name: 'coils', label: 'coils', type: 'int', def: 8, min: 1, max: 32 },
    { name: 'per_ring', label: 'coils per ring', type: 'int', def: 8, min: 1, max: 32 },
    { name: 'rbody', label: 'array radius (mm)', type: 'num', def: 300, min: 50, max: 1000 },
    { type: 'head', label: 'Acquisition' },
    { name: 'R', label: 'acceleration R', type: 'int', def: 2, min: 1, max: 16 },
    { name: 'acs', label: 'ACS lines', type: 'int', def: 0, min: 0, max: 256 },
    { name: 'noise', label: 'noise (fraction of max |k|)', type: 'num', def: 0, min: 0, max: 1, step: 0.0001 },
    { name: 'psi', label: 'noise correlation \u03c1 (\u03a8 = \u03c1^|i-j|)', type: 'num', def: 0, min: 0, max: 0.95, step: 0.05 },
    { type: 'head', label: 'Reconstruction' },
    { name: 'recon', label: 'method', type: 'select', def: 'sense',
      options: [['zf', 'zero-filled'], ['sense', 'SENSE'], ['cg', 'CG-SENSE']] },
    { name: 'lambda', label: 'Tikhonov \u03bb', type: 'num', def: 0, min: 0, show: (v) => v.recon !== 'zf' },
    { name: 'all_lines', label: 'use the ACS lines too', type: 'check', def: 0, show: (v) => v.recon === 'sense' },
    { name: 'iters', label: 'CG iterations', type: 'int', def: 30, min: 1, max: 500, show: (v) => v.recon === 'cg' },
  ],
  init(page) {
    const sec = new KS.Section(page, 'mri', 'mri', this.fields, (st) => this.progress(st), (st) => this.done(st));
    Object.assign(this, { sec: sec, grid: sec.grid, tail: sec.tail });
    sec.run();
  },
  progress(st) {
    if (!st.residual.length) return;
    if (!this.chart || !this.chart.panel.isConnected) {
      if (st.state === 'running') this.grid.textContent = '';
      this.chart = new KS.Chart(this.grid, 'CG-SENSE: relative residual per iteration');
    }
    this.chart.draw([{ x: st.residual.map((p) => p[0]), y: st.residual.map((p) => p[1]) }],
      { xlabel: 'iteration', ylabel: st.series, logy: true });
  },
  async done(st) {
    const keep = this.chart;
    this.sec.clear();
    this.chart = null;
    const coils = { axisNames: { 2: 'coil ', 3: 'coil ' } };
    await KS.showImages(this.grid, st, ['image', 'gfactor', 'error'], { image: { slice: 'centre' } });
    await KS.showImages(this.grid, st, ['coils', 'kspace'], { coils: coils, kspace: coils });
    if (keep && st.residual.length) this.progress(st);
    this.tail.appendChild(KS.el('h2', 'sub', 'Numbers (reconstruction against the reference)'));
    KS.metricsTable(this.tail, st, 'mri-metrics');
    KS.commands(this.tail, st);
  },
};
