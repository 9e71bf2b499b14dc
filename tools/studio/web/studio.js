/* kray studio: what every page shares. The server's API is described in docs/studio.md; every
 * request carries the access token of the page (header X-Kray-Token, or ?token= where a URL
 * is all a request can carry: event streams, downloads, images). */
'use strict';

const KS = {};
KS.token = document.querySelector('meta[name=kray-token]').content;
KS.pages = {};

KS.url = function (path, params) {
  const q = new URLSearchParams(params || {});
  q.set('token', KS.token);
  return '/api/' + path + '?' + q.toString();
};

/* JSON from the API; a failure throws an Error with kray's sentence. */
KS.api = async function (path, params, method, body) {
  const q = new URLSearchParams(params || {});
  const r = await fetch('/api/' + path + (q.toString() ? '?' + q.toString() : ''), {
    method: method || 'GET', headers: { 'X-Kray-Token': KS.token }, body: body });
  const ct = r.headers.get('Content-Type') || '';
  if (!ct.startsWith('application/json')) {
    if (!r.ok) throw new Error('HTTP ' + r.status);
    return r;
  }
  const j = await r.json();
  if (!r.ok) throw new Error(j.error || ('HTTP ' + r.status));
  return j;
};

KS.floats = async function (path, params) {
  const q = new URLSearchParams(params || {});
  const r = await fetch('/api/' + path + '?' + q.toString(), { headers: { 'X-Kray-Token': KS.token } });
  if (!r.ok) {
    let msg = 'HTTP ' + r.status;
    try { msg = (await r.json()).error || msg; } catch (e) { /* not JSON */ }
    throw new Error(msg);
  }
  const buf = await r.arrayBuffer();
  return { data: new Float32Array(buf), w: +r.headers.get('X-Width'), h: +r.headers.get('X-Height'),
           dims: (r.headers.get('X-Dims') || '').split('x').map(Number) };
};

/* Upload a File (or a BART .hdr/.cfl pair): the item description. */
KS.upload = async function (file, extra) {
  return KS.api('upload', Object.assign({ name: file.name }, extra || {}), 'POST', file);
};

