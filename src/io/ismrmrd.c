/* ISMRMRD raw data (HDF5) through Debian's libismrmrd C API, reading: 2-D Cartesian acquisitions
 * (XML header fields, line placement, calibration and noise scans) and stored images / NDArrays.
 * Writing is in ismrmrd_write.c. Without libismrmrd every function returns
 * KR_ERR_NOT_SUPPORTED. libismrmrd/HDF5 calls are serialised by one lock (the serial HDF5
 * build is not thread-safe); libismrmrd's error messages go to the caller's detail sentence. */
#include "internal.h"
#include "ismrmrd_internal.h"
#include "kray/fft.h"
#include "kray/ismrmrd.h"
#include "kray/noise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kr_ismrmrd_read_opts_default(kr_ismrmrd_read_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->remove_oversampling = 1;
}

void kr_ismrmrd_data_destroy(kr_ismrmrd_data *d)
{
    if (!d) return;
    kr_array_destroy(d->kspace);
    kr_array_destroy(d->calib);
    kr_array_destroy(d->noise);
    kr_array_destroy(d->psi);
    kri_free(d->lines);
    memset(d, 0, sizeof *d);
}

#ifndef KRAY_HAVE_ISMRMRD

int kr_have_ismrmrd(void) { return 0; }
kr_status kr_ismrmrd_read(const char *path, const kr_ismrmrd_read_opts *opts, kr_ismrmrd_data *out)
{
    (void)path, (void)opts;
    if (out) memset(out, 0, sizeof *out);
    return KRI_NO_ISMRMRD;
}

kr_status kr_ismrmrd_read_image(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out)
{
    (void)path, (void)dataset, (void)var, (void)index;
    if (out) *out = NULL;
    return KRI_NO_ISMRMRD;
}
kr_status kr_ismrmrd_read_array(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out)
{
    (void)path, (void)dataset, (void)var, (void)index;
    if (out) *out = NULL;
    return KRI_NO_ISMRMRD;
}

#else /* KRAY_HAVE_ISMRMRD */

#include <pthread.h>
#include <unistd.h>

int kr_have_ismrmrd(void) { return kri_ismrmrd_load() == KR_OK; }

static pthread_mutex_t kri_ismrmrd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t kri_ismrmrd_once = PTHREAD_ONCE_INIT;
static _Thread_local char kri_ismrmrd_msg[256];

const char *kri_ismrmrd_error(void) { return kri_ismrmrd_msg; }

/* libismrmrd reports through a process-wide handler: keep the first message of this thread's
 * current call (cleared before each call) instead of printing it. */
static void kri_ismrmrd_handler(const char *file, int line, const char *func, int code,
                                const char *msg)
{
    (void)file, (void)line, (void)func, (void)code;
    if (!kri_ismrmrd_msg[0])
        snprintf(kri_ismrmrd_msg, sizeof kri_ismrmrd_msg, "%s", msg ? msg : "");
}

