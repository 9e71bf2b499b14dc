#!/usr/bin/python3
"""kray studio in a real browser: headless Chromium driven by Selenium (Debian's chromium,
chromium-driver and python3-selenium). Each page is loaded, a parameter changed, the job
awaited, and what the page shows is checked against references computed here:

  MRI/SENSE  the g-factor maximum shown equals the maximum of the g map that the page's own
             command lines give when run again with the kray executable (and it is >= 1); the
             pixels drawn for the SENSE image are the window of the image those commands give
  CT         SIRT's residual curve drawn as it ran has one point per iteration and falls;
             the NRMSE shown is the one of the commands run again; the benchmark battery
             draws its chart and table
  non-Cart.  CG-SENSE's numbers equal those of its commands run again; FVE draws its spectra
  viewer     uploads (NumPy files and a BART .cfl/.hdr pair): the value under a real mouse
             click is the file's value at that index, also through another pair of axes;
             a line profile; comparison with kray metrics' NRMSE computed here with NumPy

Usage: studio_browser.py KRAY OUTDIR [--docs DIR]. Screenshots of every page go to OUTDIR
(ctest: build/tests/studio-screenshots); --docs DIR writes the documentation's pictures instead
(scripts/studio-screenshots). Exit 0 when every check passed, 1 otherwise."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import numpy as np
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains

KRAY, OUT = os.path.abspath(sys.argv[1]), sys.argv[2]
DOCS = sys.argv[sys.argv.index('--docs') + 1] if '--docs' in sys.argv else None
os.makedirs(OUT, exist_ok=True)
FAILS = []


def check(cond, what):
    print(('ok: ' if cond else 'FAIL: ') + what, flush=True)
    if not cond:
        FAILS.append(what)


tmp = tempfile.mkdtemp(prefix='kray-studio-browser-')
srv = subprocess.Popen([KRAY, 'studio', '--port', '0', '-q'], stdout=subprocess.PIPE,
                       env=dict(os.environ, TMPDIR=tmp), text=True)
url = srv.stdout.readline().strip().split('kray studio: ')[-1]
opts = webdriver.ChromeOptions()
for a in ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
          '--window-size=1500,1100']:
    opts.add_argument(a)
opts.binary_location = '/usr/bin/chromium'
d = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=opts)
d.set_script_timeout(30)


def js(code, *args):
    return d.execute_script(code, *args)


def status(page, idx=0):
    return js('const s = document.querySelectorAll("#page-%s .status")[%d];'
              'return [s.dataset.state || "", +(s.dataset.job || 0), +(s.dataset.shown || 0)];'
              % (page, idx))


def wait_job(page, after=0, idx=0, timeout=120):
    """Wait until the page shows a finished job newer than `after`, its results drawn."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        state, job, shown = status(page, idx)
        if job > after and shown == job and state in ('done', 'failed', 'cancelled'):
            time.sleep(0.2)
            return state, job
        time.sleep(0.1)
    return 'timeout', 0


def set_params(form, values, run=True):
    """Set inputs of a form; with run, click Run (auto-run off)."""
    js('document.querySelector("#%s input.auto").checked = false;' % form)
    for k, v in values.items():
        js('const i = document.querySelector("#%s [name=%s]");'
           'if (i.type === "checkbox") i.checked = !!arguments[0]; else i.value = arguments[0];'
           'i.dispatchEvent(new Event("change"));' % (form, k), v)
    if run:
        js('document.querySelector("#%s button.run").click();' % form)


def metric(table, name):
    return float(js('return document.querySelector("#%s tr[data-name=\'%s\'] td.v").dataset.value;'
                    % (table, name)))


def rerun(page):
    """Run the page's command lines again in a fresh directory: that directory."""
    cmds = js('return document.querySelector("#page-%s pre.commands").textContent;' % page)
    wd = tempfile.mkdtemp(dir=tmp)
    for line in cmds.splitlines():
        if line.startswith('# geom.json'):  # written by the studio: its download link
            href = js('return document.querySelector("#page-%s a[download=\'geom.json\']").href' % page)
            with urllib.request.urlopen(href) as f, open(os.path.join(wd, 'geom.json'), 'wb') as o:
                o.write(f.read())
        if not line or line.startswith('#'):
            continue
        argv = line.split()
        argv[0] = KRAY
        r = subprocess.run(argv, cwd=wd, capture_output=True, text=True)
        if r.returncode != 0:
            check(False, '%s: %s exited %d: %s' % (page, line, r.returncode, r.stderr.strip()))
            return wd
    return wd


