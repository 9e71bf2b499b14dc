/* ISMRMRD raw data (HDF5), reading 2-D Cartesian acquisitions: XML header fields, line
 * placement, calibration and noise scans. The file is read through kray's bounded HDF5 access
 * (ismrmrd_h5.c), not libismrmrd's readers; stored images and NDArrays are in
 * ismrmrd_stored.c, writing (through libismrmrd) in ismrmrd_write.c. Without libismrmrd every
 * function returns KR_ERR_NOT_SUPPORTED. libismrmrd/HDF5 calls are serialised by one lock (the
 * serial HDF5 build is not thread-safe); libismrmrd's error messages go to the caller's detail
 * sentence. */
#include "internal.h"
#include "iofile.h"
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
    H5Eclear2(H5E_DEFAULT);
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

/* ---- acquisitions ------------------------------------------------------------------------------
 * The fields kray uses of an acquisition header, read through HDF5 by name from the "head"
 * member (the variable-length "traj" and "data" members are left to kri_h5_raw). */
typedef struct kri_acq {
    uint64_t flags;
    uint16_t ns, ch, pre, post, center;
    float dwell;
    struct kri_acq_idx {
        uint16_t e1, slice, rep;
    } idx;
} kri_acq;

static hid_t kri_acq_type(void)
{
    hid_t idx = H5Tcreate(H5T_COMPOUND, sizeof(struct kri_acq_idx));
    H5Tinsert(idx, "kspace_encode_step_1", HOFFSET(struct kri_acq_idx, e1), H5T_NATIVE_UINT16);
    H5Tinsert(idx, "slice", HOFFSET(struct kri_acq_idx, slice), H5T_NATIVE_UINT16);
    H5Tinsert(idx, "repetition", HOFFSET(struct kri_acq_idx, rep), H5T_NATIVE_UINT16);
    hid_t head = H5Tcreate(H5T_COMPOUND, sizeof(kri_acq));
    H5Tinsert(head, "flags", HOFFSET(kri_acq, flags), H5T_NATIVE_UINT64);
    H5Tinsert(head, "number_of_samples", HOFFSET(kri_acq, ns), H5T_NATIVE_UINT16);
    H5Tinsert(head, "active_channels", HOFFSET(kri_acq, ch), H5T_NATIVE_UINT16);
    H5Tinsert(head, "discard_pre", HOFFSET(kri_acq, pre), H5T_NATIVE_UINT16);
    H5Tinsert(head, "discard_post", HOFFSET(kri_acq, post), H5T_NATIVE_UINT16);
    H5Tinsert(head, "center_sample", HOFFSET(kri_acq, center), H5T_NATIVE_UINT16);
    H5Tinsert(head, "sample_time_us", HOFFSET(kri_acq, dwell), H5T_NATIVE_FLOAT);
    H5Tinsert(head, "idx", HOFFSET(kri_acq, idx), idx);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(kri_acq));
    H5Tinsert(t, "head", 0, head);
    H5Tclose(idx);
    H5Tclose(head);
    return t;
}

/* The stored offset of the acquisitions' "data" field (a variable-length sequence of IEEE
 * 32-bit floats, either byte order) and whether to swap; KR_ERR_FORMAT when the dataset is not
 * ISMRMRD's. */
static kr_status kri_acq_data_field(kri_h5 *h, const kri_h5_dset *d, size_t *off, int *swap)
{
    kr_status st = KR_OK;
    int k = H5Tget_member_index(d->type, "data"); /* < 0 also when not a compound */
    hid_t m = H5Tget_member_type(d->type, (unsigned)k);
    hid_t b = H5Tget_class(m) == H5T_VLEN ? H5Tget_super(m) : H5I_INVALID_HID;
    int le = H5Tequal(b, H5T_IEEE_F32LE) > 0, be = H5Tequal(b, H5T_IEEE_F32BE) > 0;
    if (d->rank != 1 || k < 0 || !(le || be) ||
        H5Tget_member_offset(d->type, (unsigned)k) + 16 > d->elem)
        st = kri_fail(KR_ERR_FORMAT,
                      "'%s': dataset '%s' is not a list of ISMRMRD acquisitions (a \"data\" "
                      "field of 32-bit floats)",
                      h->path, d->name);
    else {
        *off = H5Tget_member_offset(d->type, (unsigned)k);
        *swap = be == kri_host_little_endian();
    }
    H5Tclose(b);
    H5Tclose(m);
    H5Eclear2(H5E_DEFAULT);
    return st;
}