static void kri_ismrmrd_init(void)
{
    ismrmrd_set_error_handler(kri_ismrmrd_handler);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

kr_status kri_ismrmrd_enter(void)
{
    KRI_TRY(kri_ismrmrd_load());
    pthread_once(&kri_ismrmrd_once, kri_ismrmrd_init);
    pthread_mutex_lock(&kri_ismrmrd_lock);
    kri_ismrmrd_msg[0] = '\0';
    return KR_OK;
}

void kri_ismrmrd_leave(void) { pthread_mutex_unlock(&kri_ismrmrd_lock); }

static int kri_flag(uint64_t flags, int f) { return (flags >> (f - 1)) & 1u; }

/* ---- minimal XML access: the first <tag>...</tag> inside [s, e) ------------------------------ */
typedef struct kri_span {
    const char *s, *e;
} kri_span;

static int kri_xml_child(kri_span in, const char *tag, kri_span *out)
{
    size_t tl = strlen(tag);
    for (const char *p = in.s; p && p < in.e; p++) {
        if (*p != '<' || (size_t)(in.e - p) < tl + 2) continue;
        if (strncmp(p + 1, tag, tl) != 0) continue;
        char c = p[1 + tl];
        if (c != '>' && c != ' ' && c != '\t' && c != '\n' && c != '/') continue;
        const char *gt = memchr(p, '>', (size_t)(in.e - p));
        if (!gt) return 0;
        if (gt[-1] == '/') { /* <tag/> */
            out->s = out->e = gt + 1;
            return 1;
        }
        /* find the matching close tag (no nesting of the same tag in ISMRMRD headers) */
        for (const char *q = gt + 1; q + tl + 3 <= in.e; q++)
            if (q[0] == '<' && q[1] == '/' && strncmp(q + 2, tag, tl) == 0 && q[2 + tl] == '>') {
                out->s = gt + 1;
                out->e = q;
                return 1;
            }
        return 0;
    }
    return 0;
}

/* Follow a path "a/b/c"; 1 when found. */
static int kri_xml_path(kri_span in, const char *path, kri_span *out)
{
    char buf[128];
    kri_span cur = in;
    const char *p = path;
    while (*p) {
        const char *sl = strchr(p, '/');
        size_t n = sl ? (size_t)(sl - p) : strlen(p);
        if (n >= sizeof buf) return 0;
        memcpy(buf, p, n);
        buf[n] = '\0';
        if (!kri_xml_child(cur, buf, &cur)) return 0;
        p += n + (sl ? 1 : 0);
    }
    *out = cur;
    return 1;
}

static int kri_xml_number(kri_span in, const char *path, double *v)
{
    kri_span s;
    if (!kri_xml_path(in, path, &s)) return 0;
    char buf[64];
    size_t n = (size_t)(s.e - s.s);
    if (n == 0 || n >= sizeof buf) return 0;
    memcpy(buf, s.s, n);
    buf[n] = '\0';
    char *end = NULL;
    double x = strtod(buf, &end);
    while (end && (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r')) end++;
    if (!end || *end || !isfinite(x)) return 0;
    *v = x;
    return 1;
}

static int kri_xml_text(kri_span in, const char *path, char *buf, size_t len)
{
    kri_span s;
    if (!kri_xml_path(in, path, &s)) return 0;
    while (s.s < s.e && (*s.s == ' ' || *s.s == '\n' || *s.s == '\t' || *s.s == '\r')) s.s++;
    while (s.e > s.s && (s.e[-1] == ' ' || s.e[-1] == '\n' || s.e[-1] == '\t' || s.e[-1] == '\r'))
        s.e--;
    size_t n = (size_t)(s.e - s.s);
    if (n >= len) n = len - 1;
    memcpy(buf, s.s, n);
    buf[n] = '\0';
    return 1;
}

static int kri_count_tag(kri_span in, const char *tag)
{
    int n = 0;
    kri_span cur = in, c;
    while (kri_xml_child(cur, tag, &c)) {
        n++;
        cur.s = c.e;
    }
    return n;
}

/* ---- reading ------------------------------------------------------------------------------------
 */
kr_status kri_ismrmrd_open(ISMRMRD_Dataset *d, const char *path, const char *group, int create)
{
    if (!create) {
        FILE *f = fopen(path, "rb");
        if (!f) return kri_fail(KR_ERR_IO, "cannot open '%s'", path);
        fclose(f);
    }
    memset(d, 0, sizeof *d);
    if (ismrmrd_init_dataset(d, path, group) != ISMRMRD_NOERROR ||
        ismrmrd_open_dataset(d, create ? true : false) != ISMRMRD_NOERROR) {
        /* not opened: release what ismrmrd_init_dataset allocated */
        free(d->filename);
        free(d->groupname);
        d->filename = d->groupname = NULL;
        if (create)
            return kri_fail(KR_ERR_IO, "cannot create '%s'%s%s", path,
                            kri_ismrmrd_msg[0] ? ": " : "", kri_ismrmrd_msg);
        return kri_fail(KR_ERR_FORMAT, "'%s' is not an ISMRMRD file%s%s", path,
                        kri_ismrmrd_msg[0] ? ": " : "", kri_ismrmrd_msg);
    }
    return KR_OK;
}

/* Crop the readout (axis 0) of a c64 [nxe, ny, nc] array to nxr in the image domain. */
static kr_status kri_crop_readout(kr_array **a, int64_t nxr)
{
    kr_array *in = *a, *out = NULL;
    int64_t nxe = in->dims[0], ny = in->dims[1], nc = in->dims[2];
    KRI_TRY(kr_fft(NULL, in, in, 1u, KR_FFT_BACKWARD, KR_FFT_CENTERED | KR_FFT_UNITARY));
    int64_t d[3] = {nxr, ny, nc};
    KRI_TRY(kr_array_create(&out, KR_C64, 3, d, KR_HOST, NULL));
    const float *s = in->data;
    float *o = out->data;
    int64_t off = (nxe - nxr) / 2;
    for (int64_t r = 0; r < ny * nc; r++)
        memcpy(o + 2 * nxr * r, s + 2 * (nxe * r + off), sizeof(float) * 2 * (size_t)nxr);
    kr_status st = kr_fft(NULL, out, out, 1u, KR_FFT_FORWARD, KR_FFT_CENTERED | KR_FFT_UNITARY);
    if (st != KR_OK) {
        kr_array_destroy(out);
        return st;
    }
    kr_array_destroy(in);
    *a = out;
    return KR_OK;
}

typedef struct kri_hdr {
    int64_t enc[3], rec[3], e1min, e1max, e1c;
    double efov[3], rfov[3];
    int accel;
    char mode[32];
} kri_hdr;

static kr_status kri_parse_header(const char *path, const char *xml, kri_hdr *h)
{
    kri_span all = {xml, xml + strlen(xml)}, root, enc;
    if (!kri_xml_child(all, "ismrmrdHeader", &root))
        return kri_fail(KR_ERR_FORMAT, "'%s': the XML header has no <ismrmrdHeader>", path);
    int nenc = kri_count_tag(root, "encoding");
    if (nenc != 1)
        return kri_fail(nenc ? KR_ERR_NOT_SUPPORTED : KR_ERR_FORMAT,
                        "'%s' has %d encoding spaces; kray reads files with exactly one", path,
                        nenc);
    kri_xml_child(root, "encoding", &enc);
    static const char *ax[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; i++) {
        char p[96];
        double v;
        snprintf(p, sizeof p, "encodedSpace/matrixSize/%s", ax[i]);
        if (!kri_xml_number(enc, p, &v) || v < 1 || v > 65535 || v != floor(v))
            return kri_fail(KR_ERR_FORMAT, "'%s': header field encoding/%s is missing or invalid",
                            path, p);
        h->enc[i] = (int64_t)v;
        snprintf(p, sizeof p, "reconSpace/matrixSize/%s", ax[i]);
        if (!kri_xml_number(enc, p, &v) || v < 1 || v > 65535 || v != floor(v))
            return kri_fail(KR_ERR_FORMAT, "'%s': header field encoding/%s is missing or invalid",
                            path, p);
        h->rec[i] = (int64_t)v;
        snprintf(p, sizeof p, "encodedSpace/fieldOfView_mm/%s", ax[i]);
        h->efov[i] = kri_xml_number(enc, p, &v) ? v : 0;
        snprintf(p, sizeof p, "reconSpace/fieldOfView_mm/%s", ax[i]);
        h->rfov[i] = kri_xml_number(enc, p, &v) ? v : 0;
    }
    char traj[32] = "";
    if (!kri_xml_text(enc, "trajectory", traj, sizeof traj))
        return kri_fail(KR_ERR_FORMAT, "'%s': header field encoding/trajectory is missing", path);
    if (strcmp(traj, "cartesian") != 0)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "'%s' has a %s trajectory; kray recon reads Cartesian data", path, traj);
    if (h->enc[2] != 1)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "'%s' is 3-D encoded (%lld partitions); kray reads 2-D data", path,
                        (long long)h->enc[2]);
    if (h->rec[0] > h->enc[0])
        return kri_fail(KR_ERR_FORMAT, "'%s': recon matrix x %lld exceeds the encoded %lld", path,
                        (long long)h->rec[0], (long long)h->enc[0]);
    double v;
    h->e1min = 0;
    h->e1max = h->enc[1] - 1;
    h->e1c = h->enc[1] / 2;
    if (kri_xml_number(enc, "encodingLimits/kspace_encoding_step_1/minimum", &v))
        h->e1min = (int64_t)v;
    if (kri_xml_number(enc, "encodingLimits/kspace_encoding_step_1/maximum", &v))
        h->e1max = (int64_t)v;
    if (kri_xml_number(enc, "encodingLimits/kspace_encoding_step_1/center", &v))
        h->e1c = (int64_t)v;
    h->accel = 1;
    if (kri_xml_number(enc, "parallelImaging/accelerationFactor/kspace_encoding_step_1", &v)) {
        if (v < 1 || v > 1024 || v != floor(v))
            return kri_fail(KR_ERR_FORMAT, "'%s': acceleration factor %g is invalid", path, v);
        h->accel = (int)v;
    }
    h->mode[0] = '\0';
    kri_xml_text(enc, "parallelImaging/calibrationMode", h->mode, sizeof h->mode);
    return KR_OK;
}

kr_status kr_ismrmrd_read(const char *path, const kr_ismrmrd_read_opts *opts, kr_ismrmrd_data *out)
{
    KRI_ARG_NOT_NULL(out);
    memset(out, 0, sizeof *out);
    KRI_ARG_NOT_NULL(path);
    kr_ismrmrd_read_opts o;
    kr_ismrmrd_read_opts_default(&o);
    if (opts) o = *opts;
    if (o.repetition < 0 || o.slice < 0)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_ismrmrd_read: repetition %d / slice %d must be >= 0", o.repetition,
                        o.slice);
    const char *group = o.dataset ? o.dataset : "dataset";
    KRI_TRY(kri_ismrmrd_enter());
    ISMRMRD_Dataset d;
    kr_status st = kri_ismrmrd_open(&d, path, group, 0);
    if (st != KR_OK) {
        kri_ismrmrd_leave();
        return st;
    }
    char *xml = ismrmrd_read_header(&d);
    kri_hdr h;
    ISMRMRD_Acquisition acq;
    ismrmrd_init_acquisition(&acq);
    double *cnt = NULL, *ccnt = NULL, *csum = NULL;
    float *noise = NULL;
    int64_t nnoise = 0, noise_cap = 0;
    double noise_dwell = 0;
    if (!xml) {
        st = kri_fail(KR_ERR_FORMAT, "'%s' has no ISMRMRD XML header in group '%s'", path, group);
        goto done;
    }
    st = kri_parse_header(path, xml, &h);
    if (st != KR_OK) goto done;
    const int64_t nx = h.enc[0], ny = h.enc[1];
    int64_t nc = 0;
    uint32_t nacq = ismrmrd_get_number_of_acquisitions(&d);
    int maxrep = -1;
    for (uint32_t i = 0; i < nacq; i++) {
        if (ismrmrd_read_acquisition(&d, i, &acq) != ISMRMRD_NOERROR) {
            st = kri_fail(KR_ERR_FORMAT, "'%s': acquisition %u cannot be read%s%s", path, i,
                          kri_ismrmrd_msg[0] ? ": " : "", kri_ismrmrd_msg);
            goto done;
        }
        const ISMRMRD_AcquisitionHeader *ah = &acq.head;
        uint64_t f = ah->flags;
        if (kri_flag(f, ISMRMRD_ACQ_IS_NAVIGATION_DATA) ||
            kri_flag(f, ISMRMRD_ACQ_IS_PHASECORR_DATA) ||
            kri_flag(f, ISMRMRD_ACQ_IS_DUMMYSCAN_DATA) ||
            kri_flag(f, ISMRMRD_ACQ_IS_HPFEEDBACK_DATA) ||
            kri_flag(f, ISMRMRD_ACQ_IS_RTFEEDBACK_DATA))
            continue;
        int64_t ch = ah->active_channels, ns = ah->number_of_samples;
        if (ch < 1 || ns < 1) {
            st = kri_fail(KR_ERR_FORMAT, "'%s': acquisition %u has %lld samples of %lld channels",
                          path, i, (long long)ns, (long long)ch);
            goto done;
        }
        if (nc == 0) {
            nc = ch;
            int64_t d3[3] = {nx, ny, nc};
            st = kr_array_create(&out->kspace, KR_C64, 3, d3, KR_HOST, NULL);
            if (st == KR_OK) st = kr_array_create(&out->calib, KR_C64, 3, d3, KR_HOST, NULL);
            if (st == KR_OK)
                st = kri_alloc((void **)&cnt, sizeof(double) * (size_t)ny, "line counts");
            if (st == KR_OK)
                st = kri_alloc((void **)&ccnt, sizeof(double) * (size_t)ny, "line counts");
            if (st == KR_OK) st = kri_alloc((void **)&out->lines, (size_t)ny, "line flags");
            if (st == KR_OK)
                st = kri_alloc((void **)&csum, sizeof(double) * 2 * (size_t)(nx * ny * nc),
                               "calibration sum");
            if (st != KR_OK) goto done;
            memset(cnt, 0, sizeof(double) * (size_t)ny);
            memset(ccnt, 0, sizeof(double) * (size_t)ny);
            memset(out->lines, 0, (size_t)ny);
            memset(csum, 0, sizeof(double) * 2 * (size_t)(nx * ny * nc));
        } else if (ch != nc) {
            st =
                kri_fail(KR_ERR_FORMAT, "'%s': acquisition %u has %lld channels, earlier ones %lld",
                         path, i, (long long)ch, (long long)nc);
            goto done;
        }
        const float *ad = (const float *)acq.data;
        if (kri_flag(f, ISMRMRD_ACQ_IS_NOISE_MEASUREMENT)) {
            if (nnoise + ns > noise_cap) {
                int64_t cap = noise_cap ? 2 * noise_cap : 4096;
                while (cap < nnoise + ns) cap *= 2;
                float *nn = realloc(noise, sizeof(float) * 2 * (size_t)(cap * nc));
                if (!nn) {
                    st = kri_fail(KR_ERR_OOM_HOST, "out of host memory for noise samples");
                    goto done;
                }
                /* re-layout [cap_old, nc] -> [cap, nc] from the last coil */
                for (int64_t c = nc - 1; c >= 0 && noise_cap; c--)
                    memmove(nn + 2 * cap * c, nn + 2 * noise_cap * c,
                            sizeof(float) * 2 * (size_t)nnoise);
                noise = nn;
                noise_cap = cap;
            }
            for (int64_t c = 0; c < nc; c++)
                memcpy(noise + 2 * (noise_cap * c + nnoise), ad + 2 * ns * c,
                       sizeof(float) * 2 * (size_t)ns);
            nnoise += ns;
            noise_dwell = ah->sample_time_us;
            continue;
        }
        if (ah->idx.slice != o.slice) continue;
        int64_t j = (int64_t)ah->idx.kspace_encode_step_1 - h.e1c + ny / 2;
        if (j < 0 || j >= ny) {
            st = kri_fail(KR_ERR_FORMAT,
                          "'%s': acquisition %u has line %u, outside the %lld encoded lines", path,
                          i, ah->idx.kspace_encode_step_1, (long long)ny);
            goto done;
        }
        int64_t s0 = ah->discard_pre, s1 = ns - ah->discard_post;
        int64_t off = nx / 2 - (int64_t)ah->center_sample;
        if (s0 + off < 0 || s1 + off > nx || s1 <= s0) {
            st = kri_fail(KR_ERR_FORMAT,
                          "'%s': acquisition %u has %lld samples centred at %u, which do not fit "
                          "the %lld encoded readout samples",
                          path, i, (long long)ns, ah->center_sample, (long long)nx);
            goto done;
        }
        int rev = kri_flag(f, ISMRMRD_ACQ_IS_REVERSE);
        int rep = ah->idx.repetition;
        if (rep > maxrep) maxrep = rep;
        float *kd = out->kspace->data;
        for (int64_t c = 0; c < nc; c++)
            for (int64_t s = s0; s < s1; s++) {
                int64_t src = rev ? (ns - 1 - s) : s;
                double re = ad[2 * (src + ns * c)], im = ad[2 * (src + ns * c) + 1];
                int64_t q = (s + off) + nx * (j + ny * c);
                csum[2 * q] += re;
                csum[2 * q + 1] += im;
                if (rep == o.repetition) {
                    /* running mean of repeated lines (averages) */
                    double w = 1.0 / (cnt[j] + 1);
                    kd[2 * q] = (float)(kd[2 * q] * (1 - w) + re * w);
                    kd[2 * q + 1] = (float)(kd[2 * q + 1] * (1 - w) + im * w);
                }
            }
        ccnt[j] += 1;
        if (rep == o.repetition) {
            cnt[j] += 1;
            int cal = kri_flag(f, ISMRMRD_ACQ_IS_PARALLEL_CALIBRATION);
            int both = kri_flag(f, ISMRMRD_ACQ_IS_PARALLEL_CALIBRATION_AND_IMAGING);
            out->lines[j] |= (uint8_t)(cal    ? KR_LINE_CALIBRATION
                                       : both ? (KR_LINE_IMAGING | KR_LINE_CALIBRATION)
                                              : KR_LINE_IMAGING);
            out->acquisitions++;
            out->dwell_us = ah->sample_time_us;
        }
    }
    if (!out->kspace || out->acquisitions == 0) {
        st = kri_fail(KR_ERR_FORMAT, "'%s' has no imaging data for repetition %d, slice %d", path,
                      o.repetition, o.slice);
        goto done;
    }
    out->repetitions = maxrep + 1;
    if (out->repetitions > 1) {
        float *cv = out->calib->data;
        for (int64_t c = 0; c < nc; c++)
            for (int64_t jj = 0; jj < ny; jj++)
                for (int64_t x = 0; x < nx; x++) {
                    int64_t q = x + nx * (jj + ny * c);
                    cv[2 * q] = ccnt[jj] > 0 ? (float)(csum[2 * q] / ccnt[jj]) : 0.0f;
                    cv[2 * q + 1] = ccnt[jj] > 0 ? (float)(csum[2 * q + 1] / ccnt[jj]) : 0.0f;
                }
    } else {
        kr_array_destroy(out->calib);
        out->calib = NULL;
    }
    if (nnoise > 0) {
        int64_t dn[2] = {nnoise, nc};
        st = kr_array_create(&out->noise, KR_C64, 2, dn, KR_HOST, NULL);
        if (st != KR_OK) goto done;
        float *nv = out->noise->data;
        for (int64_t c = 0; c < nc; c++)
            memcpy(nv + 2 * nnoise * c, noise + 2 * noise_cap * c,
                   sizeof(float) * 2 * (size_t)nnoise);
        if (nnoise >= nc) {
            st = kr_noise_covariance(NULL, out->noise, 1, &out->psi);
            if (st != KR_OK) goto done;
            double scale =
                (noise_dwell > 0 && out->dwell_us > 0) ? noise_dwell / out->dwell_us : 1.0;
            double *pv = out->psi->data;
            for (int64_t e = 0; e < 2 * nc * nc; e++) pv[e] *= scale;
        }
    }
    if (o.remove_oversampling && h.rec[0] < nx) {
        st = kri_crop_readout(&out->kspace, h.rec[0]);
        if (st == KR_OK && out->calib) st = kri_crop_readout(&out->calib, h.rec[0]);
        if (st != KR_OK) goto done;
    }
    out->nx = out->kspace->dims[0];
    out->ny = ny;
    out->nc = nc;
    for (int i = 0; i < 3; i++) {
        out->enc_matrix[i] = h.enc[i];
        out->recon_matrix[i] = h.rec[i];
        out->enc_fov_mm[i] = h.efov[i];
        out->recon_fov_mm[i] = h.rfov[i];
    }
    out->e1_min = h.e1min;
    out->e1_max = h.e1max;
    out->e1_center = h.e1c;
    out->accel = h.accel;
    snprintf(out->calibration_mode, sizeof out->calibration_mode, "%s", h.mode);
done:
    free(xml);
    free(noise);
    kri_free(cnt);
    kri_free(ccnt);
    kri_free(csum);
    ismrmrd_cleanup_acquisition(&acq);
    ismrmrd_close_dataset(&d);
    kri_ismrmrd_leave();
    if (st != KR_OK) kr_ismrmrd_data_destroy(out);
    return st;
}

