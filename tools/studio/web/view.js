/* kray studio, page "Viewer": open any file kray reads (uploads) or any result of the session,
 * slice through any two axes, window/level, magnitude/real/imaginary/phase, the coil or slice
 * index, the value under a click, a line profile between two clicks, and the comparison of two
 * arrays side by side with their difference image and kray metrics' numbers. */
'use strict';

KS.pages.view = {
  init(page) {
    const bar = KS.el('div', 'viewer-bar');
    page.appendChild(bar);
    const open = KS.el('input');
    open.type = 'file';
    open.multiple = true;
    open.id = 'view-open';
    const ol = KS.el('label', null, 'open files ');
    ol.appendChild(open);
    bar.appendChild(ol);
    this.a = this.select(bar, 'view-a', 'array ');
    this.b = this.select(bar, 'view-b', 'compare with ');
    this.hSel = this.select(bar, 'view-h', 'across: axis ');
    this.vSel = this.select(bar, 'view-v', 'down: axis ');
    this.msg = KS.el('span', 'note');
    this.msg.id = 'view-msg';
    bar.appendChild(this.msg);
    this.grid = KS.el('div', 'grid');
    this.grid.id = 'view-grid';
    page.appendChild(this.grid);
    this.tail = KS.el('div');
    page.appendChild(this.tail);
    open.addEventListener('change', () => this.open(open.files));
    this.a.addEventListener('change', () => this.showA());
    this.b.addEventListener('change', () => this.compare());
    this.hSel.addEventListener('change', () => this.showA(true));
    this.vSel.addEventListener('change', () => this.showA(true));
  },
  select(bar, id, label) {
    const l = KS.el('label', null, label);
    const s = KS.el('select');
    s.id = id;
    l.appendChild(s);
    bar.appendChild(l);
    return s;
  },
  shown() { this.refresh(); },
  async refresh(pick) {
    let items;
    try { items = (await KS.api('items')).items; } catch (e) { this.msg.textContent = e.message; return; }
    items = items.filter((i) => !['hdr', 'seq', 'geom', 'svg'].includes(i.role));
    const fill = (s, none) => {
      const keep = s.value;
      s.textContent = '';
      if (none) s.appendChild(Object.assign(KS.el('option', null, 'none'), { value: '' }));
      for (const i of items) s.appendChild(Object.assign(KS.el('option', null, i.id + ': ' + i.name + (i.job ? ' (job ' + i.job + ')' : '')), { value: i.id }));
      if (keep && items.some((i) => String(i.id) === keep)) s.value = keep;
    };
    fill(this.a, false);
    fill(this.b, true);
    if (pick) this.a.value = pick;
    if (this.a.value && String(this.shownId) !== this.a.value) await this.showA();
  },
  /* uploads: a BART pair goes .hdr first, then the .cfl naming it */
  async open(files) {
    const list = Array.from(files);
    const hdrs = {};
    let last = null;
    this.msg.textContent = 'uploading…';
    try {
      for (const f of list.filter((f) => f.name.endsWith('.hdr'))) hdrs[f.name.slice(0, -4)] = (await KS.upload(f)).id;
      for (const f of list.filter((f) => !f.name.endsWith('.hdr'))) {
        const extra = f.name.endsWith('.cfl') && hdrs[f.name.slice(0, -4)] ? { hdr: hdrs[f.name.slice(0, -4)] } : {};
        last = (await KS.upload(f, extra)).id;
      }
      this.msg.textContent = '';
    } catch (e) {
      this.msg.textContent = e.message;
    }
    await this.refresh(last);
  },
  axes(dims) {
    for (const s of [this.hSel, this.vSel]) {
      const keep = s.value;
      s.textContent = '';
      for (let k = 0; k < Math.max(2, dims.length); k++)
        s.appendChild(Object.assign(KS.el('option', null, k + ' (' + (dims[k] || 1) + ')'), { value: k }));
      if (keep !== '' && +keep < Math.max(2, dims.length)) s.value = keep;
    }
    if (this.hSel.value === '') this.hSel.value = 0;
    if (this.vSel.value === '' || this.vSel.value === this.hSel.value) this.vSel.value = this.hSel.value === '1' ? 0 : 1;
  },
  async showA(keepAxes) {
    const id = +this.a.value;
    if (!id) return;
    this.shownId = id;
    this.grid.textContent = '';
    this.tail.textContent = '';
    this.points = [];
    let info;
    try { info = await KS.api('item/' + id); } catch (e) { this.msg.textContent = e.message; return; }
    if (!keepAxes) { this.hSel.value = ''; this.vSel.value = ''; }
    this.axes(info.dims || []);
    if (this.hSel.value === this.vSel.value) { this.msg.textContent = 'choose two different axes'; return; }
    this.msg.textContent = '';
    const h = +this.hSel.value, v = +this.vSel.value;
    this.va = new KS.ImageView(this.grid, { title: info.name, h: h, v: v, parts: true, size: 320,
      onPixel: (val, idx, x, y) => this.pick(x, y) });
    this.va.panel.id = 'view-panel-a';
    this.va.pix.id = 'view-pixel';
    this.va.marks = (g, scale) => {
      g.strokeStyle = '#ff5a36';
      g.fillStyle = '#ff5a36';
      for (const p of this.points) g.fillRect(p[0] * scale, p[1] * scale, Math.max(2, scale), Math.max(2, scale));
      if (this.points.length === 2) {
        g.beginPath();
        g.moveTo((this.points[0][0] + 0.5) * scale, (this.points[0][1] + 0.5) * scale);
        g.lineTo((this.points[1][0] + 0.5) * scale, (this.points[1][1] + 0.5) * scale);
        g.stroke();
      }
    };
    const render = this.va.render.bind(this.va);
    this.va.render = async () => { await render(); this.sync(); };
    await this.va.setItem(id);
    this.profileChart = new KS.Chart(this.grid, 'line profile (click two points)', 360, 240);
    this.profileChart.panel.id = 'view-profile';
    if (this.b.value) await this.compare();
  },
  pick(x, y) {
    this.points.push([x, y]);
    if (this.points.length > 2) this.points = [[x, y]];
    this.va.draw();
    if (this.points.length === 2) this.profile();
  },
  /* values along the segment, bilinear in the slice, one sample per pixel of length */
  profile() {
    const s = this.va.slice, [p, q] = this.points;
    const n = Math.max(2, Math.ceil(Math.hypot(q[0] - p[0], q[1] - p[1])) + 1);
    const xs = [], ys = [];
    for (let i = 0; i < n; i++) {
      const t = i / (n - 1), x = p[0] + t * (q[0] - p[0]), y = p[1] + t * (q[1] - p[1]);
      const x0 = Math.floor(x), y0 = Math.floor(y), x1 = Math.min(x0 + 1, s.w - 1), y1 = Math.min(y0 + 1, s.h - 1);
      const fx = x - x0, fy = y - y0, at = (a, b) => s.data[b * s.w + a];
      xs.push(t * Math.hypot(q[0] - p[0], q[1] - p[1]));
      ys.push((1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x1, y0)) + fy * ((1 - fx) * at(x0, y1) + fx * at(x1, y1)));
    }
    this.profileChart.draw([{ x: xs, y: ys }], { xlabel: 'distance (pixels) from [' + p.join(', ') + '] to [' + q.join(', ') + ']',
      ylabel: 'value', info: n + ' samples' });
    this.profileChart.panel.dataset.samples = JSON.stringify(ys);
  },
  /* B and the difference follow A's axes, indices and part */
  async sync() {
    for (const w of [this.vb, this.vd]) {
      if (!w || !w.dims) continue;
      w.h = this.va.h; w.v = this.va.v; w.part = this.va.part;
      w.idx = this.va.idx.slice();
      await KS.ImageView.prototype.render.call(w);
    }
  },
  async compare() {
    for (const w of [this.vb, this.vd]) if (w) w.remove();
    this.vb = this.vd = null;
    this.tail.textContent = '';
    const b = +this.b.value;
    if (!b || !this.va) return;
    let r;
    try {
      r = await KS.api('compare', { a: this.a.value, b: b });
    } catch (e) {
      this.msg.textContent = e.message;
      return;
    }
    this.msg.textContent = '';
    const mk = async (id, title, opts) => {
      const w = new KS.ImageView(this.grid, Object.assign({ title: title, h: this.va.h, v: this.va.v, size: 320 }, opts));
      w.idx = this.va.idx.slice();
      w.part = this.va.part;
      await w.setItem(id);
      return w;
    };
    this.vb = await mk(b, this.b.options[this.b.selectedIndex].textContent, { parts: true });
    this.vb.panel.id = 'view-panel-b';
    this.vd = await mk(r.item, 'difference (A - B; |A - B| for complex data)', {});
    this.vd.panel.id = 'view-panel-diff';
    this.tail.appendChild(KS.el('h2', 'sub', 'A against B (kray metrics)'));
    KS.metricsTable(this.tail, { metrics: {}, json: [r] }, 'view-metrics');
  },
};
