#!/usr/bin/env python3
"""The model of docs/scaling.md ("A model for many GPUs"): time per SIRT iteration with
replicated vectors on P GPUs, t(P) = t1 / P + V (P - 1) / P / B, printed as a table and drawn as
docs/img/scaling-model.svg (speed-up against P, beside the ideal line). Usage:
scripts/scaling-model.py [t1_seconds] [exchanged_GB] [GB_per_s]"""
import math, os, sys

t1 = float(sys.argv[1]) if len(sys.argv) > 1 else 1.46   # SIRT, matched pair, 512^3, H100
V = float(sys.argv[2]) if len(sys.argv) > 2 else 2.9     # |x| + |y| in GB
B = float(sys.argv[3]) if len(sys.argv) > 3 else 25.0    # GB/s received per process
Ps = [1, 2, 4, 8, 16, 32, 64]
rows = []
for P in Ps:
    t = t1 / P + V * (P - 1) / P / B
    rows.append((P, t, t1 / t))
    print("P %3d  t %.3f s  speed-up %.2f  efficiency %3.0f %%" % (P, t, t1 / t, 100 * t1 / t / P))

W, H, L, Bm, T, R = 560, 360, 60, 50, 30, 20
def x(P): return L + (W - L - R) * math.log2(P) / math.log2(Ps[-1])
def y(s): return H - Bm - (H - Bm - T) * math.log2(s) / math.log2(Ps[-1])
out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
       'font-size="12">' % (W, H), '<rect width="100%" height="100%" fill="white"/>']
for P in Ps:
    out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x(P), T, x(P), H - Bm))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(P), H - Bm + 16, P))
    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (L, y(P), W - R, y(P)))
    out.append('<text x="%d" y="%.1f" text-anchor="end">%d</text>' % (L - 6, y(P) + 4, P))
ideal = " ".join("%.1f,%.1f" % (x(P), y(P)) for P in Ps)
model = " ".join("%.1f,%.1f" % (x(P), y(s)) for P, t, s in rows)
out.append('<polyline points="%s" fill="none" stroke="#999" stroke-dasharray="4 3"/>' % ideal)
out.append('<polyline points="%s" fill="none" stroke="#4c72b0" stroke-width="2"/>' % model)
for P, t, s in rows:
    out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="#4c72b0"/>' % (x(P), y(s)))
out.append('<text x="%d" y="%d" text-anchor="middle">GPUs</text>' % ((L + W - R) // 2, H - 12))
out.append('<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">speed-up</text>'
           % ((T + H - Bm) // 2, (T + H - Bm) // 2))
out.append('<text x="%d" y="18" text-anchor="middle">SIRT 512^3 per iteration, replicated vectors: '
           'model (t1 %.2f s, %.1f GB, %.0f GB/s); dashed: ideal</text>' % (W // 2, t1, V, B))
out.append('</svg>')
path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'docs', 'img',
                    'scaling-model.svg')
os.makedirs(os.path.dirname(path), exist_ok=True)
open(path, 'w').write("\n".join(out) + "\n")