KS.el = function (tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/* A row of the page: a form on the left, its results on the right. */
KS.row = function (root) {
  const r = KS.el('div', 'row');
  root.appendChild(r);
  return r;
};

KS.fmt = function (v) {
  if (v === null || v === undefined) return 'n/a';
  if (typeof v !== 'number') return String(v);
  if (!isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(3);
  return (+v.toPrecision(5)).toString();
};

/* ---- parameter forms ----------------------------------------------------------------------
 * fields: {name, label, type: 'int'|'num'|'select'|'check'|'file'|'head', def, min, max, step,
 * options: [...], show: (values) => bool, accept: '.seq'}. A file field uploads at once and its
 * value is the item number. onChange(values) runs (debounced) after every edit. */
KS.Form = class {
  constructor(parent, id, fields, onChange) {
    this.fields = fields;
    this.onChange = onChange;
    this.form = KS.el('form', 'params');
    this.form.id = id;
    this.inputs = {};
    this.labels = {};
    for (const f of fields) {
      if (f.type === 'head') { this.form.appendChild(KS.el('h3', null, f.label)); continue; }
      const lab = KS.el('label');
      lab.appendChild(KS.el('span', null, f.label));
      let inp;
      if (f.type === 'select') {
        inp = KS.el('select');
        for (const o of f.options) {
          const opt = KS.el('option', null, Array.isArray(o) ? o[1] : o);
          opt.value = Array.isArray(o) ? o[0] : o;
          inp.appendChild(opt);
        }
        inp.value = f.def;
      } else if (f.type === 'check') {
        inp = KS.el('input');
        inp.type = 'checkbox';
        inp.checked = !!f.def;
      } else if (f.type === 'file') {
        inp = KS.el('input');
        inp.type = 'file';
        if (f.accept) inp.accept = f.accept;
        inp.dataset.item = '';
        inp.addEventListener('change', async () => {
          if (!inp.files.length) { inp.dataset.item = ''; return; }
          try {
            const d = await KS.upload(inp.files[0]);
            inp.dataset.item = d.id;
            this.changed();
          } catch (e) {
            inp.dataset.item = '';
            if (this.status) this.status.error(e.message);
          }
        });
      } else {
        inp = KS.el('input');
        inp.type = 'number';
        inp.value = f.def;
        if (f.min !== undefined) inp.min = f.min;
        if (f.max !== undefined) inp.max = f.max;
        inp.step = f.step || (f.type === 'int' ? 1 : 'any');
      }
      inp.name = f.name;
      if (f.type !== 'file') inp.addEventListener('change', () => this.changed());
      lab.appendChild(inp);
      this.inputs[f.name] = inp;
      this.labels[f.name] = lab;
      this.form.appendChild(lab);
    }
    const b = KS.el('div', 'buttons');
    this.runBtn = KS.el('button', 'run', 'Run');
    this.runBtn.type = 'button';
    this.cancelBtn = KS.el('button', 'cancel', 'Cancel');
    this.cancelBtn.type = 'button';
    b.appendChild(this.runBtn);
    b.appendChild(this.cancelBtn);
    this.form.appendChild(b);
    this.auto = KS.el('label');
    this.auto.appendChild(KS.el('span', null, 'run on every change'));
    this.autoBox = KS.el('input');
    this.autoBox.type = 'checkbox';
    this.autoBox.className = 'auto';
    this.autoBox.checked = true;
    this.auto.appendChild(this.autoBox);
    this.form.appendChild(this.auto);
    this.form.addEventListener('submit', (ev) => ev.preventDefault());
    parent.appendChild(this.form);
    this.visibility();
  }
  values() {
    const v = {};
    for (const f of this.fields) {
      const i = this.inputs[f.name];
      if (!i) continue;
      if (f.type === 'check') v[f.name] = i.checked ? '1' : '0';
      else if (f.type === 'file') v[f.name] = i.dataset.item;
      else v[f.name] = i.value;
    }
    return v;
  }
  /* the parameters the server sees: visible fields only */
  params() {
    const v = this.values(), p = {};
    for (const f of this.fields)
      if (this.inputs[f.name] && (!f.show || f.show(v)) && v[f.name] !== '') p[f.name] = v[f.name];
    return p;
  }
  visibility() {
    const v = this.values();
    for (const f of this.fields)
      if (this.labels[f.name]) this.labels[f.name].classList.toggle('hidden', !!f.show && !f.show(v));
  }
  set(name, value) {
    const i = this.inputs[name];
    if (i.type === 'checkbox') i.checked = !!value; else i.value = value;
    this.visibility();
  }
  changed() {
    this.visibility();
    if (!this.autoBox.checked) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.onChange(this.params()), 350);
  }
};

/* ---- job status: progress, kray's sentence, the command lines ------------------------------ */
KS.Status = class {
  constructor(parent) {
    this.el = KS.el('div', 'status');
    const top = KS.el('div');
    this.state = KS.el('span', 'state', 'idle');
    this.task = KS.el('span', 'note', '');
    top.appendChild(this.state);
    top.appendChild(document.createTextNode(' '));
    top.appendChild(this.task);
    this.bar = KS.el('div', 'bar');
    this.fill = KS.el('div');
    this.bar.appendChild(this.fill);
    this.msg = KS.el('div', 'msg');
    this.el.appendChild(top);
    this.el.appendChild(this.bar);
    this.el.appendChild(this.msg);
    parent.appendChild(this.el);
  }
  show(st) {
    this.state.textContent = st.state;
    this.el.dataset.state = st.state;
    this.el.dataset.job = st.id;
    this.task.textContent = st.state === 'running' ? ('step ' + (st.step + 1) + ' of ' + st.steps +
      ': ' + st.task + ', ' + KS.fmt(st.seconds) + ' s') : (st.seconds ? KS.fmt(st.seconds) + ' s' : '');
    this.fill.style.width = Math.round(100 * st.progress) + '%';
    this.msg.textContent = st.message || '';
    this.msg.classList.toggle('error', st.state === 'failed');
  }
  error(text) {
    this.state.textContent = 'failed';
    this.el.dataset.state = 'failed';
    this.msg.textContent = text;
    this.msg.classList.add('error');
  }
};

/* A row of a page: the parameter form of job page `jobPage` (ids "<prefix>-form",
 * "<prefix>-results"), its status, result grid and tail, and its runner. */
KS.Section = class {
  constructor(page, jobPage, prefix, fields, onStatus, onDone) {
    const root = KS.row(page);
    this.form = new KS.Form(root, prefix + '-form', fields, (p) => this.runner.run(p));
    const out = KS.el('div', 'out');
    root.appendChild(out);
    this.status = new KS.Status(out);
    this.form.status = this.status;
    this.grid = KS.el('div', 'grid');
    this.grid.id = prefix + '-results';
    this.tail = KS.el('div');
    out.appendChild(this.grid);
    out.appendChild(this.tail);
    this.runner = new KS.Runner(jobPage, this.status, onStatus, onDone);
    this.form.runBtn.addEventListener('click', () => this.runner.run(this.form.params()));
    this.form.cancelBtn.addEventListener('click', () => this.runner.cancel());
  }
  run() { this.runner.run(this.form.params()); }
  clear() { this.grid.textContent = ''; this.tail.textContent = ''; }
};

/* Start a download of an API URL. */
KS.download = function (href) {
  const a = KS.el('a');
  a.href = href;
  a.download = '';
  document.body.appendChild(a);
  a.click();
  a.remove();
};

/* One page's jobs: a new run cancels the previous one; events stream the status. */
KS.Runner = class {
  constructor(page, status, onStatus, onDone) {
    this.page = page;
    this.status = status;
    this.onStatus = onStatus;
    this.onDone = onDone;
    this.job = 0;
  }
  async run(params) {
    this.cancel();
    let r;
    try {
      r = await KS.api('job', Object.assign({ page: this.page }, params), 'POST');
    } catch (e) {
      this.status.error(e.message);
      return;
    }
    const id = r.job;
    this.job = id;
    const es = new EventSource(KS.url('job/' + id + '/events'));
    this.es = es;
    es.onmessage = (ev) => {
      const st = JSON.parse(ev.data);
      if (id !== this.job) return;
      this.status.show(st);
      if (this.onStatus) this.onStatus(st);
      if (st.state === 'done' || st.state === 'failed' || st.state === 'cancelled') {
        es.close();
        /* data-shown: the job whose results are on the page (the browser test waits for it) */
        const shown = () => { if (id === this.job) this.status.el.dataset.shown = id; };
        if (st.state === 'done' && this.onDone) Promise.resolve(this.onDone(st)).then(shown, shown);
        else shown();
      }
    };
    es.onerror = () => es.close();
  }
  cancel() {
    if (this.es) this.es.close();
    if (this.job) KS.api('job/' + this.job + '/cancel', {}, 'POST').catch(() => {});
    this.job = 0;
  }
};

/* ---- charts (canvas): lines, points or bars, with labelled axes ---------------------------- */
KS.Chart = class {
  constructor(parent, title, w, h) {
    this.panel = KS.el('div', 'panel');
    this.panel.appendChild(KS.el('div', 'title', title));
    this.canvas = KS.el('canvas', 'chart');
    this.canvas.width = w || 420;
    this.canvas.height = h || 260;
    this.panel.appendChild(this.canvas);
    this.info = KS.el('div', 'info');
    this.panel.appendChild(this.info);
    parent.appendChild(this.panel);
  }
  /* series: [{x: [...], y: [...], name, style: 'line'|'points'|'bars'}]; opts {xlabel, ylabel,
   * logy, equal} */
  draw(series, opts) {
    const c = this.canvas, g = c.getContext('2d'), W = c.width, H = c.height;
    const L = 74, R = 12, T = 14, B = 40;
    g.clearRect(0, 0, W, H);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, W, H);
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    const ty = (v) => opts.logy ? Math.log10(v) : v;
    for (const s of series)
      for (let i = 0; i < s.x.length; i++) {
        const y = ty(s.y[i]);
        if (!isFinite(y) || !isFinite(s.x[i])) continue;
        x0 = Math.min(x0, s.x[i]); x1 = Math.max(x1, s.x[i]);
        y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      }
    if (!isFinite(x0)) { this.info.textContent = 'no data'; return; }
    if (series.some((s) => s.style === 'bars')) { y0 = Math.min(y0, 0); x0 -= 0.5; x1 += 0.5; }
    if (x1 === x0) { x0 -= 1; x1 += 1; }
    if (y1 === y0) { y0 -= 1; y1 += 1; }
    if (opts.equal) { const m = Math.max(Math.abs(x0), Math.abs(x1), Math.abs(y0), Math.abs(y1)); x0 = y0 = -m; x1 = y1 = m; }
    const px = (x) => L + (x - x0) / (x1 - x0) * (W - L - R);
    const py = (y) => H - B - (y - y0) / (y1 - y0) * (H - T - B);
    g.strokeStyle = '#888';
    g.strokeRect(L, T, W - L - R, H - T - B);
    g.fillStyle = '#333';
    g.font = '11px sans-serif';
    g.textAlign = 'center';
    for (let i = 0; i <= 4; i++) {
      const xv = x0 + (x1 - x0) * i / 4, yv = y0 + (y1 - y0) * i / 4;
      g.fillText(KS.fmt(xv), px(xv), H - B + 14);
      g.textAlign = 'right';
      g.fillText(KS.fmt(opts.logy ? Math.pow(10, yv) : yv), L - 4, py(yv) + 4);
      g.textAlign = 'center';
    }
    g.fillText(opts.xlabel || '', L + (W - L - R) / 2, H - 6);
    g.save();
    g.translate(10, T + (H - T - B) / 2);
    g.rotate(-Math.PI / 2);
    g.fillText(opts.ylabel || '', 0, 0);
    g.restore();
    const colours = ['#2f6fd0', '#d0542f', '#2f9d4a', '#8a3fd0', '#c9a227', '#555'];
    series.forEach((s, k) => {
      g.strokeStyle = g.fillStyle = s.colour || colours[k % colours.length];
      if (s.style === 'bars') {
        const bw = Math.max(2, (W - L - R) / (s.x.length + 1) * 0.7);
        for (let i = 0; i < s.x.length; i++)
          g.fillRect(px(s.x[i]) - bw / 2, py(Math.max(0, ty(s.y[i]))), bw, Math.abs(py(ty(s.y[i])) - py(0)));
        return;
      }
      if (s.style === 'points') {
        for (let i = 0; i < s.x.length; i++) g.fillRect(px(s.x[i]) - 1, py(ty(s.y[i])) - 1, 2, 2);
        return;
      }
      g.beginPath();
      let pen = false;
      for (let i = 0; i < s.x.length; i++) {
        const y = ty(s.y[i]);
        if (!isFinite(y)) { pen = false; continue; }
        if (pen) g.lineTo(px(s.x[i]), py(y)); else g.moveTo(px(s.x[i]), py(y));
        pen = true;
        if (s.breaks && s.breaks.has(i + 1)) pen = false;
      }
      g.stroke();
    });
    if (series.length > 1 || (series[0] && series[0].name)) {
      g.textAlign = 'left';
      series.forEach((s, k) => {
        g.fillStyle = s.colour || colours[k % colours.length];
        g.fillText(s.name || '', L + 6, T + 12 + 12 * k);
      });
    }
    this.info.textContent = opts.info || '';
    this.panel.dataset.points = JSON.stringify(series.map((s) => s.y.length));
    if (series[0] && series[0].y.length <= 5000) this.panel.dataset.y = JSON.stringify(series[0].y);
  }
};