/* ---- images and arrays --------------------------------------------------------------------------
 */
static kr_status kri_to_array(const char *path, const char *var, int type, int ndim,
                              const int64_t *dims, const void *data, kr_array **out)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= dims[i];
    kr_dtype t = KR_F32;
    if (type == ISMRMRD_CXFLOAT || type == ISMRMRD_CXDOUBLE) t = KR_C64;
    if (type == ISMRMRD_DOUBLE) t = KR_F64;
    KRI_TRY(kr_array_create(out, t, ndim, dims, KR_HOST, NULL));
    void *o = (*out)->data;
    switch (type) {
    case ISMRMRD_USHORT:
        for (int64_t i = 0; i < n; i++) ((float *)o)[i] = ((const uint16_t *)data)[i];
        break;
    case ISMRMRD_SHORT:
        for (int64_t i = 0; i < n; i++) ((float *)o)[i] = ((const int16_t *)data)[i];
        break;
    case ISMRMRD_UINT:
        for (int64_t i = 0; i < n; i++) ((float *)o)[i] = (float)((const uint32_t *)data)[i];
        break;
    case ISMRMRD_INT:
        for (int64_t i = 0; i < n; i++) ((float *)o)[i] = (float)((const int32_t *)data)[i];
        break;
    case ISMRMRD_FLOAT:
    case ISMRMRD_CXFLOAT:
    case ISMRMRD_DOUBLE: memcpy(o, data, kr_array_bytes(*out)); break;
    case ISMRMRD_CXDOUBLE:
        for (int64_t i = 0; i < 2 * n; i++) ((float *)o)[i] = (float)((const double *)data)[i];
        break;
    default:
        kr_array_destroy(*out);
        *out = NULL;
        return kri_fail(KR_ERR_FORMAT, "'%s': variable '%s' has unknown data type %d", path, var,
                        type);
    }
    return KR_OK;
}

