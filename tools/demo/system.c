/* kray demo section "system": version, build features, backend and why, threads. */
#include "demo.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static kr_status kc_run_system(kc_demo *d)
{
    char backend[64], why[512];
    const char *name = kr_backend_name((kr_backend)d->common->backend);
    int ndev = 0;
    kr_status sdev = kr_cuda_device_count(&ndev);
    if (sdev == KR_OK) {
        char dev[256];
        if (kr_cuda_device_name(kr_ctx_device(d->ctx), dev, sizeof dev) != KR_OK)
            snprintf(dev, sizeof dev, "device %d", kr_ctx_device(d->ctx));
        snprintf(why, sizeof why, "%d CUDA device%s; device %d: %s", ndev, ndev == 1 ? "" : "s",
                 kr_ctx_device(d->ctx), dev);
    } else {
        snprintf(why, sizeof why, "%s", kr_last_error());
        kr_clear_error();
    }
    snprintf(backend, sizeof backend, "%s", kr_backend_name(kr_ctx_backend(d->ctx)));

    struct utsname u;
    char os[400] = "unknown";
    if (uname(&u) == 0)
        snprintf(os, sizeof os, "%.64s %.64s %.64s", u.sysname, u.release, u.machine);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *omp = getenv("OMP_NUM_THREADS");
    char when[64] = "";
    time_t now = time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tmv);

    const char *hdr[] = {"item", "value"};
    kc_report_table_begin(d->report, 2, hdr);
    kc_report_table_rowf(d->report, "kray version\t%s", kr_version());
    kc_report_table_rowf(d->report, "build features\t%s", kr_build_features());
    kc_report_table_rowf(d->report, "backend requested\t%s", name);
    kc_report_table_rowf(d->report, "backend used\t%s", backend);
    kc_report_table_rowf(d->report, "GPU\t%s", why);
    kc_report_table_rowf(d->report, "CPU threads\t%d (OMP_NUM_THREADS %s; %ld cores online)",
                         kr_ctx_threads(d->cpu), omp ? omp : "unset", cores);
    kc_report_table_rowf(d->report, "precision\t%s", kr_dtype_name(d->real));
    kc_report_table_rowf(d->report, "system\t%s", os);
    kc_report_table_rowf(d->report, "date\t%s", when);
    kc_report_table_rowf(d->report, "mode\t%s", d->quick ? "quick (small sizes)" : "full");
    kc_report_table_end(d->report);
    if (!d->gpu)
        kc_report_para(d->report,
                       "The GPU parts below are skipped: %s. Everything else runs on the CPU with "
                       "OpenMP.",
                       why);

    kc_demo_say(d, "kray %s (%s)", kr_version(), kr_build_features());
    kc_demo_say(d, "backend %s: %s; %d CPU thread%s", backend, why, kr_ctx_threads(d->cpu),
                kr_ctx_threads(d->cpu) == 1 ? "" : "s");
    return KR_OK;
}

const kc_demo_section kc_demo_system = {"system", "System and backend", kc_run_system};
