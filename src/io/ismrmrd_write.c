/* ISMRMRD: writing simulated 2-D Cartesian data (acquisitions, noise scans, the XML header);
 * reading is in ismrmrd.c. */
#include "internal.h"
#include "iofile.h"
#include "ismrmrd_internal.h"
#include "kray/ismrmrd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kr_ismrmrd_write_opts_default(kr_ismrmrd_write_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->fov_mm[0] = o->fov_mm[1] = 256;
    o->fov_mm[2] = 5;
    o->accel = 1;
    o->dwell_us = 5;
    o->h1_hz = 63.87e6;
}

#ifndef KRAY_HAVE_ISMRMRD

kr_status kr_ismrmrd_write(const char *path, const kr_ismrmrd_write_opts *opts,
                           const kr_array *kspace, const uint8_t *lines, const kr_array *noise)
{
    (void)path, (void)opts, (void)kspace, (void)lines, (void)noise;
    return KRI_NO_ISMRMRD;
}

#else /* KRAY_HAVE_ISMRMRD */

#include <unistd.h>

/* Create (truncate) `path` with group `group`; KR_ERR_IO with a sentence on failure (nothing
 * to close then). Call between kri_ismrmrd_enter and leave. */
static kr_status kri_ismrmrd_create(ISMRMRD_Dataset *d, const char *path, const char *group)
{
    memset(d, 0, sizeof *d);
    if (ismrmrd_init_dataset(d, path, group) != ISMRMRD_NOERROR ||
        ismrmrd_open_dataset(d, true) != ISMRMRD_NOERROR) {
        /* not opened: release what ismrmrd_init_dataset allocated */
        free(d->filename);
        free(d->groupname);
        d->filename = d->groupname = NULL;
        const char *why = kri_ismrmrd_error();
        return kri_fail(KR_ERR_IO, "cannot create '%s'%s%s", path, why[0] ? ": " : "", why);
    }
    return KR_OK;
}

/* ---- writing ------------------------------------------------------------------------------------
 */
static char *kri_header_xml(const kr_ismrmrd_write_opts *o, int64_t nx, int64_t ny, int64_t nc)
{
    size_t len = 4096;
    char *x = malloc(len);
    if (!x) return NULL;
    char par[512] = "";
    if (o->accel > 1)
        snprintf(par, sizeof par,
                 "    <parallelImaging>\n      <accelerationFactor>\n"
                 "        <kspace_encoding_step_1>%d</kspace_encoding_step_1>\n"
                 "        <kspace_encoding_step_2>1</kspace_encoding_step_2>\n"
                 "      </accelerationFactor>\n      <calibrationMode>embedded</calibrationMode>\n"
                 "    </parallelImaging>\n",
                 o->accel);
    char space[2][512];
    for (int i = 0; i < 2; i++)
        snprintf(space[i], sizeof space[i],
                 "    <%s>\n      <matrixSize><x>%lld</x><y>%lld</y><z>1</z></matrixSize>\n"
                 "      <fieldOfView_mm><x>%.6f</x><y>%.6f</y><z>%.6f</z></fieldOfView_mm>\n"
                 "    </%s>\n",
                 i ? "reconSpace" : "encodedSpace", (long long)nx, (long long)ny, o->fov_mm[0],
                 o->fov_mm[1], o->fov_mm[2], i ? "reconSpace" : "encodedSpace");
    snprintf(x, len,
             "<?xml version=\"1.0\"?>\n"
             "<ismrmrdHeader xmlns=\"http://www.ismrm.org/ISMRMRD\" "
             "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
             "xmlns:xs=\"http://www.w3.org/2001/XMLSchema\" "
             "xsi:schemaLocation=\"http://www.ismrm.org/ISMRMRD ismrmrd.xsd\">\n"
             "  <version>1</version>\n"
             "  <acquisitionSystemInformation>\n"
             "    <systemVendor>kray</systemVendor>\n"
             "    <systemModel>simulation</systemModel>\n"
             "    <receiverChannels>%lld</receiverChannels>\n"
             "  </acquisitionSystemInformation>\n"
             "  <experimentalConditions>\n"
             "    <H1resonanceFrequency_Hz>%.0f</H1resonanceFrequency_Hz>\n"
             "  </experimentalConditions>\n"
             "  <encoding>\n%s%s"
             "    <encodingLimits>\n"
             "      <kspace_encoding_step_1><minimum>0</minimum><maximum>%lld</maximum>"
             "<center>%lld</center></kspace_encoding_step_1>\n"
             "    </encodingLimits>\n"
             "    <trajectory>cartesian</trajectory>\n%s"
             "  </encoding>\n"
             "</ismrmrdHeader>\n",
             (long long)nc, o->h1_hz, space[0], space[1], (long long)(ny - 1), (long long)(ny / 2),
             par);
    return x;
}

