/* The temporary files of the atomic writers (kri_wfile and the writers that rename a finished
 * "<name>.tmp.<pid>" into place) and the signal handler that removes them: SIGINT, SIGTERM,
 * SIGHUP and SIGXFSZ (a write past `ulimit -f`) would otherwise leave a partial temporary file
 * behind. The handler only unlink()s the registered paths (async-signal-safe), then restores
 * the default action and raises the signal again, so the process ends as it would have. It is
 * installed once, by the first registration, and only for signals whose disposition is still
 * the default: a program that handles a signal itself keeps its handler. */
#include "iofile.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define KRI_TMP_SLOTS 64

enum { SLOT_FREE = 0, SLOT_BUSY, SLOT_READY };

static struct {
    atomic_int state;
    char path[4200];
} kri_tmp_slot[KRI_TMP_SLOTS];

static const int kri_tmp_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};

static void kri_tmp_on_signal(int sig)
{
    const int saved = errno;
    for (int i = 0; i < KRI_TMP_SLOTS; i++)
        if (atomic_load(&kri_tmp_slot[i].state) == SLOT_READY) unlink(kri_tmp_slot[i].path);
    signal(sig, SIG_DFL);
    errno = saved;
    raise(sig);
}

static void kri_tmp_install(void)
{
    for (size_t i = 0; i < sizeof kri_tmp_signals / sizeof kri_tmp_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(kri_tmp_signals[i], NULL, &old) != 0) continue;
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = kri_tmp_on_signal;
        sigfillset(&sa.sa_mask); /* no second signal while the files are being removed */
        sigaction(kri_tmp_signals[i], &sa, NULL);
    }
}

int kri_tmp_register(const char *path)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, kri_tmp_install);
    if (strlen(path) >= sizeof kri_tmp_slot[0].path) return -1;
    for (int i = 0; i < KRI_TMP_SLOTS; i++) {
        int expect = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&kri_tmp_slot[i].state, &expect, SLOT_BUSY)) continue;
        memcpy(kri_tmp_slot[i].path, path, strlen(path) + 1);
        atomic_store(&kri_tmp_slot[i].state, SLOT_READY);
        return i;
    }
    return -1; /* more writers at once than slots: that file is not protected */
}

void kri_tmp_unregister(int slot)
{
    if (slot >= 0 && slot < KRI_TMP_SLOTS) atomic_store(&kri_tmp_slot[slot].state, SLOT_FREE);
}