/* ---- images: a 2-D slice of an item with window/level, parts, sliders, pixel values -------- */
KS.formats = ['nii', 'nii.gz', 'npy', 'cfl', 'hdr', 'mha', 'nrrd', 'pgm', 'png', 'raw', 'dcm'];

KS.ImageView = class {
  /* opts: {title, part: 'value'|'log'|..., size (display px), onPixel(v, idx), h, v} */
  constructor(parent, opts) {
    this.opts = opts || {};
    this.panel = KS.el('div', 'panel image' + ((this.opts.size || 256) > 256 ? ' large' : ''));
    this.titleEl = KS.el('div', 'title', this.opts.title || '');
    this.canvas = KS.el('canvas');
    this.ctl = KS.el('div', 'ctl');
    this.info = KS.el('div', 'info');
    this.pix = KS.el('div', 'info pixel');
    this.panel.appendChild(this.titleEl);
    this.panel.appendChild(this.canvas);
    this.panel.appendChild(this.ctl);
    this.panel.appendChild(this.info);
    this.panel.appendChild(this.pix);
    parent.appendChild(this.panel);
    this.h = this.opts.h || 0;
    this.v = this.opts.v === undefined ? 1 : this.opts.v;
    this.idx = [];
    this.part = this.opts.part || 'value';
    this.lo = null;
    this.hi = null;
    this.canvas.addEventListener('mousemove', (ev) => this.hover(ev, false));
    this.canvas.addEventListener('click', (ev) => this.hover(ev, true));
  }
  remove() { this.panel.remove(); }
  async setItem(id, title) {
    this.item = id;
    if (title) this.titleEl.textContent = title;
    const info = await KS.api('item/' + id);
    this.desc = info;
    this.dims = info.dims || [];
    this.cplx = (info.dtype || '').startsWith('c');
    while (this.idx.length < 16) this.idx.push(0);
    for (let k = 0; k < 16; k++) if (k >= this.dims.length || this.idx[k] >= this.dims[k]) this.idx[k] = 0;
    if (this.v >= this.dims.length || this.dims[this.v] === 1) {
      /* a 1-D array: one row */
    }
    if (this.opts.slice === 'centre' && this.dims.length > 2) this.idx[2] = Math.floor(this.dims[2] / 2);
    this.controls();
    await this.render();
  }
  controls() {
    const c = this.ctl;
    c.textContent = '';
    if (this.cplx || this.opts.parts) {
      const sel = KS.el('select');
      for (const p of ['value', 'real', 'imag', 'phase', 'log'])
        sel.appendChild(Object.assign(KS.el('option', null, p === 'value' ? (this.cplx ? 'magnitude' : 'value') : p === 'log' ? 'log10 |.|' : p), { value: p }));
      sel.value = this.part;
      sel.className = 'part';
      sel.addEventListener('change', () => { this.part = sel.value; this.lo = this.hi = null; this.render(); });
      c.appendChild(sel);
    }
    this.sliders = {};
    for (let k = 0; k < this.dims.length; k++) {
      if (k === this.h || k === this.v || this.dims[k] <= 1) continue;
      const lab = KS.el('label', null, (this.opts.axisNames && this.opts.axisNames[k]) || ('axis ' + k) + ' ');
      const r = KS.el('input');
      r.type = 'range';
      r.min = 0;
      r.max = this.dims[k] - 1;
      r.value = this.idx[k];
      r.className = 'axis' + k;
      const val = KS.el('span', null, String(this.idx[k]));
      r.addEventListener('input', () => { this.idx[k] = +r.value; val.textContent = r.value; this.render(); });
      lab.appendChild(r);
      lab.appendChild(val);
      c.appendChild(lab);
      this.sliders[k] = r;
    }
    const lo = KS.el('input'), hi = KS.el('input');
    lo.type = hi.type = 'number';
    lo.step = hi.step = 'any';
    lo.className = 'lo';
    hi.className = 'hi';
    lo.title = 'window low';
    hi.title = 'window high';
    const apply = () => { this.lo = +lo.value; this.hi = +hi.value; this.draw(); };
    lo.addEventListener('change', apply);
    hi.addEventListener('change', apply);
    const auto = KS.el('button', null, 'auto');
    auto.type = 'button';
    auto.addEventListener('click', () => { this.lo = this.hi = null; this.draw(); });
    c.appendChild(KS.el('span', null, 'window'));
    c.appendChild(lo);
    c.appendChild(hi);
    c.appendChild(auto);
    this.loIn = lo;
    this.hiIn = hi;
    const dl = KS.el('select');
    dl.appendChild(Object.assign(KS.el('option', null, 'download…'), { value: '' }));
    for (const f of KS.formats) dl.appendChild(Object.assign(KS.el('option', null, '.' + f), { value: f }));
    dl.className = 'download';
    dl.addEventListener('change', () => {
      if (!dl.value) return;
      KS.download(KS.url('item/' + this.item + '/download', { fmt: dl.value, lo: this.wlo, hi: this.whi,
        slice: this.dims.length > 2 ? this.idx[2] : -1, part: this.part }));
      dl.value = '';
    });
    c.appendChild(dl);
  }
  async render() {
    const idx = this.idx.slice(0, Math.max(this.dims.length, 2)).join(',');
    try {
      this.slice = await KS.floats('item/' + this.item + '/slice', { h: this.h, v: this.v, idx: idx, part: this.part });
    } catch (e) {
      this.info.textContent = e.message;
      return;
    }
    let mn = Infinity, mx = -Infinity;
    for (const x of this.slice.data) if (isFinite(x)) { if (x < mn) mn = x; if (x > mx) mx = x; }
    this.min = mn;
    this.max = mx;
    this.draw();
  }
  draw() {
    const s = this.slice;
    if (!s) return;
    const w = s.w, h = s.h;
    let lo = this.lo, hi = this.hi;
    if (lo === null || hi === null || !(hi > lo)) {
      lo = this.opts.zero ? Math.min(0, this.min) : this.min;
      hi = this.max;
      if (!(hi > lo)) hi = lo + 1;
    }
    this.wlo = lo;
    this.whi = hi;
    this.loIn.value = KS.fmt(lo);
    this.hiIn.value = KS.fmt(hi);
    const off = document.createElement('canvas');
    off.width = w;
    off.height = h;
    const og = off.getContext('2d');
    const img = og.createImageData(w, h);
    for (let i = 0; i < w * h; i++) {
      const x = s.data[i];
      let g = isFinite(x) ? Math.round(255 * (x - lo) / (hi - lo)) : 0;
      g = g < 0 ? 0 : g > 255 ? 255 : g;
      img.data[4 * i] = img.data[4 * i + 1] = img.data[4 * i + 2] = g;
      img.data[4 * i + 3] = 255;
    }
    og.putImageData(img, 0, 0);
    const size = this.opts.size || 256;
    const scale = Math.max(1, Math.floor(size / Math.max(w, h)));
    const c = this.canvas;
    c.width = w * scale;
    c.height = Math.max(1, h * scale);
    const g = c.getContext('2d');
    g.imageSmoothingEnabled = false;
    g.drawImage(off, 0, 0, c.width, c.height);
    if (this.marks) this.marks(g, scale);
    this.scale = scale;
    this.info.textContent = 'dims ' + this.dims.join('x') + ' ' + (this.desc.dtype || '') +
      ', slice min ' + KS.fmt(this.min) + ' max ' + KS.fmt(this.max);
    this.canvas.dataset.min = this.min;
    this.canvas.dataset.max = this.max;
  }
  /* pixel under the pointer (and, on click, the callback) */
  hover(ev, click) {
    const s = this.slice;
    if (!s) return;
    const r = this.canvas.getBoundingClientRect();
    const x = Math.floor((ev.clientX - r.left) / r.width * s.w);
    const y = Math.floor((ev.clientY - r.top) / r.height * s.h);
    if (x < 0 || y < 0 || x >= s.w || y >= s.h) return;
    const val = s.data[y * s.w + x];
    const idx = this.idx.slice(0, Math.max(this.dims.length, 2));
    idx[this.h] = x;
    idx[this.v] = y;
    const text = '[' + idx.join(', ') + '] = ' + KS.fmt(val);
    if (click) {
      this.pix.textContent = 'clicked ' + text;
      this.pix.dataset.value = val;
      this.pix.dataset.index = idx.join(',');
      if (this.opts.onPixel) this.opts.onPixel(val, idx, x, y);
    } else {
      this.info.textContent = text;
    }
  }
};