/* Item `index` of the stored images / NDArrays `var` of an open dataset into *out. */
static kr_status kri_image_item(ISMRMRD_Dataset *d, const char *path, const char *var,
                                uint32_t index, kr_array **out)
{
    ISMRMRD_Image im;
    ismrmrd_init_image(&im);
    kr_status st;
    if (ismrmrd_read_image(d, var, index, &im) != ISMRMRD_NOERROR) {
        st = kri_fail(KR_ERR_FORMAT, "'%s': image '%s' %u cannot be read: %s", path, var, index,
                      kri_ismrmrd_error());
    } else {
        int64_t dims[4] = {im.head.matrix_size[0], im.head.matrix_size[1], im.head.matrix_size[2],
                           im.head.channels};
        int nd = 4;
        while (nd > 1 && dims[nd - 1] == 1) nd--;
        st = kri_to_array(path, var, im.head.data_type, nd, dims, im.data, out);
    }
    ismrmrd_cleanup_image(&im);
    return st;
}

static kr_status kri_array_item(ISMRMRD_Dataset *d, const char *path, const char *var,
                                uint32_t index, kr_array **out)
{
    ISMRMRD_NDArray arr;
    ismrmrd_init_ndarray(&arr);
    kr_status st;
    if (ismrmrd_read_array(d, var, index, &arr) != ISMRMRD_NOERROR) {
        st = kri_fail(KR_ERR_FORMAT, "'%s': array '%s' %u cannot be read: %s", path, var, index,
                      kri_ismrmrd_error());
    } else if (arr.ndim < 1 || arr.ndim > ISMRMRD_NDARRAY_MAXDIM) {
        st = kri_fail(KR_ERR_FORMAT, "'%s': array '%s' has %d dimensions", path, var,
                      (int)arr.ndim);
    } else {
        int64_t dims[ISMRMRD_NDARRAY_MAXDIM];
        int nd = (int)arr.ndim;
        for (int i = 0; i < nd; i++) dims[i] = (int64_t)arr.dims[i];
        st = kri_to_array(path, var, arr.data_type, nd, dims, arr.data, out);
    }
    ismrmrd_cleanup_ndarray(&arr);
    return st;
}

