/* Private interface between src/io/ismrmrd.c (reading, the library lock) and
 * src/io/ismrmrd_write.c (writing). */
#ifndef KRAY_ISMRMRD_INTERNAL_H
#define KRAY_ISMRMRD_INTERNAL_H

#include "internal.h"

/* The one sentence of every entry point in builds without libismrmrd. */
#define KRI_NO_ISMRMRD                                                                             \
    kri_fail(KR_ERR_NOT_SUPPORTED, "kray was built without ISMRMRD; install libismrmrd-dev")

#ifdef KRAY_HAVE_ISMRMRD

#include "ismrmrd_load.h" /* libismrmrd, loaded on first use */

/* Load libismrmrd (KR_ERR_NOT_SUPPORTED with one sentence when it cannot be; then nothing is
 * held), serialise libismrmrd / HDF5 calls (the serial HDF5 build is not thread-safe) and route
 * libismrmrd's error messages to this thread's buffer (cleared on enter). */
kr_status kri_ismrmrd_enter(void);
void kri_ismrmrd_leave(void);
/* First libismrmrd error message since kri_ismrmrd_enter on this thread ("" when none). */
const char *kri_ismrmrd_error(void);
/* Open (create != 0: create/truncate) `path` group `group`; KR_ERR_IO / KR_ERR_FORMAT with a
 * sentence on failure (nothing to close then). Call between enter and leave. */
kr_status kri_ismrmrd_open(ISMRMRD_Dataset *d, const char *path, const char *group, int create);
#endif

#endif