static int kri_acq_skipped(uint64_t f)
{
    return kri_flag(f, ISMRMRD_ACQ_IS_NAVIGATION_DATA) ||
           kri_flag(f, ISMRMRD_ACQ_IS_PHASECORR_DATA) ||
           kri_flag(f, ISMRMRD_ACQ_IS_DUMMYSCAN_DATA) ||
           kri_flag(f, ISMRMRD_ACQ_IS_HPFEEDBACK_DATA) ||
           kri_flag(f, ISMRMRD_ACQ_IS_RTFEEDBACK_DATA);
}

/* The acquisitions of an ISMRMRD file, checked before anything of their size is allocated. */
typedef struct kri_acqs {
    uint64_t n;         /* acquisitions */
    kri_acq *head;      /* [n] */
    kri_h5_vlen *data;  /* [n] the stored "data" descriptors (len 0 for skipped ones) */
    int64_t nc;         /* channels */
    uint64_t samples;   /* samples x channels of the imaging acquisitions */
    uint64_t maxlen;    /* floats of the longest one */
    int swap;           /* big-endian floats */
} kri_acqs;

static kr_status kri_acqs_scan(kri_h5 *h, const char *name, kri_acqs *a)
{
    memset(a, 0, sizeof *a);
    kr_status st;
    if (!kri_h5_exists(h, name, &st)) return st;
    kri_h5_dset d;
    size_t off = 0;
    st = kri_h5_dset_open(h, name, &d);
    if (st == KR_OK) st = kri_acq_data_field(h, &d, &off, &a->swap);
    if (st == KR_OK) {
        a->n = d.dims[0];
        a->head = calloc(a->n ? a->n : 1, sizeof *a->head);
        a->data = calloc(a->n ? a->n : 1, sizeof *a->data);
        if (!a->head || !a->data)
            st = kri_fail(KR_ERR_OOM_HOST, "'%s': out of host memory for %llu acquisitions",
                          h->path, (unsigned long long)a->n);
    }
    hid_t mt = st == KR_OK ? kri_acq_type() : H5I_INVALID_HID;
    if (st == KR_OK) st = kri_h5_read_rows(h, &d, 0, a->n, mt, a->head);
    if (mt >= 0) H5Tclose(mt);
    uint64_t total = 0;
    for (uint64_t i = 0; st == KR_OK && i < a->n; i++) {
        const kri_acq *q = &a->head[i];
        if (kri_acq_skipped(q->flags)) continue;
        if (q->ch < 1 || q->ns < 1) {
            st = kri_fail(KR_ERR_FORMAT, "'%s': acquisition %llu has %u samples of %u channels",
                          h->path, (unsigned long long)i, q->ns, q->ch);
            break;
        }
        if (a->nc == 0) a->nc = q->ch;
        if (q->ch != a->nc) {
            st = kri_fail(KR_ERR_FORMAT,
                          "'%s': acquisition %llu has %u channels, earlier ones %lld", h->path,
                          (unsigned long long)i, q->ch, (long long)a->nc);
            break;
        }
        const uint8_t *raw;
        st = kri_h5_raw(h, &d, d.elem, i, &raw);
        if (st != KR_OK) break;
        kri_h5_vlen v = kri_h5_vlen_at(raw + off);
        uint64_t want = 2ull * q->ns * q->ch;
        if (v.len != want) {
            st = kri_fail(KR_ERR_FORMAT,
                          "'%s': acquisition %llu holds %u values; its header says %u samples of "
                          "%u channels (%llu values)",
                          h->path, (unsigned long long)i, v.len, q->ns, q->ch,
                          (unsigned long long)want);
            break;
        }
        total += 4 * want;
        if (total > h->size) {
            st = kri_fail(KR_ERR_FORMAT,
                          "'%s': the acquisitions up to %llu claim %llu bytes of samples, more "
                          "than the file's %llu bytes",
                          h->path, (unsigned long long)i, (unsigned long long)total,
                          (unsigned long long)h->size);
            break;
        }
        a->data[i] = v;
        if (want > a->maxlen) a->maxlen = want;
        if (!kri_flag(q->flags, ISMRMRD_ACQ_IS_NOISE_MEASUREMENT))
            a->samples += (uint64_t)q->ns * q->ch;
    }
    kri_h5_dset_close(&d);
    return st;
}