def shot(name):
    """The whole page (the viewport stretched to its height through the DevTools protocol)."""
    h = min(max(js('return document.documentElement.scrollHeight'), 900), 4000)
    d.execute_cdp_cmd('Emulation.setDeviceMetricsOverride',
                      {'width': 1500, 'height': h, 'deviceScaleFactor': 1, 'mobile': False})
    time.sleep(0.3)
    path = os.path.join(DOCS or OUT, 'studio-%s.png' % name)
    d.save_screenshot(path)
    d.execute_cdp_cmd('Emulation.clearDeviceMetricsOverride', {})
    if DOCS:  # 256 colours keep the pictures of the documentation small
        try:
            from PIL import Image
            Image.open(path).convert('RGB').quantize(256).save(path, optimize=True)
        except ImportError:
            pass
    print('screenshot: ' + path)


def tab(name):
    js('document.querySelector("#tabs button[data-page=%s]").click();' % name)


try:
    d.get(url)
    check(d.title == 'kray studio', 'the page loads (title %r)' % d.title)
    check('backend' in js('return document.getElementById("backend").textContent'), 'the backend is shown')

    # ---- MRI simulation and SENSE ----------------------------------------------------------
    state, first = wait_job('mri')
    check(state == 'done', 'MRI: the default job ran (%s)' % state)
    size = 64 if DOCS else 32
    set_params('mri-form', {'size': size, 'coils': 8, 'R': 3, 'noise': 0.0005})
    state, job = wait_job('mri', first)
    check(state == 'done' and job > first, 'MRI: a changed parameter ran a new job (%s)' % state)
    gmax = metric('mri-metrics', 'g max')
    wd = rerun('mri')
    g = np.load(os.path.join(wd, 'g.npy'))
    check(abs(gmax - float(g.max())) <= 1e-6 * g.max() and gmax >= 1,
          'MRI: g-factor max shown %.6g = max of the commands\' g.npy %.6g (>= 1)' % (gmax, g.max()))
    rec = np.abs(np.load(os.path.join(wd, 'recon.npy')))
    # the SENSE panel's pixels: gray = round(255 (|x| - lo) / (hi - lo)) of its window
    px = js('''const p = [...document.querySelectorAll("#mri-results .panel")].find(
                 (e) => e.dataset.file === "recon.npy");
               const c = p.querySelector("canvas"), g = c.getContext("2d");
               const lo = +p.querySelector("input.lo").value, hi = +p.querySelector("input.hi").value;
               const s = c.width / %d, out = [];
               for (const [x, y] of [[4, 4], [%d, %d], [%d, 5], [7, %d]])
                 out.push([x, y, g.getImageData(x * s + 1, y * s + 1, 1, 1).data[0]]);
               return [lo, hi, out];''' % (size, size // 2, size // 2, size - 6, size - 8))
    lo, hi, pts = px
    ok = all(abs(v - min(255, max(0, round(255 * (rec[y, x] - lo) / (hi - lo))))) <= 2 for x, y, v in pts)
    check(ok and hi > lo, 'MRI: SENSE pixels drawn match |recon| of the commands (%s)' % pts)
    check(js('return document.querySelector("#page-mri pre.commands").textContent.startsWith("kray sim")'),
          'MRI: the command lines are shown')
    shot('mri')

    # ---- CT -------------------------------------------------------------------------------
    tab('ct')
    state, first = wait_job('ct')
    check(state == 'done', 'CT: the default FBP job ran (%s)' % state)
    iters = 8
    set_params('ct-form', {'size': 48 if not DOCS else 128, 'views': 60 if not DOCS else 180,
                           'algo': 'sirt', 'iters': iters})
    state, job = wait_job('ct', first)
    check(state == 'done', 'CT: SIRT ran (%s)' % state)
    check(js('return !!document.querySelector("#ct-results .panel[data-file=\'rec.npy\'] canvas")'),
          'CT: the reconstruction is drawn beside the residual curve')
    ys = json.loads(js('return document.querySelector("#ct-residual").dataset.y'))
    check(len(ys) == iters + 1 and all(b < a for a, b in zip(ys, ys[1:])),
          'CT: residual curve of %d points, falling: %s' % (len(ys), [round(v, 4) for v in ys]))
    nrmse = metric('ct-metrics', 'nrmse')
    wd = rerun('ct')
    r = subprocess.run([KRAY, 'metrics', '--json', 'rec.npy', 'truth.npy'], cwd=wd,
                       capture_output=True, text=True)
    ref = json.loads(r.stdout)['nrmse'] if r.returncode == 0 else float('nan')
    check(abs(nrmse - ref) <= 1e-9 * ref, 'CT: NRMSE shown %.9g = the commands\' %.9g' % (nrmse, ref))
    shot('ct-sirt')
    if DOCS:
        set_params('ct-form', {'geom': 'cone', 'size': 64, 'nz': 32, 'views': 120, 'arc': 360,
                               'algo': 'fbp'})
        wait_job('ct', job)
        shot('ct-fdk')
    set_params('bench-form', {'size': 32 if not DOCS else 128, 'views': 30 if not DOCS else 180,
                              'reps': 1})
    state, _ = wait_job('ct', 0, idx=1, timeout=180)
    check(state == 'done', 'CT: the benchmark battery ran (%s)' % state)
    nbars = js('const t = document.querySelector("#bench-table"); return t ? t.rows.length : 0;')
    svg = js('const i = document.querySelector("#bench-results img"); return i ? i.naturalWidth : 0;')
    check(nbars >= 2 and svg > 0, 'CT: benchmark chart with %d cases and its SVG (%d px)' % (nbars, svg))
    js('document.querySelector("#bench-form").scrollIntoView()')
    shot('ct-bench')

    # ---- non-Cartesian MRI ------------------------------------------------------------------
    tab('nc')
    state, first = wait_job('nc')
    check(state == 'done', 'non-Cartesian: the default NUFFT job ran (%s)' % state)
    check(js('return !!document.querySelector("#nc-traj")'), 'non-Cartesian: the trajectory is drawn')
    set_params('nc-form', {'size': 32 if not DOCS else 64, 'recon': 'cg', 'iters': 6})
    state, job = wait_job('nc', first)
    check(state == 'done', 'non-Cartesian: CG-SENSE ran (%s)' % state)
    check(js('return !!document.querySelector("#nc-results .panel[data-file=\'rec.npy\'] canvas")'
             ' && !!document.querySelector("#nc-traj")'),
          'non-Cartesian: the trajectory and the CG-SENSE image are drawn')
    nrmse = metric('nc-metrics', 'nrmse')
    wd = rerun('nc')
    r = subprocess.run([KRAY, 'metrics', '--json', 'rec.npy', 'truth.npy'], cwd=wd,
                       capture_output=True, text=True)
    ref = json.loads(r.stdout)['nrmse'] if r.returncode == 0 else float('nan')
    check(abs(nrmse - ref) <= 1e-9 * ref,
          'non-Cartesian: CG-SENSE NRMSE shown %.6g = the commands\' %.6g' % (nrmse, ref))
    state, _ = wait_job('nc', 0, idx=1)
    spec = js('const c = document.querySelector("#fve-spectrum"); return c ? c.dataset.y : "";')
    check(state == 'done' and spec and max(json.loads(spec)) > 0, 'FVE: the velocity spectra are drawn')
    shot('nc')

    # ---- viewer ----------------------------------------------------------------------------
    tab('view')
    rng = np.random.default_rng(7)
    files = os.path.join(tmp, 'files')
    os.makedirs(files)
    if DOCS:  # the documentation shows the phantom (96 x 80) and a noisy copy
        subprocess.run([KRAY, 'phantom', '-n', '96x80', os.path.join(files, 'a.npy')], check=True)
        a = np.load(os.path.join(files, 'a.npy')).astype(np.float32)
    else:
        a = rng.random((20, 24), dtype=np.float32)  # kray [24, 20]: x across 24, y down 20
    ny, nx = a.shape
    b = (a + 0.05 * rng.standard_normal(a.shape)).astype(np.float32)
    vol = rng.random((5, 6, 8), dtype=np.float32)  # kray [8, 6, 5]
    np.save(os.path.join(files, 'a.npy'), a)
    np.save(os.path.join(files, 'b.npy'), b)
    np.save(os.path.join(files, 'vol.npy'), vol)
    subprocess.run([KRAY, 'convert', os.path.join(files, 'a.npy'), os.path.join(files, 'pair.cfl')],
                   check=True)
    inp = d.find_element('css selector', '#view-open')

    def upload(*names):
        n0 = js('return document.querySelectorAll("#view-a option").length')
        inp.send_keys('\n'.join(os.path.join(files, x) for x in names))
        t0 = time.time()
        while time.time() - t0 < 30 and js('return document.querySelectorAll("#view-a option").length') == n0:
            time.sleep(0.1)
        time.sleep(0.8)

    def click_at(canvas_sel, x, y, nx, ny):
        c = d.find_element('css selector', canvas_sel)
        w, h = js('const r = arguments[0].getBoundingClientRect(); return [r.width, r.height];', c)
        ActionChains(d).move_to_element_with_offset(c, int((x + 0.5) * w / nx - w / 2),
                                                    int((y + 0.5) * h / ny - h / 2)).click().perform()
        time.sleep(0.3)

    upload('a.npy')
    x0, y0, x1, y1 = (5, 7, 20, 15) if not DOCS else (20, 40, 75, 40)
    click_at('#view-panel-a canvas', x0, y0, nx, ny)
    v = float(js('return document.querySelector("#view-pixel").dataset.value'))
    idx = js('return document.querySelector("#view-pixel").dataset.index')
    check(idx == '%d,%d' % (x0, y0) and abs(v - a[y0, x0]) <= 1e-6,
          'viewer: clicked [%d, %d] shows %.7g, the file holds %.7g (%s)' % (x0, y0, v, a[y0, x0], idx))
    click_at('#view-panel-a canvas', x1, y1, nx, ny)
    prof = json.loads(js('return document.querySelector("#view-profile").dataset.y') or '[]')
    check(len(prof) >= 16 and abs(prof[0] - a[y0, x0]) < 1e-5 and abs(prof[-1] - a[y1, x1]) < 1e-5,
          'viewer: line profile of %d samples from a[%d, %d] to a[%d, %d]' % (len(prof), y0, x0, y1, x1))
    upload('b.npy')
    ids = js('return [...document.querySelectorAll("#view-a option")].map((o) => [o.value, o.textContent])')
    ida = [i for i, t in ids if t.endswith(': a.npy')][0]
    idb = [i for i, t in ids if t.endswith(': b.npy')][0]
    js('const s = document.querySelector("#view-a"); s.value = arguments[0]; s.dispatchEvent(new Event("change"));', ida)
    time.sleep(1.0)
    js('const s = document.querySelector("#view-b"); s.value = arguments[0]; s.dispatchEvent(new Event("change"));', idb)
    t0 = time.time()
    while time.time() - t0 < 20 and not js('return !!document.querySelector("#view-metrics")'):
        time.sleep(0.1)
    nr = metric('view-metrics', 'nrmse')
    ref = float(np.linalg.norm(a.astype(np.float64) - b) / np.linalg.norm(b.astype(np.float64)))
    check(abs(nr - ref) <= 1e-6 * ref, 'viewer: comparison NRMSE %.9g, NumPy %.9g' % (nr, ref))
    check(js('return !!document.querySelector("#view-panel-diff canvas")'), 'viewer: the difference image is drawn')
    shot('viewer')
    js('const s = document.querySelector("#view-b"); s.value = ""; s.dispatchEvent(new Event("change"));')
    upload('pair.hdr', 'pair.cfl')
    click_at('#view-panel-a canvas', 3, 2, nx, ny)
    v = float(js('return document.querySelector("#view-pixel").dataset.value'))
    check(abs(v - a[2, 3]) <= 1e-6, 'viewer: the BART pair shows a[2, 3] = %.7g at [3, 2] (%.7g)' % (a[2, 3], v))
    upload('vol.npy')
    js('const h = document.querySelector("#view-h"), v = document.querySelector("#view-v");'
       'h.value = 2; v.value = 0; h.dispatchEvent(new Event("change"));')
    time.sleep(1.0)
    click_at('#view-panel-a canvas', 4, 6, 5, 8)  # across: z (5), down: x (8); y index 0
    v = float(js('return document.querySelector("#view-pixel").dataset.value'))
    idx = js('return document.querySelector("#view-pixel").dataset.index')
    check(idx == '6,0,4' and abs(v - vol[4, 0, 6]) <= 1e-6,
          'viewer: slicing axes (z across, x down) shows vol[x=6, y=0, z=4] = %.7g (%.7g, %s)' % (vol[4, 0, 6], v, idx))
    errs = [e for e in d.get_log('browser') if e.get('level') == 'SEVERE']
    check(not errs, 'no errors in the browser console: %s' % errs[:3])
finally:
    d.quit()
    srv.terminate()
    rc = srv.wait(timeout=30)
    check(rc == 0, 'kray studio stopped cleanly (exit %s)' % rc)
    check(os.listdir(tmp) == [] or all(not x.startswith('kray-studio-') for x in os.listdir(tmp)),
          'kray studio removed its temporary directory')
    shutil.rmtree(tmp, ignore_errors=True)

print('%d checks failed' % len(FAILS) if FAILS else 'all checks passed')
sys.exit(1 if FAILS else 0)
