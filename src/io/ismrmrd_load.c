/* libismrmrd's and HDF5's symbols through the optional-part loader (ismrmrd_load.h,
 * core/optional.h). Only with KRAY_HAVE_ISMRMRD. */
#include "internal.h"

#ifdef KRAY_HAVE_ISMRMRD
#include "ismrmrd_load.h"

static const kri_fn *_Atomic kri_ism; /* the loader's table, set once loaded */

kr_status kri_ismrmrd_load(void)
{
    const kri_fn *f;
    KRI_TRY(kri_part_load(KRI_PART_ISMRMRD, &f));
    kri_ism = f;
    return KR_OK;
}

kri_fn kri_ismrmrd_fn(int i) { return kri_ism[i]; }

const void *kri_ismrmrd_var(int i) { return kri_part_data(kri_ism, i); }
#endif