static void kri_acqs_free(kri_acqs *a)
{
    free(a->head);
    free(a->data);
    memset(a, 0, sizeof *a);
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
    char name[1100];
    if (strlen(group) > 1000)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_ismrmrd_read: the group name is too long");
    KRI_TRY(kri_ismrmrd_enter());
    kri_h5 h;
    kri_acqs A = {0};
    char *xml = NULL;
    double *cnt = NULL, *ccnt = NULL, *csum = NULL;
    float *noise = NULL, *ad = NULL;
    int64_t nnoise = 0, noise_cap = 0;
    double noise_dwell = 0;
    kri_hdr hdr;
    kr_status st = kri_h5_open(&h, path);
    if (st != KR_OK) goto done;
    if (!kri_h5_exists(&h, group, &st)) {
        if (st == KR_OK)
            st = kri_fail(KR_ERR_FORMAT, "'%s' has no ISMRMRD group '%s'", path, group);
        goto done;
    }
    snprintf(name, sizeof name, "%s/xml", group);
    if (!kri_h5_exists(&h, name, &st)) {
        if (st == KR_OK)
            st = kri_fail(KR_ERR_FORMAT, "'%s' has no ISMRMRD XML header in group '%s'", path,
                          group);
        goto done;
    }
    st = kri_h5_read_string(&h, name, &xml);
    if (st == KR_OK) st = kri_parse_header(path, xml, &hdr);
    snprintf(name, sizeof name, "%s/data", group);
    if (st == KR_OK) st = kri_acqs_scan(&h, name, &A);
    if (st != KR_OK) goto done;
    const int64_t nx = hdr.enc[0], ny = hdr.enc[1], nc = A.nc;
    if (A.samples == 0) {
        st = kri_fail(KR_ERR_FORMAT, "'%s' has no imaging data", path);
        goto done;
    }
    /* the k-space grid is filled from the file's samples: at least 1/64 of it */
    if ((uint64_t)(nx * ny) * (uint64_t)nc > 64 * A.samples) {
        st = kri_fail(KR_ERR_FORMAT,
                      "'%s': the encoded matrix %lld x %lld of %lld channels is more than 64 "
                      "times the %llu samples the file holds",
                      path, (long long)nx, (long long)ny, (long long)nc,
                      (unsigned long long)A.samples);
        goto done;
    }
    {
        int64_t d3[3] = {nx, ny, nc};
        st = kr_array_create(&out->kspace, KR_C64, 3, d3, KR_HOST, NULL);
        if (st == KR_OK) st = kr_array_create(&out->calib, KR_C64, 3, d3, KR_HOST, NULL);
        if (st == KR_OK) st = kri_alloc((void **)&cnt, sizeof(double) * (size_t)ny, "line counts");
        if (st == KR_OK) st = kri_alloc((void **)&ccnt, sizeof(double) * (size_t)ny, "line counts");
        if (st == KR_OK) st = kri_alloc((void **)&out->lines, (size_t)ny, "line flags");
        if (st == KR_OK)
            st = kri_alloc((void **)&csum, sizeof(double) * 2 * (size_t)(nx * ny * nc),
                           "calibration sum");
        if (st == KR_OK) st = kri_alloc((void **)&ad, sizeof(float) * A.maxlen, "samples");
        if (st != KR_OK) goto done;
        memset(cnt, 0, sizeof(double) * (size_t)ny);
        memset(ccnt, 0, sizeof(double) * (size_t)ny);
        memset(out->lines, 0, (size_t)ny);
        memset(csum, 0, sizeof(double) * 2 * (size_t)(nx * ny * nc));
    }
    int maxrep = -1;
    for (uint64_t i = 0; i < A.n; i++) {
        const kri_acq *ah = &A.head[i];
        uint64_t f = ah->flags;
        if (kri_acq_skipped(f)) continue;
        int noisy = kri_flag(f, ISMRMRD_ACQ_IS_NOISE_MEASUREMENT);
        if (!noisy && ah->idx.slice != o.slice) continue;
        const int64_t ns = ah->ns;
        char what[64];
        snprintf(what, sizeof what, "acquisition %llu", (unsigned long long)i);
        st = kri_h5_heap_read(&h, A.data[i], 4ull * A.data[i].len, ad, what);
        if (st != KR_OK) goto done;
        if (A.swap) kri_byteswap(ad, A.data[i].len, 4);
        if (noisy) {
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
            noise_dwell = ah->dwell;
            continue;
        }
        int64_t j = (int64_t)ah->idx.e1 - hdr.e1c + ny / 2;
        if (j < 0 || j >= ny) {
            st = kri_fail(KR_ERR_FORMAT,
                          "'%s': acquisition %llu has line %u, outside the %lld encoded lines",
                          path, (unsigned long long)i, ah->idx.e1, (long long)ny);
            goto done;
        }
        int64_t s0 = ah->pre, s1 = ns - ah->post;
        int64_t off = nx / 2 - (int64_t)ah->center;
        if (s0 + off < 0 || s1 + off > nx || s1 <= s0) {
            st = kri_fail(KR_ERR_FORMAT,
                          "'%s': acquisition %llu has %lld samples centred at %u, which do not "
                          "fit the %lld encoded readout samples",
                          path, (unsigned long long)i, (long long)ns, ah->center, (long long)nx);
            goto done;
        }
        int rev = kri_flag(f, ISMRMRD_ACQ_IS_REVERSE);
        int rep = ah->idx.rep;
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
            out->dwell_us = ah->dwell;
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
    if (o.remove_oversampling && hdr.rec[0] < nx) {
        st = kri_crop_readout(&out->kspace, hdr.rec[0]);
        if (st == KR_OK && out->calib) st = kri_crop_readout(&out->calib, hdr.rec[0]);
        if (st != KR_OK) goto done;
    }
    out->nx = out->kspace->dims[0];
    out->ny = ny;
    out->nc = nc;
    for (int i = 0; i < 3; i++) {
        out->enc_matrix[i] = hdr.enc[i];
        out->recon_matrix[i] = hdr.rec[i];
        out->enc_fov_mm[i] = hdr.efov[i];
        out->recon_fov_mm[i] = hdr.rfov[i];
    }
    out->e1_min = hdr.e1min;
    out->e1_max = hdr.e1max;
    out->e1_center = hdr.e1c;
    out->accel = hdr.accel;
    snprintf(out->calibration_mode, sizeof out->calibration_mode, "%s", hdr.mode);
done:
    free(xml);
    free(noise);
    kri_free(ad);
    kri_free(cnt);
    kri_free(ccnt);
    kri_free(csum);
    kri_acqs_free(&A);
    kri_h5_close(&h);
    kri_ismrmrd_leave();
    if (st != KR_OK) kr_ismrmrd_data_destroy(out);
    return st;
}

#endif /* KRAY_HAVE_ISMRMRD */