/* The stored images or NDArrays of a file: their name in sentences, count and item reader. */
typedef struct kri_stored {
    const char *fn, *plural;
    uint32_t (*count)(const ISMRMRD_Dataset *d, const char *var);
    kr_status (*item)(ISMRMRD_Dataset *d, const char *path, const char *var, uint32_t index,
                      kr_array **out);
} kri_stored;

static const kri_stored kri_images = {"kr_ismrmrd_read_image", "images",
                                      ismrmrd_get_number_of_images, kri_image_item};
static const kri_stored kri_arrays = {"kr_ismrmrd_read_array", "arrays",
                                      ismrmrd_get_number_of_arrays, kri_array_item};

/* Open the file, check the index against the count and read the item (path, var, out checked). */
static kr_status kri_read_stored(const kri_stored *k, const char *path, const char *dataset,
                                 const char *var, int index, kr_array **out)
{
    if (index < 0) return kri_fail(KR_ERR_INVALID_ARG, "%s: index %d < 0", k->fn, index);
    KRI_TRY(kri_ismrmrd_enter());
    ISMRMRD_Dataset d;
    kr_status st = kri_ismrmrd_open(&d, path, dataset ? dataset : "dataset", 0);
    if (st != KR_OK) {
        kri_ismrmrd_leave();
        return st;
    }
    uint32_t n = k->count(&d, var);
    if ((uint32_t)index >= n)
        st = kri_fail(KR_ERR_FORMAT, "'%s' has %u %s '%s'; index %d requested", path, n, k->plural,
                      var, index);
    else
        st = k->item(&d, path, var, (uint32_t)index, out);
    ismrmrd_close_dataset(&d);
    kri_ismrmrd_leave();
    return st;
}

kr_status kr_ismrmrd_read_image(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(path);
    KRI_ARG_NOT_NULL(var);
    return kri_read_stored(&kri_images, path, dataset, var, index, out);
}

kr_status kr_ismrmrd_read_array(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(path);
    KRI_ARG_NOT_NULL(var);
    return kri_read_stored(&kri_arrays, path, dataset, var, index, out);
}

#endif /* KRAY_HAVE_ISMRMRD */