/* ---- results of a job, by role -------------------------------------------------------------- */
KS.metricsTable = function (parent, st, id) {
  const t = KS.el('table', 'metrics');
  t.id = id;
  const add = (name, v) => {
    const tr = KS.el('tr');
    tr.dataset.name = name;
    tr.appendChild(KS.el('td', null, name));
    const td = KS.el('td', 'v', KS.fmt(v));
    td.dataset.value = v;
    tr.appendChild(td);
    t.appendChild(tr);
  };
  for (const [k, v] of Object.entries(st.metrics || {})) add(k, v);
  for (const j of st.json || [])
    for (const k of ['nrmse', 'psnr_db', 'ssim', 'mse', 'maxerr'])
      if (k in j) add(k.replace('_db', ' (dB)'), j[k]);
  parent.appendChild(t);
  return t;
};

KS.commands = function (parent, st) {
  parent.appendChild(KS.el('h2', 'sub', 'The same with kray\u2019s command line'));
  const pre = KS.el('pre', 'cmd', st.commands.join('\n'));
  pre.classList.add('commands');
  parent.appendChild(pre);
  KS.downloads(parent, st);
};

/* Every result of the job in any format kray writes (files such as geometries as they are). */
KS.downloads = function (parent, st) {
  if (!st.results.length) return;
  parent.appendChild(KS.el('h2', 'sub', 'Files'));
  const box = KS.el('div', 'ctl files');
  for (const r of st.results) {
    const span = KS.el('span', null, r.file + ' ');
    if (r.role === 'geom' || r.role === 'svg') {
      const a = KS.el('a', null, 'download');
      a.href = KS.url('item/' + r.item + '/file');
      a.download = r.file;
      span.appendChild(a);
    } else {
      const sel = KS.el('select');
      sel.appendChild(Object.assign(KS.el('option', null, 'as…'), { value: '' }));
      for (const f of KS.formats) sel.appendChild(Object.assign(KS.el('option', null, '.' + f), { value: f }));
      sel.addEventListener('change', () => {
        if (!sel.value) return;
        KS.download(KS.url('item/' + r.item + '/download', { fmt: sel.value }));
        sel.value = '';
      });
      span.appendChild(sel);
    }
    box.appendChild(span);
  }
  parent.appendChild(box);
};