static void kri_acq_defaults(ISMRMRD_Acquisition *a, int64_t ns, int64_t nc, double dwell)
{
    a->head.number_of_samples = (uint16_t)ns;
    a->head.active_channels = (uint16_t)nc;
    a->head.available_channels = (uint16_t)nc;
    for (int64_t c = 0; c < nc; c++) ismrmrd_set_channel_on(a->head.channel_mask, (uint16_t)c);
    a->head.sample_time_us = (float)dwell;
    a->head.read_dir[0] = 1;
    a->head.phase_dir[1] = 1;
    a->head.slice_dir[2] = 1;
}

kr_status kr_ismrmrd_write(const char *path, const kr_ismrmrd_write_opts *opts,
                           const kr_array *kspace, const uint8_t *lines, const kr_array *noise)
{
    const char *fn = "kr_ismrmrd_write";
    KRI_ARG_NOT_NULL(path);
    KRI_TRY(kri_check_operand(fn, "kspace", kspace, KR_C64, KR_HOST));
    if (kr_array_rank(kspace) > 3)
        return kri_fail(KR_ERR_DIM, "%s: kspace must be [nx, ny, coils]", fn);
    kr_ismrmrd_write_opts o;
    kr_ismrmrd_write_opts_default(&o);
    if (opts) o = *opts;
    int64_t nx = kspace->dims[0], ny = kspace->ndim > 1 ? kspace->dims[1] : 1,
            nc = kspace->ndim > 2 ? kspace->dims[2] : 1;
    if (nx > 65535 || ny > 65535 || nc > 1024)
        return kri_fail(KR_ERR_DIM, "%s: %lldx%lld samples of %lld coils exceed ISMRMRD's limits",
                        fn, (long long)nx, (long long)ny, (long long)nc);
    if (!(o.dwell_us > 0) || o.accel < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: dwell time %g us / acceleration %d invalid", fn,
                        o.dwell_us, o.accel);
    if (noise) {
        KRI_TRY(kri_check_operand(fn, "noise", noise, KR_C64, KR_HOST));
        if (kr_array_rank(noise) > 2 || (noise->ndim > 1 ? noise->dims[1] : 1) != nc)
            return kri_fail(KR_ERR_DIM, "%s: noise must be [samples, %lld coils]", fn,
                            (long long)nc);
    }
    char tmp[4096];
    int w = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (w < 0 || (size_t)w >= sizeof tmp)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: path too long", fn);
    KRI_TRY(kri_ismrmrd_enter());
    char *xml = kri_header_xml(&o, nx, ny, nc);
    if (!xml) {
        kri_ismrmrd_leave();
        return kri_fail(KR_ERR_OOM_HOST, "out of host memory for the ISMRMRD header");
    }
    remove(tmp);
    const int slot = kri_tmp_register(tmp); /* removed if a signal ends the process */
    ISMRMRD_Dataset d;
    kr_status st = kri_ismrmrd_create(&d, tmp, o.dataset ? o.dataset : "dataset");
    if (st != KR_OK) {
        remove(tmp);
        kri_tmp_unregister(slot);
        kri_ismrmrd_leave();
        free(xml);
        return st;
    }
    ISMRMRD_Acquisition acq;
    ismrmrd_init_acquisition(&acq);
    if (ismrmrd_write_header(&d, xml) != ISMRMRD_NOERROR) {
        st = kri_fail(KR_ERR_IO, "%s: writing the header of '%s' failed: %s", fn, path,
                      kri_ismrmrd_error());
        goto done;
    }
    uint32_t counter = 0;
    if (noise) {
        int64_t ns = noise->dims[0];
        const float *nv = noise->data;
        for (int64_t s0 = 0; s0 < ns; s0 += nx) {
            int64_t len = ns - s0 < nx ? ns - s0 : nx;
            ismrmrd_init_acquisition(&acq);
            kri_acq_defaults(&acq, len, nc, o.dwell_us);
            ismrmrd_set_flag(&acq.head.flags, ISMRMRD_ACQ_IS_NOISE_MEASUREMENT);
            acq.head.scan_counter = counter++;
            ismrmrd_make_consistent_acquisition(&acq);
            float *ad = (float *)acq.data;
            for (int64_t c = 0; c < nc; c++)
                memcpy(ad + 2 * len * c, nv + 2 * (s0 + ns * c), sizeof(float) * 2 * (size_t)len);
            if (ismrmrd_append_acquisition(&d, &acq) != ISMRMRD_NOERROR) {
                st = kri_fail(KR_ERR_IO, "%s: writing '%s' failed: %s", fn, path,
                              kri_ismrmrd_error());
                goto done;
            }
            ismrmrd_cleanup_acquisition(&acq);
            ismrmrd_init_acquisition(&acq);
        }
    }
    int64_t first = -1, last = -1;
    for (int64_t j = 0; j < ny; j++)
        if (!lines || lines[j]) {
            if (first < 0) first = j;
            last = j;
        }
    const float *kd = kspace->data;
    for (int64_t j = 0; j < ny; j++) {
        if (lines && !lines[j]) continue;
        ismrmrd_init_acquisition(&acq);
        kri_acq_defaults(&acq, nx, nc, o.dwell_us);
        acq.head.center_sample = (uint16_t)(nx / 2);
        acq.head.idx.kspace_encode_step_1 = (uint16_t)j;
        acq.head.scan_counter = counter++;
        uint8_t f = lines ? lines[j] : KR_LINE_IMAGING;
        if ((f & KR_LINE_CALIBRATION) && !(f & KR_LINE_IMAGING))
            ismrmrd_set_flag(&acq.head.flags, ISMRMRD_ACQ_IS_PARALLEL_CALIBRATION);
        else if (f & KR_LINE_CALIBRATION)
            ismrmrd_set_flag(&acq.head.flags, ISMRMRD_ACQ_IS_PARALLEL_CALIBRATION_AND_IMAGING);
        if (j == first) ismrmrd_set_flag(&acq.head.flags, ISMRMRD_ACQ_FIRST_IN_SLICE);
        if (j == last) ismrmrd_set_flag(&acq.head.flags, ISMRMRD_ACQ_LAST_IN_SLICE);
        ismrmrd_make_consistent_acquisition(&acq);
        float *ad = (float *)acq.data;
        for (int64_t c = 0; c < nc; c++)
            memcpy(ad + 2 * nx * c, kd + 2 * nx * (j + ny * c), sizeof(float) * 2 * (size_t)nx);
        if (ismrmrd_append_acquisition(&d, &acq) != ISMRMRD_NOERROR) {
            st = kri_fail(KR_ERR_IO, "%s: writing '%s' failed: %s", fn, path, kri_ismrmrd_error());
            goto done;
        }
        ismrmrd_cleanup_acquisition(&acq);
        ismrmrd_init_acquisition(&acq);
    }
done:
    ismrmrd_cleanup_acquisition(&acq);
    ismrmrd_close_dataset(&d);
    free(xml);
    if (st == KR_OK && rename(tmp, path) != 0)
        st = kri_fail(KR_ERR_IO, "%s: cannot rename '%s' to '%s'", fn, tmp, path);
    if (st != KR_OK) remove(tmp);
    kri_tmp_unregister(slot);
    kri_ismrmrd_leave();
    return st;
}

#endif /* KRAY_HAVE_ISMRMRD */