/* Draw the images of a job's results (roles image, gfactor, error, coils, kspace, sino, psi). */
KS.showImages = async function (parent, st, roles, extra) {
  const views = {};
  for (const r of st.results) {
    if (!roles.includes(r.role)) continue;
    const o = Object.assign({ title: r.label }, extra && extra[r.role]);
    if (r.role === 'kspace') o.part = 'log';
    if (r.role === 'error') o.zero = true;
    const v = new KS.ImageView(parent, o);
    v.panel.dataset.role = r.role;
    v.panel.dataset.file = r.file;
    views[r.file] = v;
    await v.setItem(r.item);
  }
  return views;
};

/* ---- tabs and the backend line ------------------------------------------------------------- */
window.addEventListener('DOMContentLoaded', async () => {
  for (const b of document.querySelectorAll('#tabs button'))
    b.addEventListener('click', () => {
      for (const o of document.querySelectorAll('#tabs button')) o.classList.toggle('on', o === b);
      for (const p of document.querySelectorAll('.page')) p.classList.toggle('on', p.id === 'page-' + b.dataset.page);
      const pg = KS.pages[b.dataset.page];
      if (pg && pg.shown) pg.shown();
    });
  try {
    const i = await KS.api('info');
    KS.info = i;
    document.getElementById('backend').textContent = 'kray ' + i.version + ', backend: ' + i.backend +
      ' (' + i.device + ')' + (i.options ? ', ' + i.options : '');
  } catch (e) {
    document.getElementById('backend').textContent = e.message;
  }
  for (const [name, pg] of Object.entries(KS.pages)) pg.init(document.getElementById('page-' + name));
});
